import { afterAll, beforeAll, expect, it, vi } from 'vitest'
import { serve, type Server } from '../../app/main.js'
import { basicAuth, call, createTestContext, type TestContext } from '../../tooling/test-support/test-app.js'

// The api as `leadline serve` runs it: its own worker makes an export asked for over HTTP, with no one driving it,
// and a client (fetch, which undoes the gzip as Content-Encoding says) reads the file at download_url.

let ctx: TestContext
let server: Server

beforeAll(async () => {
  ctx = await createTestContext()
  server = await serve({ config: { ...ctx.config, logLevel: 'silent' }, port: 0, host: '127.0.0.1' })
})
afterAll(async () => {
  await server.close()
  await ctx.close()
})

it('an api process makes the exports asked of it and serves their files', async () => {
  const lead = await call(ctx.app, ctx.org.member.key, 'POST', '/lead/', { body: { name: 'Served Co' } })
  expect(lead.statusCode).toBe(200)
  const headers = { authorization: basicAuth(ctx.org.member.key), 'content-type': 'application/json' }
  const asked = await fetch(`${server.url}/api/v1/export/lead/`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ format: 'csv', type: 'leads', fields: ['id', 'name'] }),
  })
  expect(asked.status).toBe(200)
  const { id } = (await asked.json()) as { id: string }
  const done = await vi.waitFor(
    async () => {
      const res = await fetch(`${server.url}/api/v1/export/${id}/`, { headers })
      const body = (await res.json()) as { status: string; download_url: string | null }
      expect(body.status).toBe('done')
      return body
    },
    { timeout: 5000, interval: 50 },
  )
  const file = await fetch(`${server.url}${done.download_url ?? ''}`, { headers })
  expect(file.status).toBe(200)
  expect(file.headers.get('content-encoding')).toBe('gzip')
  expect(await file.text()).toBe(`id,name\n${String(lead.json().id)},Served Co\n`)
})
