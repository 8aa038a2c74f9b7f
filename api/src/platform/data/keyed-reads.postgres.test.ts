import { afterAll, beforeAll, expect, test, vi } from 'vitest'
import { LEAD_VERSIONS } from '../../crm/leads/lead-routes.js'
import { META_VERSION } from '../../crm/organizations/organization-meta.js'
import { call, createTestContext, type TestContext } from '../../tooling/test-support/test-app.js'

// What `HotReader.one` does only on Postgres: the reads of one kind asked for together go as one query
// (keyed-reads.test.ts checks on both databases that each still gets what a read of its own would).

let ctx: TestContext
const leads: string[] = []

beforeAll(async () => {
  ctx = await createTestContext()
  for (let i = 0; i < 5; i++) {
    const made = await call(ctx.app, ctx.org.admin.key, 'POST', '/lead/', { body: { name: `Keyed ${String(i)}` } })
    leads.push(made.json<{ id: string }>().id)
  }
})

afterAll(async () => {
  await ctx.close()
})

test('on Postgres, the reads of one kind asked for together are one query', async () => {
  const { reader, pgPool } = ctx.database
  if (pgPool === undefined) throw new Error('no Postgres pool')
  const query = vi.spyOn(pgPool, 'query')
  try {
    await Promise.all([
      ...leads.map((id) => reader.one(LEAD_VERSIONS, [ctx.org.id, id])),
      reader.one(META_VERSION, [ctx.org.id]),
      reader.one(META_VERSION, [ctx.other.id]),
    ])
    expect(query).toHaveBeenCalledTimes(2)
    query.mockClear()
    await reader.one(LEAD_VERSIONS, [ctx.org.id, leads[0] ?? ''])
    expect(query).toHaveBeenCalledTimes(1)
  } finally {
    query.mockRestore()
  }
})
