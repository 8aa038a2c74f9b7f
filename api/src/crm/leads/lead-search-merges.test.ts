import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { call, createTestContext, type TestContext } from '../../tooling/test-support/test-app.js'

// SQLite's trigram index writes each transaction's entries as a segment of its own and merges segments of a size 16 at
// a time (migration 0060, decision 0097). Many small writes, updates and deletes later, it holds exactly the leads as
// they are: FTS5's own check compares it with the search rows, and searches find each lead by its text of now.

let ctx: TestContext

beforeAll(async () => {
  ctx = await createTestContext()
})
afterAll(async () => {
  await ctx.close()
})

async function found(query: string): Promise<string[]> {
  const res = await call(ctx.app, ctx.org.member.key, 'GET', '/lead/', { query: { query } })
  expect(res.statusCode, res.body).toBe(200)
  return res.json<{ data: { id: string }[] }>().data.map((l) => l.id)
}

describe('the trigram index after many small writes', () => {
  it('merges its segments sixteen at a time, and finds every lead by what it holds now', async () => {
    const key = ctx.org.member.key
    const ids: string[] = []
    // Each lead written in a transaction of its own: a segment each, 60 of them, merged as they come.
    for (let i = 0; i < 60; i++) {
      const res = await call(ctx.app, key, 'POST', '/lead/', { body: { name: `Mergeq${String(i)}zx Company` } })
      expect(res.statusCode, res.body).toBe(200)
      ids.push(res.json<{ id: string }>().id)
    }
    for (let i = 0; i < 20; i++) {
      const res = await call(ctx.app, key, 'PUT', `/lead/${ids[i] ?? ''}/`, {
        body: { name: `Renamedq${String(i)}kx` },
      })
      expect(res.statusCode, res.body).toBe(200)
    }
    for (let i = 20; i < 40; i++)
      expect((await call(ctx.app, key, 'DELETE', `/lead/${ids[i] ?? ''}/`)).statusCode).toBe(200)

    if (ctx.database.dialect === 'sqlite') {
      const db = ctx.database.db
      const setting = await sql<{ v: number }>`select v from lead_search_fts_config where k = 'automerge'`.execute(db)
      expect(setting.rows.map((r) => r.v)).toEqual([16])
      await sql`insert into lead_search_fts (lead_search_fts, rank) values ('integrity-check', 1)`.execute(db)
      const matched = await sql<{ n: number }>`select count(*) as n from lead_search_fts
        where lead_search_fts match '"zx company"'`.execute(db)
      expect(matched.rows[0]?.n).toBe(20)
    }
    for (let i = 0; i < 60; i++) {
      const id = ids[i] ?? ''
      const renamed = i < 20
      const kept = i >= 40
      expect(await found(`Mergeq${String(i)}zx`), `lead ${String(i)}`).toEqual(kept ? [id] : [])
      if (i < 40) expect(await found(`Renamedq${String(i)}kx`), `lead ${String(i)}`).toEqual(renamed ? [id] : [])
    }
  })
})
