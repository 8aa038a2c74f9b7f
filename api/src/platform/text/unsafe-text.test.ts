import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { basicAuth, call, createTestContext, type TestContext } from '../../tooling/test-support/test-app.js'

let ctx: TestContext
let leadId: string
beforeAll(async () => {
  ctx = await createTestContext()
  const lead = await call(ctx.app, ctx.org.admin.key, 'POST', '/lead/', { body: { name: 'Kept Co' } })
  leadId = lead.json().id
})
afterAll(async () => {
  await ctx.close()
})

const message = 'Must not contain the NUL character or an unpaired surrogate.'
const refused = (field: string) => ({ errors: [], 'field-errors': { [field]: message } })
const unsafe = [
  ['NUL', 'Acme\u0000 Inc'],
  ['a lone high surrogate', 'Acme \ud800Inc'],
  ['a lone high surrogate at the end', 'Acme Inc\ud83d'],
  ['a lone low surrogate', 'Acme \udc00Inc'],
  ['a low surrogate before a high one', 'Acme \ude00\ud83dInc'],
] as const

async function leadCount(): Promise<number> {
  return (await call(ctx.app, ctx.org.admin.key, 'GET', '/lead/?_limit=0')).json().total_results
}

describe('NUL characters and unpaired surrogates', () => {
  it.each(unsafe)('refuses %s in a body field and stores nothing', async (_label, text) => {
    const before = await leadCount()
    const res = await call(ctx.app, ctx.org.admin.key, 'POST', '/lead/', { body: { name: text } })
    expect(res.statusCode).toBe(400)
    expect(res.json()).toEqual(refused('name'))
    expect(await leadCount()).toBe(before)
  })

  it.each(unsafe)('refuses %s in a nested body field by its dotted path', async (_label, text) => {
    const before = await leadCount()
    const res = await call(ctx.app, ctx.org.admin.key, 'POST', '/lead/', {
      body: { name: 'Nested Co', contacts: [{ name: 'Ann', emails: [{ email: `ann${text}@example.com` }] }] },
    })
    expect(res.statusCode).toBe(400)
    expect(res.json()).toEqual(refused('contacts.0.emails.0.email'))
    expect(await leadCount()).toBe(before)
  })

  it.each(unsafe)('refuses %s in an update and changes nothing', async (_label, text) => {
    const res = await call(ctx.app, ctx.org.admin.key, 'PUT', `/lead/${leadId}/`, { body: { name: text } })
    expect(res.statusCode).toBe(400)
    expect(res.json()).toEqual(refused('name'))
    expect((await call(ctx.app, ctx.org.admin.key, 'GET', `/lead/${leadId}/`)).json().name).toBe('Kept Co')
  })

  it.each(unsafe)('refuses %s in a status label', async (_label, text) => {
    const before = (await call(ctx.app, ctx.org.admin.key, 'GET', '/status/lead/')).json().data.length
    const res = await call(ctx.app, ctx.org.admin.key, 'POST', '/status/lead/', { body: { label: text } })
    expect(res.statusCode).toBe(400)
    expect(res.json()).toEqual(refused('label'))
    expect((await call(ctx.app, ctx.org.admin.key, 'GET', '/status/lead/')).json().data).toHaveLength(before)
  })

  it.each(unsafe)('refuses %s in _params of a POST with X-HTTP-Method-Override: GET', async (_label, text) => {
    const res = await call(ctx.app, ctx.org.admin.key, 'POST', '/lead/', {
      headers: { 'x-http-method-override': 'GET' },
      body: { _params: { query: text } },
    })
    expect(res.statusCode).toBe(400)
    expect(res.json()).toEqual(refused('query'))
  })

  it.each([
    ['/lead/lead_%00abc/', 'id'],
    ['/contact/cont_abc%00/', 'id'],
    ['/status/lead/stat_%00/', 'id'],
    ['/lead/?query=Acme%00', 'query'],
    ['/contact/?lead_id=lead_%00', 'lead_id'],
    ['/activity/?user_id=%00', 'user_id'],
    ['/user/?_fields=id%00', '_fields'],
  ])('refuses NUL in %s, naming %s', async (path, field) => {
    const res = await call(ctx.app, ctx.org.admin.key, 'GET', path)
    expect(res.statusCode).toBe(400)
    expect(res.json()).toEqual(refused(field))
  })

  it('refuses NUL in a path id on a write and changes nothing', async () => {
    const res = await ctx.app.inject({
      method: 'PUT',
      url: `/api/v1/lead/${leadId}%00/`,
      headers: { authorization: basicAuth(ctx.org.admin.key), 'content-type': 'application/json' },
      payload: JSON.stringify({ name: 'Changed' }),
    })
    expect(res.statusCode).toBe(400)
    expect(res.json()).toEqual(refused('id'))
    expect((await call(ctx.app, ctx.org.admin.key, 'GET', `/lead/${leadId}/`)).json().name).toBe('Kept Co')
  })

  it('refuses a body that is not valid UTF-8 (a surrogate encoded on its own, a stray byte) and stores nothing', async () => {
    const before = await leadCount()
    for (const bytes of [[0xed, 0xa0, 0x80], [0xff], [0xc3]]) {
      const payload = Buffer.concat([Buffer.from('{"name": "Acme '), Buffer.from(bytes), Buffer.from(' Inc"}')])
      const res = await ctx.app.inject({
        method: 'POST',
        url: '/api/v1/lead/',
        headers: { authorization: basicAuth(ctx.org.admin.key), 'content-type': 'application/json' },
        payload,
      })
      expect(res.statusCode, String(bytes)).toBe(400)
      expect(res.json()).toEqual({ error: 'The request body is not valid UTF-8.' })
    }
    expect(await leadCount()).toBe(before)
  })

  it('looks through a deeply nested body without running out of stack', async () => {
    const depth = 200_000
    const nested = (inner: string) => `{"name":"Deep Co","junk":${'['.repeat(depth)}${inner}${']'.repeat(depth)}}`
    const send = (payload: string) =>
      ctx.app.inject({
        method: 'POST',
        url: '/api/v1/lead/',
        headers: { authorization: basicAuth(ctx.org.admin.key), 'content-type': 'application/json' },
        payload,
      })
    const fine = await send(nested('"fine"'))
    expect(fine.statusCode).toBe(200)
    const bad = await send(nested('"bad\\u0000"'))
    expect(bad.statusCode).toBe(400)
    expect(bad.json()['field-errors']).toEqual({ [`junk${'.0'.repeat(depth)}`]: message })
  })

  it('names the first few places only, however many there are', async () => {
    // Every level holds a bad string: naming them all would cost time and memory that grow with the square of the depth.
    const depth = 5000
    const payload = `{"name":"Many Co","junk":${'["bad\\u0000",'.repeat(depth)}"end"${']'.repeat(depth)}}`
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/api/v1/lead/',
      headers: { authorization: basicAuth(ctx.org.admin.key), 'content-type': 'application/json' },
      payload,
    })
    expect(res.statusCode).toBe(400)
    const fields = Object.keys(res.json()['field-errors'])
    expect(fields).toHaveLength(10)
    expect(fields.slice(0, 3)).toEqual(['junk.0', 'junk.1.0', 'junk.1.1.0'])
  })

  it('keeps characters outside the Basic Multilingual Plane (a surrogate pair)', async () => {
    const res = await call(ctx.app, ctx.org.admin.key, 'POST', '/lead/', { body: { name: 'Rocket 🚀 Labs 𝔸' } })
    expect(res.statusCode).toBe(200)
    expect(res.json().name).toBe('Rocket 🚀 Labs 𝔸')
    const found = await call(ctx.app, ctx.org.admin.key, 'GET', '/lead/', { query: { query: '🚀' } })
    expect(found.statusCode).toBe(200)
  })
})
