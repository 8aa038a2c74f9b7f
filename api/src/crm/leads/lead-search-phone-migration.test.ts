import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { migrateToLatest, migrateUpTo } from '../../platform/data/migrate.js'
import { call, createTestContext, type TestContext } from '../../tooling/test-support/test-app.js'

// Migration 0051 on search rows written before they held phone numbers: the leads are made through the API, the
// migration is taken back (Kysely's migrateTo goes down as well as up) and applied again, and the new column must
// then hold each lead's numbers, found by `phone:` through the trigram index.

let ctx: TestContext
const ids: Record<string, string> = {}

beforeAll(async () => {
  ctx = await createTestContext()
  const leads = {
    two: [
      { name: 'Ann', phones: [{ phone: '+1 415 555 0101' }, { phone: '+1 212 555 0199' }] },
      { name: 'Bo', phones: [{ phone: '+44 20 7946 0958' }] },
    ],
    one: [{ name: 'Cy', phones: [{ phone: '+1 303 555 0142' }] }],
    none: [{ name: 'Di', emails: [{ email: 'di@none.example' }] }],
  }
  for (const [name, contacts] of Object.entries(leads)) {
    const created = await call(ctx.app, ctx.org.admin.key, 'POST', '/lead/', { body: { name, contacts } })
    expect(created.statusCode).toBe(200)
    ids[name] = created.json<{ id: string }>().id
  }
  expect(await migrateUpTo(ctx.database.db, '0050-audit-log')).toContain('0051-lead-search-phones')
  expect(await migrateToLatest(ctx.database.db)).toContain('0051-lead-search-phones')
})
afterAll(async () => {
  await ctx.close()
})

async function found(query: string): Promise<string[]> {
  const answer = await call(ctx.app, ctx.org.admin.key, 'GET', '/lead/', { query: { query, _fields: 'id' } })
  expect(answer.statusCode).toBe(200)
  const names = Object.fromEntries(Object.entries(ids).map(([name, id]) => [id, name]))
  return answer
    .json<{ data: { id: string }[] }>()
    .data.map((lead) => names[lead.id] ?? lead.id)
    .sort()
}

describe('migration 0051: phone numbers in the search rows', () => {
  it('fills each lead’s row with its contacts’ numbers, one a line, by contact and position', async () => {
    const rows = await ctx.database.db.selectFrom('lead_search').select(['lead_id', 'phone']).execute()
    const phones = Object.fromEntries(rows.map((row) => [row.lead_id, row.phone]))
    const contactPhones = await ctx.database.db
      .selectFrom('contact_phone')
      .select(['lead_id', 'contact_id', 'position', 'phone'])
      .where('lead_id', '=', ids.two ?? '')
      .execute()
    const expected = contactPhones
      .sort((a, b) => (a.contact_id < b.contact_id ? -1 : a.contact_id > b.contact_id ? 1 : a.position - b.position))
      .map((p) => p.phone)
      .join('\n')
    expect(phones[ids.two ?? '']).toBe(expected)
    expect(expected.split('\n')).toHaveLength(3)
    expect(phones[ids.one ?? '']).toBe('+13035550142')
    expect(phones[ids.none ?? '']).toBe('')
  })

  it('finds the leads by `phone:` through the rebuilt index, and keeps finding them as numbers change', async () => {
    expect(await found('phone:415')).toEqual(['two'])
    expect(await found('phone:555')).toEqual(['one', 'two'])
    expect(await found('phone:"020 7946 0958"')).toEqual(['two'])
    expect(await found('phone:999')).toEqual([])
    const contact = await call(ctx.app, ctx.org.admin.key, 'POST', '/contact/', {
      body: { lead_id: ids.none, name: 'Ed', phones: [{ phone: '+1 415 555 0177' }] },
    })
    expect(contact.statusCode).toBe(200)
    expect(await found('phone:415')).toEqual(['none', 'two'])
  })

  it('leaves a trigram index that holds what its triggers would have put in it', async () => {
    if (ctx.database.dialect !== 'sqlite') return
    // FTS5's integrity check compares the index with the rows it indexes; it fails with an error if they differ.
    await sql`insert into lead_search_fts (lead_search_fts, rank) values ('integrity-check', 1)`.execute(
      ctx.database.db,
    )
  })
})
