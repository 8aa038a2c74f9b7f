import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { AUTH_CACHE_SECONDS } from '../security/auth-cache.js'
import { revokeApiKey } from '../security/api-key-repo.js'
import { basicAuth, call, createTestContext, type TestContext } from '../../tooling/test-support/test-app.js'

let ctx: TestContext
beforeAll(async () => {
  ctx = await createTestContext()
})
afterAll(async () => {
  await ctx.close()
})

describe('authentication', () => {
  it('answers 401 with WWW-Authenticate when no key is sent', async () => {
    const res = await call(ctx.app, undefined, 'GET', '/me/')
    expect(res.statusCode).toBe(401)
    expect(res.headers['www-authenticate']).toBe('Basic realm="api"')
    expect(res.json()).toEqual({ error: expect.stringContaining('API key') })
  })

  it('answers 401 for a wrong key, a wrong secret and a malformed header', async () => {
    const [, secret] = ctx.org.admin.key.split('.')
    for (const authorization of [
      basicAuth('key_doesnotexist.nope'),
      basicAuth(`${ctx.org.admin.keyId}.wrong${secret ?? ''}`),
      basicAuth(`${ctx.other.admin.keyId}.${secret ?? ''}`),
      'Bearer something',
      'Basic !!!',
    ]) {
      const res = await ctx.app.inject({ method: 'GET', url: '/api/v1/me/', headers: { authorization } })
      expect(res.statusCode, authorization).toBe(401)
      expect(res.headers['www-authenticate']).toBe('Basic realm="api"')
    }
  })

  it('accepts the key with or without the empty password', async () => {
    const bare = Buffer.from(ctx.org.member.key).toString('base64')
    const res = await ctx.app.inject({ method: 'GET', url: '/api/v1/me/', headers: { authorization: `Basic ${bare}` } })
    expect(res.statusCode).toBe(200)
  })

  it.each([
    ['a NUL', 'key_abc\u0000.secret'],
    ['an unpaired surrogate', 'key_abc.\ud800secret'],
    ['no secret', 'key_abc'],
    ['spaces', 'key abc.secret'],
  ])('answers 401, not 500, to a key with %s in it', async (_name, key) => {
    const res = await ctx.app.inject({
      method: 'GET',
      url: '/api/v1/me/',
      headers: { authorization: `Basic ${Buffer.from(`${key}:`).toString('base64')}` },
    })
    expect(res.statusCode, res.body).toBe(401)
    expect(res.json()).toEqual({ error: expect.any(String) })
  })

  it('refuses a key revoked elsewhere once its verification is AUTH_CACHE_SECONDS old', async () => {
    const extra = await ctx.createOrg('Revoked Co')
    expect((await call(ctx.app, extra.member.key, 'GET', '/me/')).statusCode).toBe(200)
    await revokeApiKey(ctx.database.db, ctx.clock, extra.member.keyId)
    ctx.clock.advance(AUTH_CACHE_SECONDS * 1000)
    const res = await call(ctx.app, extra.member.key, 'GET', '/me/')
    expect(res.statusCode).toBe(401)
  })
})

describe('organizations are isolated', () => {
  it('answers 404, never 403, for another organization’s objects', async () => {
    const res = await call(ctx.app, ctx.org.admin.key, 'GET', `/organization/${ctx.other.id}/`)
    expect(res.statusCode).toBe(404)
    const put = await call(ctx.app, ctx.org.admin.key, 'PUT', `/organization/${ctx.other.id}/`, {
      body: { name: 'Hijacked' },
    })
    expect(put.statusCode).toBe(404)
    const other = await call(ctx.app, ctx.other.admin.key, 'GET', `/organization/${ctx.other.id}/`)
    expect(other.json().name).toBe('Globex')
  })
})

describe('lists', () => {
  it.each([
    ['1001', 'Ensure this value is less than or equal to 1000.'],
    ['-1', 'Ensure this value is greater than or equal to 0.'],
    ['2.5', 'A valid integer is required.'],
    ['ten', 'A valid integer is required.'],
  ])('refuses _limit=%s with a field error', async (limit, message) => {
    const res = await call(ctx.app, ctx.org.admin.key, 'GET', `/user/?_limit=${limit}`)
    expect(res.statusCode).toBe(400)
    expect(res.json()).toEqual({ errors: [], 'field-errors': { _limit: message } })
  })

  it('refuses a negative _skip', async () => {
    const res = await call(ctx.app, ctx.org.admin.key, 'GET', '/user/?_skip=-5')
    expect(res.statusCode).toBe(400)
    expect(res.json()['field-errors']).toHaveProperty('_skip')
  })

  it('keeps only the _fields asked for, on lists and single objects', async () => {
    const list = await call(ctx.app, ctx.org.admin.key, 'GET', '/user/?_fields=id,email')
    expect(list.statusCode).toBe(200)
    for (const user of list.json().data) expect(Object.keys(user).sort()).toEqual(['email', 'id'])
    expect(list.json()).toHaveProperty('has_more', false)
    const one = await call(ctx.app, ctx.org.admin.key, 'GET', `/user/${ctx.org.member.id}/?_fields=first_name`)
    expect(one.json()).toEqual({ first_name: 'Rey' })
    const me = await call(ctx.app, ctx.org.admin.key, 'GET', '/me/?_fields=id,organizations')
    expect(Object.keys(me.json()).sort()).toEqual(['id', 'organizations'])
  })

  it('answers errors whole whatever _fields asks for', async () => {
    const invalid = await call(ctx.app, ctx.org.admin.key, 'GET', '/user/?_fields=id&_limit=5000')
    expect(invalid.statusCode).toBe(400)
    expect(invalid.json()).toEqual({
      errors: [],
      'field-errors': { _limit: 'Ensure this value is less than or equal to 1000.' },
    })
    const missing = await call(ctx.app, ctx.org.admin.key, 'GET', '/user/user_nobody/?_fields=id')
    expect(missing.statusCode).toBe(404)
    expect(missing.json()).toEqual({ error: 'User not found.' })
  })

  it('reads filters from _params in the body of a POST with X-HTTP-Method-Override: GET', async () => {
    const res = await call(ctx.app, ctx.org.admin.key, 'POST', '/user/', {
      headers: { 'x-http-method-override': 'GET' },
      body: { _params: { _limit: 1, _fields: 'id' } },
    })
    expect(res.statusCode).toBe(200)
    expect(res.json()).toEqual({ has_more: true, data: [{ id: expect.stringMatching(/^user_/) }] })
  })

  it('validates _params like a query string', async () => {
    const res = await call(ctx.app, ctx.org.admin.key, 'POST', '/user/', {
      headers: { 'x-http-method-override': 'GET' },
      body: { _params: { _limit: 5000 } },
    })
    expect(res.statusCode).toBe(400)
    expect(res.json()['field-errors']).toHaveProperty('_limit')
  })

  it('routes a POST with X-HTTP-Method-Override: PUT to the update', async () => {
    const res = await call(ctx.app, ctx.org.admin.key, 'POST', `/organization/${ctx.org.id}/`, {
      headers: { 'x-http-method-override': 'PUT' },
      body: { name: 'Acme Incorporated' },
    })
    expect(res.statusCode).toBe(200)
    expect(res.json().name).toBe('Acme Incorporated')
  })
})

describe('X-TZ-Offset', () => {
  it.each(['-4', '5.5', '0.0', '+2', '5.75', '-12', '14'])('accepts %s', async (offset) => {
    const res = await call(ctx.app, ctx.org.admin.key, 'GET', '/me/', { headers: { 'x-tz-offset': offset } })
    expect(res.statusCode).toBe(200)
  })

  it.each(['abc', '', '15', '-13', '5.3', '1e1', '3:00'])('refuses %j with 400', async (offset) => {
    const res = await call(ctx.app, ctx.org.admin.key, 'GET', '/me/', { headers: { 'x-tz-offset': offset } })
    expect(res.statusCode).toBe(400)
    expect(res.json()).toEqual({ error: expect.stringContaining('X-TZ-Offset') })
  })
})

describe('request bodies', () => {
  const path = () => `/organization/${ctx.org.id}/`

  it('answers 400 for malformed JSON and changes nothing', async () => {
    const res = await ctx.app.inject({
      method: 'PUT',
      url: `/api/v1${path()}`,
      headers: { authorization: basicAuth(ctx.org.admin.key), 'content-type': 'application/json' },
      payload: '{"name": "Broken',
    })
    expect(res.statusCode).toBe(400)
    expect(res.json()).toEqual({ error: 'Malformed JSON in the request body.' })
  })

  it('answers 415 for a body that is not JSON', async () => {
    const res = await ctx.app.inject({
      method: 'PUT',
      url: `/api/v1${path()}`,
      headers: { authorization: basicAuth(ctx.org.admin.key), 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'name=Form',
    })
    expect(res.statusCode).toBe(415)
    expect(res.json()).toEqual({ error: expect.stringContaining('application/json') })
  })

  it('answers 413 for a body over 1 MiB', async () => {
    const res = await call(ctx.app, ctx.org.admin.key, 'PUT', path(), { body: { name: 'x'.repeat(1024 * 1024 + 1) } })
    expect(res.statusCode).toBe(413)
    expect(res.json()).toEqual({ error: expect.any(String) })
  })

  it('ignores read-only fields', async () => {
    const res = await call(ctx.app, ctx.org.admin.key, 'PUT', path(), {
      body: { name: 'Acme Inc', id: 'orga_forged', date_created: '2000-01-01T00:00:00.000000+00:00' },
    })
    expect(res.statusCode).toBe(200)
    expect(res.json().id).toBe(ctx.org.id)
    expect(res.json().date_created).not.toBe('2000-01-01T00:00:00.000000+00:00')
  })
})

describe('routing errors', () => {
  it('answers 404 JSON for an unknown path', async () => {
    const res = await call(ctx.app, ctx.org.admin.key, 'GET', '/no_such_thing/')
    expect(res.statusCode).toBe(404)
    expect(res.json()).toEqual({ error: expect.any(String) })
  })

  it('answers 405 JSON with Allow for a known path and a wrong method', async () => {
    const res = await call(ctx.app, ctx.org.admin.key, 'DELETE', '/me/')
    expect(res.statusCode).toBe(405)
    expect(res.headers.allow).toContain('GET')
    expect(res.json()).toEqual({ error: 'Method DELETE not allowed.' })
  })

  it.each([
    ['/lead/%ZZ/', 400, 'The URL is malformed: check its percent-encoding.'],
    ['/lead/lead_%ED%A0%80/', 400, 'The URL is malformed: check its percent-encoding.'],
    [`/lead/lead_${'a'.repeat(100)}/`, 414, 'A segment of the URL path is longer than 100 characters.'],
  ])('answers %s with %i in the API shape', async (path, status, error) => {
    const res = await call(ctx.app, ctx.org.admin.key, 'GET', path)
    expect(res.statusCode).toBe(status)
    expect(res.headers['content-type']).toMatch(/^application\/json/)
    expect(res.json()).toEqual({ error })
  })

  it('answers 403 when a plain user writes what only admins may', async () => {
    const res = await call(ctx.app, ctx.org.member.key, 'PUT', `/organization/${ctx.org.id}/`, {
      body: { name: 'Mine now' },
    })
    expect(res.statusCode).toBe(403)
    expect(res.json()).toEqual({ error: expect.any(String) })
    const org = await call(ctx.app, ctx.org.member.key, 'GET', `/organization/${ctx.org.id}/`)
    expect(org.json().name).not.toBe('Mine now')
  })
})

describe('responses', () => {
  it('carries a request id and rate-limit headers', async () => {
    const res = await call(ctx.app, ctx.org.admin.key, 'GET', '/me/')
    expect(res.headers['x-request-id']).toMatch(/^req_[0-9A-Za-z]{22}$/)
    expect(res.headers['x-rate-limit-limit']).toBe('2400')
    expect(Number(res.headers['x-rate-limit-remaining'])).toBeLessThan(2400)
    expect(res.headers['x-rate-limit-reset']).toMatch(/^\d+\.\d{6}$/)
    expect(res.headers.ratelimit).toMatch(/^limit=2400, remaining=\d+, reset=\d+$/)
  })
})

describe('request ids', () => {
  const requests: [label: string, key: string | undefined, method: 'GET' | 'PUT' | 'DELETE', path: string][] = [
    ['a read', 'member', 'GET', '/me/'],
    ['no key', undefined, 'GET', '/me/'],
    ['an unknown path', 'member', 'GET', '/no_such_thing/'],
    ['a wrong method', 'member', 'DELETE', '/me/'],
    ['a malformed URL', 'member', 'GET', '/lead/%ZZ/'],
    ['a path segment too long', 'member', 'GET', `/lead/lead_${'a'.repeat(100)}/`],
    ['a refused query string', 'member', 'GET', '/lead/?_limit=-1'],
    ['text no database could store', 'member', 'GET', '/lead/?query=%00'],
    ['a missing lead', 'member', 'GET', '/lead/lead_missing/'],
  ]

  it.each(requests)('are on every answer, errors included: %s', async (_label, who, method, path) => {
    const res = await call(ctx.app, who === undefined ? undefined : ctx.org.member.key, method, path)
    expect(res.headers['x-request-id'], `${String(res.statusCode)} ${res.body}`).toMatch(/^req_[0-9A-Za-z]{22}$/)
  })

  it('are on answers refused before the route: a bad X-TZ-Offset, a body that is not JSON', async () => {
    const tz = await call(ctx.app, ctx.org.member.key, 'GET', '/me/', { headers: { 'x-tz-offset': 'abc' } })
    expect(tz.statusCode).toBe(400)
    expect(tz.headers['x-request-id']).toMatch(/^req_[0-9A-Za-z]{22}$/)
    const notJson = await ctx.app.inject({
      method: 'PUT',
      url: `/api/v1/organization/${ctx.org.id}/`,
      headers: { authorization: basicAuth(ctx.org.admin.key), 'content-type': 'text/plain' },
      payload: 'name=Nope',
    })
    expect(notJson.statusCode).toBe(415)
    expect(notJson.headers['x-request-id']).toMatch(/^req_[0-9A-Za-z]{22}$/)
  })

  it('differ from one request to the next', async () => {
    const ids = new Set<unknown>()
    for (let i = 0; i < 5; i++)
      ids.add((await call(ctx.app, ctx.org.member.key, 'GET', '/me/')).headers['x-request-id'])
    expect(ids.size).toBe(5)
  })
})

describe('internal errors', () => {
  it('hides the cause behind a 500 with a request id', async () => {
    const broken = await createTestContext()
    await broken.database.close()
    const res = await call(broken.app, broken.org.admin.key, 'GET', '/me/')
    expect(res.statusCode).toBe(500)
    expect(res.json()).toEqual({ error: 'Internal server error', request_id: res.headers['x-request-id'] })
    expect(res.body).not.toMatch(/at .*\.(js|ts)|destroyed|kysely/i)
    await broken.close()
  })
})

describe('OpenAPI', () => {
  it('serves an OpenAPI 3.1 document generated from the routes, without a key', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: '/api/v1/openapi.json' })
    expect(res.statusCode).toBe(200)
    const doc = res.json()
    expect(doc.openapi).toBe('3.1.0')
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining(['/api/v1/me/', '/api/v1/user/{id}/', '/api/v1/organization/{id}/']),
    )
    expect(doc.paths['/api/v1/user/'].get.parameters.map((p: { name: string }) => p.name)).toEqual(
      expect.arrayContaining(['_skip', '_limit', '_fields']),
    )
  })

  it('describes request bodies as the API treats them: fields it does not know are ignored, not refused', async () => {
    const doc = (await ctx.app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).json()
    const closed: string[] = []
    const walk = (node: unknown, path: string) => {
      if (typeof node !== 'object' || node === null) return
      for (const [key, child] of Object.entries(node)) {
        if (key === 'additionalProperties' && child === false) closed.push(path)
        walk(child, `${path}/${key}`)
      }
    }
    walk(doc, '')
    expect(closed).toEqual([])
    expect(doc.info.description).toContain('Fields a request body does not list are ignored')

    // Routes whose body schemas list exactly the fields they take: an extra one changes nothing and is not echoed.
    const writes = [
      ['post', '/status/lead/', '/status/lead/', { label: 'Ignoring extras' }],
      ['post', '/status/opportunity/', '/status/opportunity/', { label: 'Ignoring extras', type: 'active' }],
      ['post', '/custom_field/lead/', '/custom_field/lead/', { name: 'Ignoring extras', type: 'text' }],
      ['put', '/organization/{id}/', `/organization/${ctx.org.id}/`, { name: 'Acme Inc' }],
    ] as const
    for (const [method, documented, path, body] of writes) {
      expect(doc.paths[`/api/v1${documented}`][method].requestBody, documented).toBeDefined()
      const res = await call(ctx.app, ctx.org.admin.key, method === 'post' ? 'POST' : 'PUT', path, {
        body: { ...body, not_a_field: 'ignored' },
      })
      expect({ path, status: res.statusCode }).toEqual({ path, status: 200 })
      expect(res.json()).not.toHaveProperty('not_a_field')
    }
  })

  it('serves a readable reference page', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: '/api/v1/docs/' })
    expect(res.statusCode).toBe(200)
    expect(res.headers['content-type']).toContain('text/html')
    expect(res.body).toContain('/api/v1/user/{id}/')
  })
})
