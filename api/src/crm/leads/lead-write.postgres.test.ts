import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { sql } from 'kysely'
import { call, createTestContext, type TestContext } from '../../tooling/test-support/test-app.js'

// Postgres only: it runs writers side by side, so a row checked by one request can be deleted by another before the
// write that refers to it. SQLite's single writer cannot interleave them.

let ctx: TestContext
beforeAll(async () => {
  ctx = await createTestContext()
})
afterAll(async () => {
  await ctx.close()
})

const admin = () => ctx.org.admin.key
const rep = () => ctx.org.member.key

describe('a custom field deleted while a lead is written with a value for it', () => {
  it('answers 400 on that field, never 500', async () => {
    const field = (
      await call(ctx.app, admin(), 'POST', '/custom_field/lead/', { body: { name: 'Short-lived', type: 'text' } })
    ).json()
    const db = ctx.database.db
    let pending: ReturnType<typeof call> | undefined
    await db.transaction().execute(async (tx) => {
      await tx.deleteFrom('custom_field').where('id', '=', field.id).execute()
      // The request checks the field (still there for it), then waits on the deleted row's lock to store the value.
      pending = call(ctx.app, rep(), 'POST', '/lead/', { body: { name: 'Racing Co', [`custom.${field.id}`]: 'x' } })
      for (let tries = 0; tries < 500; tries++) {
        const waiting = await sql<{ n: string }>`select count(*) as n from pg_stat_activity
          where wait_event_type = 'Lock' and datname = current_database()`.execute(db)
        if (Number(waiting.rows[0]?.n) > 0) return
        await new Promise((resolve) => setTimeout(resolve, 10))
      }
      throw new Error('the request never waited for the lock')
    })
    const res = await pending
    expect(res?.statusCode, res?.body).toBe(400)
    expect(res?.json()['field-errors']).toEqual({ [`custom.${field.id}`]: expect.any(String) })
  })
})
