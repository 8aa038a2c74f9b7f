import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { DatabaseHandle } from '../../platform/data/database.js'
import { call, createTestContext, openSecondApi, type TestContext } from '../../tooling/test-support/test-app.js'
import { OrganizationLeadIndex } from './lead-index.js'
import { searchLeads } from './lead-search.js'

// The in-memory lead index (decision 0061) through each kind of change a value it keeps can take, written through
// one api instance and searched through another on its own connection, as two processes: each search is answered
// by the index as by SQL, and sees the write at once.

let ctx: TestContext
let second: Awaited<ReturnType<typeof openSecondApi>>

beforeAll(async () => {
  ctx = await createTestContext()
  second = await openSecondApi(ctx)
})
afterAll(async () => {
  await second.close()
  await ctx.close()
})

async function totals(database: DatabaseHandle, organizationId: string, query: string) {
  const search = {
    dialect: database.dialect,
    organizationId,
    query,
    now: new Date('2026-03-02T00:00:00Z'),
    tzOffsetHours: 0,
    skip: 0,
    limit: 10,
  }
  const byIndex = await searchLeads(database.db, { ...search, engine: 'index' })
  const bySql = await searchLeads(database.db, { ...search, engine: 'sql' })
  expect(
    byIndex.data.map((l) => l.id),
    query,
  ).toEqual(bySql.data.map((l) => l.id))
  expect(byIndex.total_results, query).toBe(bySql.total_results)
  return byIndex.total_results
}

describe('the in-memory lead index', () => {
  it("follows a lead's number field, status, tasks and contacts as they change, through another process", async () => {
    const org = await ctx.createOrg('Following Co')
    const key = org.admin.key
    const ok = async (method: 'POST' | 'PUT' | 'DELETE', path: string, body?: object) => {
      const res = await call(ctx.app, key, method, path, body === undefined ? {} : { body })
      expect(res.statusCode, res.body).toBe(200)
      return res.json<{ id: string }>()
    }
    const seen = (query: string) => totals(second.database, org.id, query)
    const field = (await ok('POST', '/custom_field/lead/', { name: 'Employees', type: 'number' })).id
    const lead = (await ok('POST', '/lead/', { name: 'Acme', [`custom.${field}`]: 80 })).id
    expect(await seen('custom.Employees>50')).toBe(1)
    await ok('PUT', `/lead/${lead}/`, { [`custom.${field}`]: 30 })
    expect(await seen('custom.Employees>50')).toBe(0)
    expect(await seen('custom.Employees:30')).toBe(1)
    await ok('PUT', `/lead/${lead}/`, { [`custom.${field}`]: null })
    expect(await seen('custom.Employees<=50')).toBe(0)

    expect(await seen('status:potential')).toBe(1)
    await ok('PUT', `/lead/${lead}/`, { status: 'Qualified' })
    expect(await seen('status:potential')).toBe(0)
    expect(await seen('status:qualified')).toBe(1)

    const task = (await ok('POST', '/task/', { lead_id: lead, text: 'Call' })).id
    expect(await seen('has:tasks')).toBe(1)
    await ok('PUT', `/task/${task}/`, { is_complete: true })
    expect(await seen('has:tasks')).toBe(0)
    expect(await seen('tasks:0')).toBe(1)

    const contact = (await ok('POST', '/contact/', { lead_id: lead, emails: [{ email: 'a@acme.example' }] })).id
    expect(await seen('has:email contacts:1')).toBe(1)
    await ok('DELETE', `/contact/${contact}/`)
    expect(await seen('has:email')).toBe(0)
    expect(await seen('not has:contacts')).toBe(1)

    await ok('DELETE', `/lead/${lead}/`)
    expect(await seen('*')).toBe(0)
    expect(await seen('not has:contacts')).toBe(0)
  })

  it('is built anew, not caught up lead by lead, when many leads changed since it last looked', async () => {
    const org = await ctx.createOrg('Many Changes Co')
    const create = (name: string) => call(ctx.app, org.admin.key, 'POST', '/lead/', { body: { name } })
    await create('First')
    const index = new OrganizationLeadIndex(org.id, ctx.database.dialect, 2)
    await index.build(second.database.db)
    expect(index.size).toBe(1)
    await create('Second')
    await create('Third')
    expect(await index.catchUp(second.database.db)).toBe(true)
    expect(index.size).toBe(3)
    for (const name of ['Fourth', 'Fifth', 'Sixth']) await create(name)
    expect(await index.catchUp(second.database.db)).toBe(false)
  })
})
