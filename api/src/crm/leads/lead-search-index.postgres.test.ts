import { afterEach, beforeEach, expect, it } from 'vitest'
import { writeAppState } from '../../platform/data/app-state.js'
import { openDatabase, type DatabaseHandle } from '../../platform/data/database.js'
import { call, createTestContext, type TestContext } from '../../tooling/test-support/test-app.js'
import { ensureLeadSearchCurrent } from './lead-search-index.js'

// Several api processes on one Postgres start together after an upgrade: one rebuilds the search documents.

let ctx: TestContext
let second: DatabaseHandle

beforeEach(async () => {
  ctx = await createTestContext()
  second = openDatabase(ctx.database.url)
})
afterEach(async () => {
  await second.close()
  await ctx.close()
})

it('rebuilds once when two processes find the documents stale at the same time', async () => {
  for (let i = 0; i < 20; i++) {
    const res = await call(ctx.app, ctx.org.admin.key, 'POST', '/lead/', { body: { name: `Lead ${String(i)}` } })
    expect(res.statusCode, res.body).toBe(200)
  }
  await writeAppState(ctx.database.db, 'lead_search_document_version', '1')
  const results = await Promise.all([
    ensureLeadSearchCurrent(ctx.database.db, { batchSize: 5 }),
    ensureLeadSearchCurrent(second.db, { batchSize: 5 }),
  ])
  expect(results.filter((r) => r === undefined)).toHaveLength(1)
  expect(results.filter((r) => r === 20)).toHaveLength(1)
})
