import { request } from 'node:http'
import type { LookupAddress } from 'node:dns'
import { setTimeout as sleep } from 'node:timers/promises'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { basicAuth, createTestContext, type TestContext } from '../tooling/test-support/test-app.js'
import { serve } from './main.js'

let ctx: TestContext

beforeAll(async () => {
  ctx = await createTestContext()
})
afterAll(async () => {
  await ctx.close()
})

it('closing waits for a handler whose client has left, and the database closes only after its write', async () => {
  // Saving a webhook resolves its host first: the test holds that answer, and so the handler, until it is ready.
  let asked: () => void = () => undefined
  const resolving = new Promise<void>((resolve) => (asked = resolve))
  let answer: (addresses: LookupAddress[]) => void = () => undefined
  const server = await serve({
    config: { ...ctx.config, logLevel: 'silent' },
    port: 0,
    host: '127.0.0.1',
    importThreadFile: null,
    resolve: () => {
      asked()
      return new Promise((resolve) => (answer = resolve))
    },
  })
  const url = 'https://hooks.example.com/leaving'
  const req = request(`${server.url}/api/v1/webhook/`, {
    method: 'POST',
    headers: { authorization: basicAuth(ctx.org.admin.key), 'content-type': 'application/json' },
  })
  req.on('error', () => undefined)
  req.end(JSON.stringify({ url, events: [{ object_type: 'lead', action: 'created' }] }))
  await resolving
  // The client leaves, and with its connection gone nothing holds the server open.
  req.destroy()
  const closed = server.close().then(() => 'closed' as const)
  expect(await Promise.race([closed, sleep(500).then(() => 'waiting' as const)])).toBe('waiting')

  answer([{ address: '93.184.216.34', family: 4 }])
  expect(await closed).toBe('closed')
  const stored = await ctx.database.db
    .selectFrom('webhook_subscription')
    .select('url')
    .where('organization_id', '=', ctx.org.id)
    .execute()
  expect(stored).toEqual([{ url }])
})
