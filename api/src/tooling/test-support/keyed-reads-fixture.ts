import { afterAll, beforeAll } from 'vitest'
import { call, createTestContext, type TestContext } from './test-app.js'

/**
 * What both keyed-read test files start from: a test context on the test database and five leads of its first
 * organization, made through the API (hooks registered for the calling file; read `ctx` inside its tests).
 */
export function keyedReadsFixture(): { readonly ctx: TestContext; readonly leads: readonly string[] } {
  let ctx: TestContext | undefined
  const leads: string[] = []
  beforeAll(async () => {
    ctx = await createTestContext()
    for (let i = 0; i < 5; i++) {
      const made = await call(ctx.app, ctx.org.admin.key, 'POST', '/lead/', { body: { name: `Keyed ${String(i)}` } })
      leads.push(made.json<{ id: string }>().id)
    }
  })
  afterAll(async () => {
    await ctx?.close()
  })
  return {
    get ctx() {
      if (ctx === undefined) throw new Error('the fixture is read before its beforeAll ran')
      return ctx
    },
    leads,
  }
}
