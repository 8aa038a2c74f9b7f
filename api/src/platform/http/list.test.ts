import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { call, createTestContext, type TestContext } from '../../tooling/test-support/test-app.js'
import { LIST_SKIP_MAX } from './list.js'

let ctx: TestContext
let listPaths: string[]
beforeAll(async () => {
  ctx = await createTestContext()
  // Every list the API has, read from its own document, so a list added later is covered too.
  const doc: { paths: Record<string, { get?: { parameters?: { name: string; in: string }[] } }> } = (
    await ctx.app.inject({ method: 'GET', url: '/api/v1/openapi.json' })
  ).json()
  listPaths = Object.entries(doc.paths)
    .filter(([, operations]) => operations.get?.parameters?.some((p) => p.in === 'query' && p.name === '_skip'))
    .map(([path]) => path.replace(/^\/api\/v1/, ''))
})
afterAll(async () => {
  await ctx.close()
})

const huge = ['1e309', 'Infinity', '-Infinity', '99999999999999999999999', String(LIST_SKIP_MAX + 1)]

describe('list paging bounds', () => {
  it('finds every list', () => {
    expect(listPaths).toEqual(
      expect.arrayContaining([
        '/lead/',
        '/contact/',
        '/activity/',
        '/activity/note/',
        '/activity/created/',
        '/activity/status_change/lead/',
        '/user/',
        '/status/lead/',
        '/status/opportunity/',
        '/custom_field/lead/',
        '/custom_field/contact/',
        '/custom_field/opportunity/',
        '/phone_number/',
      ]),
    )
  })

  it('refuses an out-of-range _skip on every list with a field error that states the maximum', async () => {
    for (const path of listPaths) {
      for (const skip of huge) {
        const res = await call(ctx.app, ctx.org.admin.key, 'GET', `${path}?_skip=${encodeURIComponent(skip)}`)
        const expected = skip.startsWith('-')
          ? 'Ensure this value is greater than or equal to 0.'
          : `Ensure this value is less than or equal to ${LIST_SKIP_MAX}.`
        expect({ path, skip, status: res.statusCode, body: res.json() }).toEqual({
          path,
          skip,
          status: 400,
          body: { errors: [], 'field-errors': { _skip: expected } },
        })
      }
    }
  })

  it('refuses an out-of-range _limit on every list with a field error', async () => {
    for (const path of listPaths) {
      for (const limit of huge) {
        const res = await call(ctx.app, ctx.org.admin.key, 'GET', `${path}?_limit=${encodeURIComponent(limit)}`)
        expect({ path, limit, status: res.statusCode, fields: Object.keys(res.json()['field-errors'] ?? {}) }).toEqual({
          path,
          limit,
          status: 400,
          fields: ['_limit'],
        })
      }
    }
  })

  it('answers the largest _skip with an empty page on every list', async () => {
    // A list under an object (`/webhook/{id}/deliveries/`) needs an object of the organization: it answers 404 here.
    for (const path of listPaths.filter((p) => !p.includes('{'))) {
      const res = await call(ctx.app, ctx.org.admin.key, 'GET', `${path}?_skip=${LIST_SKIP_MAX}`)
      expect({ path, status: res.statusCode, data: res.json().data, more: res.json().has_more }).toEqual({
        path,
        status: 200,
        data: [],
        more: false,
      })
    }
  })

  it('bounds _skip in the _params of a POST with X-HTTP-Method-Override: GET', async () => {
    const res = await call(ctx.app, ctx.org.admin.key, 'POST', '/lead/', {
      headers: { 'x-http-method-override': 'GET' },
      body: { _params: { _skip: 1e300 } },
    })
    expect(res.statusCode).toBe(400)
    expect(res.json()).toEqual({
      errors: [],
      'field-errors': { _skip: `Ensure this value is less than or equal to ${LIST_SKIP_MAX}.` },
    })
  })
})
