import { sql } from 'kysely'
import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildApp } from '../../app/app.js'
import { loadConfig } from '../../platform/config.js'
import { openDatabase, type DatabaseHandle } from '../../platform/data/database.js'
import { migrateToLatest, migrateUpTo } from '../../platform/data/migrate.js'
import {
  call,
  createOrg,
  createTestDatabase,
  TEST_SECRET_KEY,
  TEST_STREAM_SECRET,
  TestClock,
  testResolver,
  type TestDatabase,
  type TestOrg,
} from '../../tooling/test-support/test-app.js'

// Migration 0037 on a log that holds events already: they answer `meta: {}` (nothing was kept of how they came
// about), and a deletion stored with the object in `data` shows it in `previous_data`, as those recorded after it.

let testDb: TestDatabase
let database: DatabaseHandle
let app: FastifyInstance
let org: TestOrg
const clock = new TestClock()
const at = '2026-02-01T09:30:00.123000+00:00'
const before = {
  id: 'ev_oldEventBeforeMeta000',
  object_type: 'lead',
  object_id: 'lead_gone',
  action: 'deleted',
  lead_id: 'lead_gone',
  user_id: null,
  request_id: 'req_oldRequest000000000',
  api_key_id: null,
  date_created: at,
  date_updated: at,
  data: { id: 'lead_gone', name: 'Old Co' },
  previous_data: {},
  changed_fields: [],
}
const updated = {
  ...before,
  id: 'ev_oldUpdateBeforeMeta00',
  action: 'updated',
  data: { id: 'lead_gone', name: 'Old Co' },
  previous_data: { name: 'Older Co' },
  changed_fields: ['name'],
}

beforeAll(async () => {
  testDb = await createTestDatabase()
  database = openDatabase(testDb.url)
  expect(await migrateUpTo(database.db, '0035-email-account-last-error')).toContain('0035-email-account-last-error')
  org = await createOrg(database, clock, 'Before Meta')
  for (const old of [updated, before])
    await sql`insert into event (id, organization_id, object_type, object_id, action, lead_id, user_id, request_id,
        api_key_id, data, previous_data, changed_fields, date_created, date_updated)
      values (${old.id}, ${org.id}, ${old.object_type}, ${old.object_id}, ${old.action}, ${old.lead_id},
        ${old.user_id}, ${old.request_id}, ${old.api_key_id}, ${JSON.stringify(old.data)},
        ${JSON.stringify(old.previous_data)}, ${JSON.stringify(old.changed_fields)}, ${at}, ${at})`.execute(database.db)
  expect(await migrateToLatest(database.db)).toContain('0037-event-meta')
  const config = loadConfig({
    DATABASE_URL: testDb.url,
    LEADLINE_STREAM_SECRET: TEST_STREAM_SECRET,
    LEADLINE_SECRET_KEY: TEST_SECRET_KEY,
  })
  app = await buildApp({ database, config, clock, logger: false, resolve: testResolver })
})

afterAll(async () => {
  await app.close()
  await database.close()
  await testDb.drop()
})

describe('migration 0037: the meta of events', () => {
  it('gives an event recorded before it meta {}, and its deletion’s object in previous_data', async () => {
    const res = await call(app, org.admin.key, 'GET', `/event/${before.id}/`)
    expect(res.statusCode, res.body).toBe(200)
    expect(res.json()).toEqual({
      ...before,
      organization_id: org.id,
      data: null,
      previous_data: before.data,
      meta: {},
    })
    // Other events keep what they held.
    const page = await call(app, org.admin.key, 'GET', '/event/', { query: { object_id: before.object_id } })
    expect(page.json<{ data: unknown[] }>().data).toEqual([
      res.json(),
      { ...updated, organization_id: org.id, meta: {} },
    ])
  })

  it('records the request of the events after it', async () => {
    const made = await call(app, org.admin.key, 'POST', '/lead/', { body: { name: 'After Meta' } })
    expect(made.statusCode, made.body).toBe(200)
    const requestId = String(made.headers['x-request-id'])
    const page = await call(app, org.admin.key, 'GET', '/event/', { query: { request_id: requestId } })
    const metas = page.json<{ data: { meta: unknown }[] }>().data.map((e) => e.meta)
    expect(metas.length).toBeGreaterThan(0)
    for (const meta of metas) expect(meta).toEqual({ request_method: 'POST', request_path: '/api/v1/lead/' })
  })
})
