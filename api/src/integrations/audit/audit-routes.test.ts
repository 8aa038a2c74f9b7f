import { parse } from 'csv-parse/sync'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { AuditEntry } from '@leadline/shared/audit-log-schema'
import { setPassword } from '../../accounts/account-repo.js'
import { SIGN_IN_LIMITS } from '../../accounts/sign-in-throttle.js'
import { formatTimestamp } from '../../platform/data/time.js'
import { startTestProvider, type TestProvider } from '../../tooling/test-support/oidc-provider.js'
import {
  basicAuth,
  call,
  createTestContext,
  type TestContext,
  type TestOrg,
} from '../../tooling/test-support/test-app.js'
import { AUDIT_OBJECT_TYPE } from '../events/audit-repo.js'
import { purgeOldAuditEntries, purgeOldEvents } from '../events/event-retention.js'

// The audit log (decision 0073), on the database LEADLINE_TEST_DB names: every audited action writes its entry with
// who, when and from where; only admins read it, filtered, paged or as CSV; it is purged on its own schedule.

const PASSWORD = 'quiet lantern orbit 7 maple'
const FROM = '203.0.113.9'

let ctx: TestContext
let idp: TestProvider
beforeAll(async () => {
  ctx = await createTestContext({ env: { LEADLINE_OUTBOUND_ALLOW_PRIVATE: '1' } })
  idp = await startTestProvider(`${ctx.config.appUrl}/auth/sso/callback`)
})
afterAll(async () => {
  await idp.close()
  await ctx.close()
})

async function emailOf(userId: string): Promise<string> {
  const row = await ctx.database.db
    .selectFrom('user')
    .select('email')
    .where('id', '=', userId)
    .executeTakeFirstOrThrow()
  return row.email
}

/** A request as `key` from the browser address `from`, which the BFF forwards (the test's peer is loopback). */
function as(key: string | undefined, method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, body?: unknown) {
  return call(ctx.app, key, method, path, {
    headers: { 'x-forwarded-for': FROM },
    ...(body === undefined ? {} : { body }),
  })
}

async function entries(org: TestOrg, query: Record<string, string> = {}): Promise<AuditEntry[]> {
  const res = await call(ctx.app, org.admin.key, 'GET', '/audit_log/', { query })
  expect(res.statusCode, res.body).toBe(200)
  return res.json<{ data: AuditEntry[] }>().data
}

async function only(org: TestOrg, action: string): Promise<AuditEntry> {
  const found = await entries(org, { action })
  expect(found, action).toHaveLength(1)
  return found[0] as AuditEntry
}

describe('the audit log records', () => {
  it('a sign-in with password, with who, when and the forwarded address', async () => {
    const org = await ctx.createOrg('Audit sign-in')
    await setPassword(ctx.database.db, ctx.clock, org.member.id, PASSWORD)
    const email = await emailOf(org.member.id)
    const res = await as(undefined, 'POST', '/auth/sign_in/', { email, password: PASSWORD })
    expect(res.statusCode, res.body).toBe(200)
    const entry = await only(org, 'sign_in')
    expect(entry).toMatchObject({
      user_id: org.member.id,
      actor_name: 'Rey Rep',
      actor_email: email,
      object_type: 'user',
      object_id: org.member.id,
      client_address: FROM,
      details: { method: 'password' },
      api_key_id: res.json().api_key_id,
    })
    expect(entry.date_created).toMatch(/^2026-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}\+00:00$/)

    // Exchanging a key for a session is a sign-in too.
    await as(org.member.key, 'POST', '/auth/session/', {})
    const both = await entries(org, { action: 'sign_in' })
    expect(both.map((e) => e.details.method)).toEqual(['api_key', 'password'])
  })

  it('a failed sign-in with the email tried and no password, and no more than the throttle lets through', async () => {
    const org = await ctx.createOrg('Audit failures')
    await setPassword(ctx.database.db, ctx.clock, org.member.id, PASSWORD)
    const email = await emailOf(org.member.id)
    const wrong = 'not-the-password-at-all'
    expect((await as(undefined, 'POST', '/auth/sign_in/', { email, password: wrong })).statusCode).toBe(401)
    const entry = await only(org, 'sign_in_failed')
    expect(entry).toMatchObject({
      user_id: null,
      actor_email: email,
      object_id: org.member.id,
      client_address: FROM,
      details: { reason: 'password' },
    })
    const stored = await ctx.database.db
      .selectFrom('event')
      .selectAll()
      .where('organization_id', '=', org.id)
      .where('object_type', '=', AUDIT_OBJECT_TYPE)
      .execute()
    expect(JSON.stringify(stored)).not.toContain(wrong)

    // An address with no account writes nothing anywhere; past the account's limit, nothing more is written.
    const before = await ctx.database.db.selectFrom('event').select('seq').execute()
    expect(
      (await as(undefined, 'POST', '/auth/sign_in/', { email: 'nobody@example.com', password: wrong })).statusCode,
    ).toBe(401)
    expect(await ctx.database.db.selectFrom('event').select('seq').execute()).toHaveLength(before.length)
    for (let i = 1; i < SIGN_IN_LIMITS.perAccount + 5; i++)
      await call(ctx.app, undefined, 'POST', '/auth/sign_in/', {
        body: { email, password: wrong },
        headers: { 'x-forwarded-for': `198.51.100.${String(i)}` },
      })
    expect(await entries(org, { action: 'sign_in_failed' })).toHaveLength(SIGN_IN_LIMITS.perAccount)
  })

  it('keys made and revoked, role changes, deactivations and reactivations', async () => {
    const org = await ctx.createOrg('Audit members')
    const made = (await as(org.member.key, 'POST', '/api_key/', { description: 'Zapier' })).json()
    expect(await only(org, 'api_key_created')).toMatchObject({
      user_id: org.member.id,
      object_type: 'api_key',
      object_id: made.id,
      client_address: FROM,
      details: { description: 'Zapier' },
    })
    expect((await as(org.admin.key, 'DELETE', `/api_key/${String(made.id)}/`)).statusCode).toBe(200)
    expect(await only(org, 'api_key_revoked')).toMatchObject({
      user_id: org.admin.id,
      actor_name: 'Ada Admin',
      object_id: made.id,
      details: { owner_user_id: org.member.id },
    })

    const membership = `/membership/${org.member.membershipId}/`
    expect((await as(org.admin.key, 'PUT', membership, { role_id: 'admin' })).statusCode).toBe(200)
    expect(await only(org, 'role_changed')).toMatchObject({
      user_id: org.admin.id,
      object_type: 'membership',
      object_id: org.member.membershipId,
      client_address: FROM,
      details: { member_user_id: org.member.id, from: 'user', to: 'admin' },
    })
    // Asking for the role it has changes nothing, and records nothing.
    await as(org.admin.key, 'PUT', membership, { role_id: 'admin' })
    expect(await entries(org, { action: 'role_changed' })).toHaveLength(1)
    expect((await as(org.admin.key, 'POST', `${membership}deactivate/`)).statusCode).toBe(200)
    expect((await only(org, 'member_deactivated')).details).toMatchObject({ member_user_id: org.member.id })
    expect((await as(org.admin.key, 'POST', `${membership}reactivate/`)).statusCode).toBe(200)
    expect((await only(org, 'member_reactivated')).object_id).toBe(org.member.membershipId)
  })

  it('exports, imports, webhook changes, single sign-on changes and bulk deletes', async () => {
    const org = await ctx.createOrg('Audit data')
    const exported = (await as(org.member.key, 'POST', '/export/lead/', { format: 'csv', type: 'leads' })).json()
    expect(await only(org, 'export_created')).toMatchObject({
      user_id: org.member.id,
      object_type: 'export',
      object_id: exported.id,
      client_address: FROM,
      details: { object_type: 'lead', format: 'csv', type: 'leads' },
    })

    const uploaded = await ctx.app.inject({
      method: 'POST',
      url: '/api/v1/import/?filename=leads.csv',
      headers: { authorization: basicAuth(org.member.key), 'content-type': 'text/csv', 'x-forwarded-for': FROM },
      payload: Buffer.from('Company\nBluth Company\nSitwell\n'),
    })
    expect(uploaded.statusCode, uploaded.body).toBe(201)
    const importId = String(uploaded.json().id)
    expect(await only(org, 'import_created')).toMatchObject({
      object_type: 'import',
      object_id: importId,
      client_address: FROM,
      details: { filename: 'leads.csv', rows: 2 },
    })
    // A dry run changes no lead and is not recorded; a run and an undo are, by whoever asked for them.
    expect((await as(org.member.key, 'POST', `/import/${importId}/dry_run/`)).statusCode).toBe(200)
    await ctx.database.db.updateTable('data_import').set({ status: 'uploaded' }).where('id', '=', importId).execute()
    expect((await as(org.member.key, 'POST', `/import/${importId}/undo/`)).statusCode).toBe(400)
    expect(await entries(org, { action__in: 'import_run,import_undo' })).toEqual([])
    expect((await as(org.member.key, 'POST', `/import/${importId}/run/`)).statusCode).toBe(200)
    expect(await only(org, 'import_run')).toMatchObject({
      user_id: org.member.id,
      object_type: 'import',
      object_id: importId,
      client_address: FROM,
      details: { filename: 'leads.csv', rows: 2 },
    })
    // As if its job had run to the end (the job itself is import-job.test.ts's).
    await ctx.database.db.updateTable('data_import').set({ status: 'done' }).where('id', '=', importId).execute()
    expect((await as(org.admin.key, 'POST', `/import/${importId}/undo/`)).statusCode).toBe(200)
    expect(await only(org, 'import_undo')).toMatchObject({
      user_id: org.admin.id,
      object_id: importId,
      details: { filename: 'leads.csv', rows: 2 },
    })

    const url = 'https://hooks.example.com/audit'
    const hook = await as(org.admin.key, 'POST', '/webhook/', {
      url,
      events: [{ object_type: 'lead', action: 'created' }],
    })
    expect(hook.statusCode, hook.body).toBe(201)
    const id = String(hook.json().id)
    expect(await only(org, 'webhook_created')).toMatchObject({ object_id: id, details: { url, status: 'active' } })
    expect(JSON.stringify(await entries(org))).not.toContain(String(hook.json().signature_key))
    await as(org.admin.key, 'PUT', `/webhook/${id}/`, { status: 'paused' })
    expect((await only(org, 'webhook_updated')).details).toMatchObject({ status: 'paused', changed: ['status'] })
    await as(org.admin.key, 'DELETE', `/webhook/${id}/`)
    expect((await only(org, 'webhook_deleted')).object_id).toBe(id)

    const sso = await as(org.admin.key, 'PUT', '/auth/sso/', {
      enabled: true,
      required: false,
      issuer: idp.issuer,
      client_id: idp.clientId,
      client_secret: idp.clientSecret,
      domains: [`audit-${org.id.slice(-8).toLowerCase()}.test`],
    })
    expect(sso.statusCode, sso.body).toBe(200)
    const changed = await only(org, 'single_sign_on_changed')
    expect(changed).toMatchObject({ object_type: 'single_sign_on', client_address: FROM })
    expect(changed.details).toMatchObject({ enabled: true, client_id: idp.clientId, new_client_secret: true })
    expect(JSON.stringify(changed)).not.toContain(idp.clientSecret)

    const bulk = await as(org.admin.key, 'POST', '/bulk_action/delete/', { query: 'name:nothing' })
    expect(bulk.statusCode, bulk.body).toBe(200)
    expect(await only(org, 'bulk_delete')).toMatchObject({
      user_id: org.admin.id,
      object_id: bulk.json().id,
      details: { query: 'name:nothing', every_lead: false },
    })
    // A bulk edit is no deletion.
    expect(await entries(org, { action: 'bulk_delete' })).toHaveLength(1)
  })
})

describe('the audit log is read', () => {
  it('by admins alone, of their own organization, and never through /event/ or webhooks', async () => {
    const org = await ctx.createOrg('Audit readers')
    await as(org.member.key, 'POST', '/api_key/', { description: 'Mine' })
    for (const path of ['/audit_log/', '/audit_log/csv/']) {
      const refused = await call(ctx.app, org.member.key, 'GET', path)
      expect(refused.statusCode).toBe(403)
      expect(refused.json()).toEqual({ error: expect.any(String) })
      expect((await call(ctx.app, undefined, 'GET', path)).statusCode).toBe(401)
    }
    expect(await entries(ctx.other, { user_id: org.member.id })).toEqual([])
    const mine = await entries(org)
    expect(mine.map((e) => e.action)).toEqual(['api_key_created'])
    const events = (await call(ctx.app, org.admin.key, 'GET', '/event/')).json().data as { object_type: string }[]
    expect(events.map((e) => e.object_type)).not.toContain(AUDIT_OBJECT_TYPE)
    expect((await call(ctx.app, org.admin.key, 'GET', `/event/${String(mine[0]?.id)}/`)).statusCode).toBe(404)
    const deliveries = await ctx.database.db
      .selectFrom('outbox')
      .select('id')
      .where('event_id', '=', String(mine[0]?.id))
      .execute()
    expect(deliveries).toEqual([])
  })

  it('filtered by action, person, address and dates, and paged newest first', async () => {
    const org = await ctx.createOrg('Audit filters')
    const start = formatTimestamp(ctx.clock.now())
    await as(org.member.key, 'POST', '/api_key/', { description: 'one' })
    ctx.clock.advance(2 * 86_400_000)
    const middle = formatTimestamp(ctx.clock.now())
    await call(ctx.app, org.admin.key, 'POST', '/api_key/', {
      body: { description: 'two' },
      headers: { 'x-forwarded-for': '198.51.100.77' },
    })
    await as(org.admin.key, 'PUT', `/membership/${org.member.membershipId}/`, { role_id: 'admin' })

    expect((await entries(org)).map((e) => e.action)).toEqual(['role_changed', 'api_key_created', 'api_key_created'])
    expect((await entries(org, { action: 'api_key_created' })).map((e) => e.details.description)).toEqual([
      'two',
      'one',
    ])
    expect(await entries(org, { action__in: 'role_changed,api_key_created' })).toHaveLength(3)
    expect((await entries(org, { user_id: org.member.id })).map((e) => e.details.description)).toEqual(['one'])
    expect((await entries(org, { client_address: '198.51.100.77' })).map((e) => e.details.description)).toEqual(['two'])
    expect((await entries(org, { date_created__lt: middle })).map((e) => e.details.description)).toEqual(['one'])
    expect(await entries(org, { date_created__gte: middle })).toHaveLength(2)
    expect(await entries(org, { date_created__gte: start, date_created__lt: middle })).toHaveLength(1)

    const first = await call(ctx.app, org.admin.key, 'GET', '/audit_log/', { query: { _limit: '2' } })
    expect(first.json()).toMatchObject({ has_more: true, data: [{ action: 'role_changed' }, {}] })
    const second = await call(ctx.app, org.admin.key, 'GET', '/audit_log/', { query: { _limit: '2', _skip: '2' } })
    expect(second.json()).toMatchObject({ has_more: false, data: [{ details: { description: 'one' } }] })

    const bad = await call(ctx.app, org.admin.key, 'GET', '/audit_log/', { query: { action: 'sign_on' } })
    expect(bad.statusCode).toBe(400)
    expect(Object.keys(bad.json()['field-errors'])).toEqual(['action'])
    const limit = await call(ctx.app, org.admin.key, 'GET', '/audit_log/', { query: { _limit: '101' } })
    expect(limit.statusCode).toBe(400)
  })

  it('as CSV, filtered, with every cell a spreadsheet would run as a formula escaped', async () => {
    const org = await ctx.createOrg('Audit CSV')
    await call(ctx.app, org.admin.key, 'PUT', '/auth/profile/', { body: { first_name: '=HYPERLINK("x")' } })
    await as(org.admin.key, 'POST', '/api_key/', { description: '+1 formula' })
    await as(org.admin.key, 'PUT', `/membership/${org.member.membershipId}/`, { role_id: 'admin' })
    const res = await call(ctx.app, org.admin.key, 'GET', '/audit_log/csv/', { query: { action: 'api_key_created' } })
    expect(res.statusCode, res.body).toBe(200)
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8')
    expect(res.headers['content-disposition']).toContain('audit-log.csv')
    const table: string[][] = parse(res.body)
    const [header, ...rows] = table
    expect(header).toEqual([
      'date_created',
      'action',
      'user_id',
      'actor_name',
      'actor_email',
      'object_type',
      'object_id',
      'client_address',
      'details',
      'request_id',
    ])
    expect(rows).toHaveLength(1)
    const row = rows[0] ?? []
    expect(row.slice(1, 4)).toEqual(['api_key_created', org.admin.id, `'=HYPERLINK("x") Admin`])
    expect(row[7]).toBe(FROM)
    expect(JSON.parse(row[8] ?? '')).toEqual({ description: '+1 formula' })

    const all = await call(ctx.app, org.admin.key, 'GET', '/audit_log/csv/')
    const everything: string[][] = parse(all.body)
    expect(everything.map((r) => r[1])).toEqual(['action', 'role_changed', 'api_key_created'])
    expect((await call(ctx.app, org.admin.key, 'GET', '/audit_log/csv/', { query: { action: 'x' } })).statusCode).toBe(
      400,
    )
  })
})

describe('the audit log is kept', () => {
  it('for LEADLINE_AUDIT_RETENTION_DAYS, purged in batches, while the event log keeps its own time', async () => {
    const org = await ctx.createOrg('Audit retention')
    const db = ctx.database.db
    for (const description of ['old 1', 'old 2', 'old 3'])
      await as(org.member.key, 'POST', '/api_key/', { description })
    await as(org.member.key, 'POST', '/lead/', { name: 'Old lead' })
    ctx.clock.advance(40 * 86_400_000)
    await as(org.member.key, 'POST', '/api_key/', { description: 'recent' })
    // The event log's purge (30 days) leaves audit entries alone.
    await purgeOldEvents(db, ctx.clock, 30)
    expect(await entries(org)).toHaveLength(4)
    const left = await db.selectFrom('event').select('object_type').where('organization_id', '=', org.id).execute()
    expect(left.map((e) => e.object_type)).toEqual(Array(4).fill(AUDIT_OBJECT_TYPE))

    expect(await purgeOldAuditEntries(db, ctx.clock, 35, 2)).toBeGreaterThanOrEqual(3)
    expect((await entries(org)).map((e) => e.details.description)).toEqual(['recent'])
  })

  it('LEADLINE_AUDIT_RETENTION_DAYS is checked at start, 365 by default', async () => {
    const { loadConfig } = await import('../../platform/config.js')
    expect(loadConfig({}).auditRetentionDays).toBe(365)
    expect(loadConfig({ LEADLINE_AUDIT_RETENTION_DAYS: '7' }).auditRetentionDays).toBe(7)
    expect(() => loadConfig({ LEADLINE_AUDIT_RETENTION_DAYS: '0' })).toThrow(/LEADLINE_AUDIT_RETENTION_DAYS/)
    expect(() => loadConfig({ LEADLINE_AUDIT_RETENTION_DAYS: 'a year' })).toThrow(/positive integer/)
  })
})
