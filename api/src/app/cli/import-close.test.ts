import { spawn } from 'node:child_process'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { buildApp } from '../app.js'
import { loadConfig } from '../../platform/config.js'
import { provisionMember } from '../../crm/organizations/provision.js'
import { openDatabase, type DatabaseHandle } from '../../platform/data/database.js'
import { migrateToLatest } from '../../platform/data/migrate.js'
import { systemClock } from '../../platform/data/time.js'
import {
  cliPath,
  runCli,
  startApiProcess,
  stopApiProcesses,
  type ApiProcess,
} from '../../tooling/test-support/api-process.js'
import { apiCall } from '../../tooling/test-support/delivery-check.js'
import {
  call,
  createOrg,
  createTestDatabase,
  TEST_SECRET_KEY,
  type TestDatabase,
  type TestOrg,
} from '../../tooling/test-support/test-app.js'

// `leadline import close` against Leadline itself as the source: organization A, served by a real api process on one
// database, is copied by the CLI (a process of its own) into organization B of another database, twice.
vi.setConfig({ testTimeout: 120_000 })

type Json = Record<string, unknown>

interface Run {
  code: number | null
  stdout: string
  stderr: string
}

function runImport(args: string[], key: string): Promise<Run> {
  return runCli(['import', 'close', '--api-key-env', 'SOURCE_KEY', ...args], {
    SOURCE_KEY: key,
    LEADLINE_SECRET_KEY: TEST_SECRET_KEY,
    DATABASE_URL: undefined,
  })
}

let sourceDb: TestDatabase
let targetDb: TestDatabase
let sourceHandle: DatabaseHandle
let target: DatabaseHandle
let targetApp: FastifyInstance
let server: ApiProcess
let a: TestOrg
let b: TestOrg
/** A's plain user, who is also a member of B (by the same email); A's admin is not. */
let repInB: string

async function listAll(read: (path: string) => Promise<Json>, path: string): Promise<Json[]> {
  const out: Json[] = []
  for (let skip = 0; ; skip += 100) {
    const page = await read(`${path}${path.includes('?') ? '&' : '?'}_skip=${skip}&_limit=100`)
    const data = page.data as Json[]
    out.push(...data)
    if (page.has_more !== true) return out
  }
}
const readA = (path: string) => apiCall(server, a.admin.key, 'GET', path)
const readB = async (path: string) => {
  const response = await call(targetApp, b.admin.key, 'GET', path)
  expect(response.statusCode, response.body).toBe(200)
  return response.json<Json>()
}

beforeAll(async () => {
  sourceDb = await createTestDatabase()
  targetDb = await createTestDatabase()
  sourceHandle = openDatabase(sourceDb.url)
  await migrateToLatest(sourceHandle.db)
  a = await createOrg(sourceHandle, systemClock, 'Source Co')
  target = openDatabase(targetDb.url)
  await migrateToLatest(target.db)
  b = await createOrg(target, systemClock, 'Target Co')
  const rep = await sourceHandle.db
    .selectFrom('user')
    .select('email')
    .where('id', '=', a.member.id)
    .executeTakeFirstOrThrow()
  repInB = (await provisionMember(target.db, systemClock, { organizationId: b.id, email: rep.email, role: 'user' }))
    .user_id
  targetApp = await buildApp({
    database: target,
    config: loadConfig({ DATABASE_URL: targetDb.url, LEADLINE_SECRET_KEY: TEST_SECRET_KEY }),
    logger: false,
  })
  server = await startApiProcess(sourceDb.url)
  await seedSource()
}, 120_000)

afterAll(async () => {
  await stopApiProcesses([server])
  await targetApp.close()
  await target.close()
  await sourceHandle.close()
  await sourceDb.drop()
  await targetDb.drop()
})

/** Organization A's data, written through its api process: some by its admin, some by its rep. */
async function seedSource() {
  const admin = (method: string, path: string, body?: unknown) => apiCall(server, a.admin.key, method, path, body)
  const rep = (method: string, path: string, body?: unknown) => apiCall(server, a.member.key, method, path, body)
  await admin('POST', '/status/lead/', { label: 'Negotiating' })
  await admin('POST', '/pipeline/', {
    name: 'Renewals',
    statuses: [{ label: 'Up for renewal' }, { label: 'Renewed', type: 'won' }, { label: 'Churned', type: 'lost' }],
  })
  const industry = await admin('POST', '/custom_field/lead/', { name: 'Industry', type: 'text' })
  const tier = await admin('POST', '/custom_field/lead/', {
    name: 'Tier',
    type: 'choices',
    choices: ['Gold', 'Silver'],
  })
  const owner = await admin('POST', '/custom_field/lead/', { name: 'Account owner', type: 'user' })
  const role = await admin('POST', '/custom_field/contact/', { name: 'Role', type: 'text' })
  const seats = await admin('POST', '/custom_field/opportunity/', { name: 'Seats', type: 'number' })
  const bluth = await rep('POST', '/lead/', {
    name: 'Bluth Company',
    url: 'https://bluth.example.com',
    description: 'Frozen bananas',
    status: 'Negotiating',
    addresses: [{ label: 'business', address_1: '1 Harbor Rd', city: 'Newport Beach', state: 'CA', country: 'US' }],
    contacts: [
      {
        name: 'George Bluth',
        title: 'Founder',
        emails: [{ email: 'george@bluth.example.com', type: 'office' }],
        phones: [{ phone: '+14155550123', type: 'mobile' }],
        [`custom.${String(role.id)}`]: 'Decider',
      },
      { name: 'Lucille Bluth', urls: [{ url: 'https://lucille.example.com', type: 'url' }] },
    ],
    [`custom.${String(industry.id)}`]: 'Food',
    [`custom.${String(tier.id)}`]: 'Gold',
    [`custom.${String(owner.id)}`]: a.member.id,
  })
  const sitwell = await admin('POST', '/lead/', {
    name: 'Sitwell Enterprises',
    contacts: [{ name: 'Stan Sitwell', emails: [{ email: 'stan@sitwell.example.com', type: 'office' }] }],
    [`custom.${String(industry.id)}`]: 'Construction',
  })
  for (let i = 1; i <= 3; i += 1) await admin('POST', '/lead/', { name: `Filler ${i}` })
  const george = (bluth.contacts as Json[])[0] ?? {}
  await rep('POST', '/opportunity/', {
    lead_id: bluth.id,
    status: 'Renewed',
    value: 50_000,
    value_currency: 'USD',
    value_period: 'annual',
    confidence: 90,
    note: 'Big one',
    contact_id: george.id,
    user_id: a.member.id,
    [`custom.${String(seats.id)}`]: 12,
  })
  await admin('POST', '/opportunity/', { lead_id: sitwell.id, value: 1_000, note: 'Small one' })
  await rep('POST', '/task/', { lead_id: bluth.id, text: 'Call George back', date: '2026-12-01' })
  await admin('POST', '/task/', { lead_id: sitwell.id, text: 'Send the offer', is_complete: true })
  await rep('POST', '/activity/note/', { lead_id: bluth.id, note: 'Met at the banana stand', contact_id: george.id })
  await admin('POST', '/activity/note/', { lead_id: sitwell.id, note: 'Cold lead' })
  await rep('POST', '/activity/call/', {
    lead_id: bluth.id,
    contact_id: george.id,
    direction: 'outbound',
    duration: 120,
    note: 'Talked about renewals',
    phone: '+14155550123',
    activity_at: '2026-11-02T10:00:00+00:00',
  })
  await rep('POST', '/activity/email/', {
    lead_id: bluth.id,
    status: 'sent',
    sender: 'rep@source.example.com',
    to: ['george@bluth.example.com'],
    subject: 'Renewal',
    body_text: 'Shall we renew?',
  })
}

const byKey = <T extends Json>(rows: T[], key: (row: T) => string) =>
  [...rows].sort((x, y) => key(x).localeCompare(key(y)))

/** Everything the import copies, in a form both organizations can be compared in (names for ids, members mapped). */
async function snapshot(read: (path: string) => Promise<Json>, member: string) {
  const leads = await listAll(read, '/lead/')
  const leadName = new Map(leads.map((l) => [String(l.id), String(l.name)]))
  const contactName = new Map(
    leads.flatMap((l) => (l.contacts as Json[]).map((c) => [String(c.id), String(c.name)] as const)),
  )
  const user = (id: unknown) => (id === member ? 'rep' : id === null || id === undefined ? null : 'someone')
  const activities = async (type: string, pick: (row: Json) => Json) =>
    byKey((await listAll(read, `/activity/${type}/`)).map(pick), (row) => JSON.stringify(row))
  return {
    leadStatuses: (await listAll(read, '/status/lead/')).map((s) => s.label),
    pipelines: (await listAll(read, '/pipeline/')).map((p) => ({
      name: p.name,
      statuses: (p.statuses as Json[]).map((s) => ({ label: s.label, type: s.type })),
    })),
    leads: byKey(leads, (l) => String(l.name)).map((l) => {
      const custom = { ...(l.custom as Json) }
      if ('Account owner' in custom) custom['Account owner'] = user(custom['Account owner'])
      return {
        name: l.name,
        url: l.url,
        description: l.description,
        status_label: l.status_label,
        addresses: l.addresses,
        custom,
        contacts: byKey(l.contacts as Json[], (c) => String(c.name)).map((c) => ({
          name: c.name,
          title: c.title,
          emails: c.emails,
          phones: c.phones,
          urls: c.urls,
          custom: c.custom,
        })),
      }
    }),
    opportunities: byKey(await listAll(read, '/opportunity/'), (o) => String(o.note)).map((o) => ({
      lead: leadName.get(String(o.lead_id)),
      status_label: o.status_label,
      status_type: o.status_type,
      value: o.value,
      value_currency: o.value_currency,
      value_period: o.value_period,
      confidence: o.confidence,
      note: o.note,
      contact: contactName.get(String(o.contact_id)) ?? null,
      user: user(o.user_id),
      custom: o.custom,
    })),
    tasks: byKey(await listAll(read, '/task/?_type=all'), (t) => String(t.text)).map((t) => ({
      lead: leadName.get(String(t.lead_id)),
      text: t.text,
      date: t.date,
      is_complete: t.is_complete,
      assigned_to: user(t.assigned_to),
    })),
    notes: await activities('note', (n) => ({
      lead: leadName.get(String(n.lead_id)),
      note: n.note,
      contact: contactName.get(String(n.contact_id)) ?? null,
      user: user(n.user_id),
    })),
    calls: await activities('call', (c) => ({
      lead: leadName.get(String(c.lead_id)),
      direction: c.direction,
      duration: c.duration,
      note: c.note,
      phone: c.phone,
      activity_at: c.activity_at,
      contact: contactName.get(String(c.contact_id)) ?? null,
      user: user(c.user_id),
    })),
    emails: await activities('email', (e) => ({
      lead: leadName.get(String(e.lead_id)),
      status: e.status,
      subject: e.subject,
      body_text: e.body_text,
      sender: e.sender,
      to: e.to,
      user: user(e.user_id),
    })),
  }
}

async function targetRowCounts() {
  const counts: Record<string, number> = {}
  for (const table of ['lead', 'contact', 'opportunity', 'task', 'activity', 'custom_field', 'lead_status'] as const) {
    const row = await target.db
      .selectFrom(table)
      .select((eb) => eb.fn.countAll().as('n'))
      .where('organization_id', '=', b.id)
      .executeTakeFirstOrThrow()
    counts[table] = Number(row.n)
  }
  return counts
}

describe('leadline import close, from a Leadline organization served by an api process', () => {
  let first: Json

  it('copies everything into another organization, reporting progress and what it did', async () => {
    const run = await runImport(
      ['--base-url', `${server.url}/api/v1`, '--org', b.id, '--db', targetDb.url, '--json'],
      a.admin.key,
    )
    expect(run, run.stderr).toMatchObject({ code: 0 })
    first = JSON.parse(run.stdout) as Json
    expect(run.stderr).toMatch(/^users: 1 matched to members by email, 1 not found here$/m)
    expect(run.stderr).toMatch(/^leads: 5 read; 5 created; contacts: 3 created$/m)
    expect(first.problems).toEqual([])
    expect(first.users).toEqual({ matched: 1, unmatched: [expect.stringMatching(/^admin-/)] })
    const kinds = first.kinds as Record<string, Json>
    expect(kinds.lead).toEqual({ created: 5, updated: 0, unchanged: 0, failed: 0, not_copied: 0 })
    expect(kinds.opportunity).toMatchObject({ created: 2 })
    expect(kinds.note).toMatchObject({ created: 2 })
    expect(kinds.call).toMatchObject({ created: 1 })
    expect(kinds.email).toMatchObject({ created: 1 })
    expect(kinds.lead_custom_field).toMatchObject({ created: 3 })
    expect(kinds.pipeline).toMatchObject({ created: 1 })

    const source = await snapshot(readA, a.member.id)
    const copied = await snapshot(readB, repInB)
    expect(source.leads.length).toBe(5)
    expect(copied.leads).toEqual(source.leads)
    expect(copied.opportunities).toEqual(source.opportunities)
    expect(copied.tasks).toEqual(source.tasks)
    expect(copied.notes).toEqual(source.notes)
    expect(copied.calls).toEqual(source.calls)
    expect(copied.emails).toEqual(source.emails)
    expect(copied.leadStatuses).toEqual(expect.arrayContaining(source.leadStatuses))
    expect(copied.pipelines).toEqual(expect.arrayContaining(source.pipelines))
    // The rep's objects are the rep's in B too; the unmatched admin's have a user of B (its admin) or none.
    expect(copied.opportunities.map((o) => o.user)).toContain('rep')
    expect(copied.calls[0]?.user).toBe('rep')
  })

  it('writes as the API does: the copies are found by search and counted, with their events', async () => {
    const found = await readB(`/lead/?query=${encodeURIComponent('"Frozen bananas"')}`)
    expect(found.total_results).toBe(1)
    expect(await readB('/lead/?_limit=1')).toMatchObject({ total_results: 5 })
    const events = await readB('/event/?object_type=lead&action=created&_limit=50')
    expect(events.data).toHaveLength(5)
    // The keys the import wrote with are revoked when it ends.
    const open = await target.db
      .selectFrom('api_key')
      .select('id')
      .where('organization_id', '=', b.id)
      .where('description', '=', 'leadline import close (revoked when it ends)')
      .where('date_revoked', 'is', null)
      .execute()
    expect(open).toEqual([])
  })

  it('run again, doubles nothing: leads and contacts are updated, the rest is already there', async () => {
    const before = await targetRowCounts()
    const run = await runImport(
      ['--base-url', `${server.url}/api/v1`, '--org', b.id, '--db', targetDb.url, '--json'],
      a.admin.key,
    )
    expect(run, run.stderr).toMatchObject({ code: 0 })
    const report = JSON.parse(run.stdout) as Json
    const kinds = report.kinds as Record<string, Json>
    expect(kinds.lead).toEqual({ created: 0, updated: 5, unchanged: 0, failed: 0, not_copied: 0 })
    expect(kinds.contact).toEqual({ created: 0, updated: 3, unchanged: 0, failed: 0, not_copied: 0 })
    for (const kind of ['opportunity', 'task', 'note', 'call', 'email'] as const) {
      expect(kinds[kind]).toMatchObject({ created: 0, unchanged: (first.kinds as Record<string, Json>)[kind]?.created })
    }
    expect(kinds.pipeline).toMatchObject({ created: 0, unchanged: 2 })
    expect(kinds.lead_custom_field).toMatchObject({ created: 0, unchanged: 3 })
    const after = await targetRowCounts()
    // Updating a lead logs no activity when nothing changed; nothing else is added either.
    expect(after).toEqual(before)
    expect((await snapshot(readB, repInB)).leads).toEqual((await snapshot(readA, a.member.id)).leads)
  })

  it('a key the source refuses stops at once with a clear message and exit code 1, copying nothing', async () => {
    const before = await targetRowCounts()
    const run = await runImport(
      ['--base-url', `${server.url}/api/v1`, '--org', b.id, '--db', targetDb.url],
      'key_nope.nope',
    )
    expect(run.code).toBe(1)
    expect(run.stderr).toContain('leadline import close: the source refused the API key (401')
    expect(run.stdout).toBe('')
    expect(await targetRowCounts()).toEqual(before)
  })

  it('refuses a missing key variable and a bad base URL as usage errors, before touching anything', async () => {
    const env = await new Promise<Run>((resolve, reject) => {
      const child = spawn(
        process.execPath,
        [cliPath, 'import', 'close', '--api-key-env', 'NO_SUCH_VARIABLE', '--org', b.id, '--db', targetDb.url],
        { env: { ...process.env, NO_SUCH_VARIABLE: '' } },
      )
      let stderr = ''
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
      child.on('error', reject)
      child.on('close', (code) => {
        resolve({ code, stdout: '', stderr })
      })
    })
    expect(env.code).toBe(2)
    expect(env.stderr).toContain('--api-key-env NO_SUCH_VARIABLE: that environment variable is not set')
    const url = await runImport(['--base-url', 'ftp://example.com', '--org', b.id, '--db', targetDb.url], 'k')
    expect(url.code).toBe(2)
    expect(url.stderr).toContain('is not an http or https URL')
  })
})

/** A small Close look-alike: `answer` gives each request's status, headers and body; every request is kept. */
async function fakeSource(
  answer: (path: string) => { status?: number; headers?: Record<string, string>; body: unknown },
) {
  const seen: { path: string; at: number; authorization: string | undefined }[] = []
  const server = createServer((request, response) => {
    const path = request.url ?? ''
    seen.push({ path, at: Date.now(), authorization: request.headers.authorization })
    const { status = 200, headers = {}, body } = answer(path)
    response.writeHead(status, { 'content-type': 'application/json', ...headers })
    response.end(typeof body === 'string' ? body : JSON.stringify(body))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    seen,
    url: `http://127.0.0.1:${port}/api/v1`,
    close: () => new Promise((resolve) => server.close(resolve)),
  }
}

const EMPTY = { has_more: false, data: [] }

describe('leadline import close against a source that limits its rate', () => {
  let fake: Awaited<ReturnType<typeof fakeSource>>

  beforeAll(async () => {
    let limited = false
    let failed = false
    fake = await fakeSource((path) => {
      if (path.startsWith('/api/v1/user/') && !limited) {
        limited = true
        return {
          status: 429,
          headers: { 'retry-after': '1' },
          body: { error: { message: 'API call count exceeded', rate_reset: 1 } },
        }
      }
      if (path.startsWith('/api/v1/status/lead/') && !failed) {
        failed = true
        return { status: 503, body: { error: 'Service unavailable' } }
      }
      return { body: EMPTY }
    })
  })

  afterAll(async () => {
    await fake.close()
  })

  it('waits as a 429 asks (Retry-After), retries a 5xx, and finishes', async () => {
    const run = await runImport(['--base-url', `${fake.url}/`, '--org', b.id, '--db', targetDb.url], 'close-key')
    expect(run, run.stderr).toMatchObject({ code: 0 })
    expect(run.stderr).toContain('rate limited by the source; waiting 1 s as it asks')
    expect(run.stderr).toMatch(/GET \/status\/lead\/ answered 503; retrying/)
    expect(run.stdout).toContain('Everything was copied.')
    const users = fake.seen.filter((s) => s.path.startsWith('/api/v1/user/'))
    expect(users).toHaveLength(2)
    expect((users[1]?.at ?? 0) - (users[0]?.at ?? 0)).toBeGreaterThanOrEqual(1000)
    expect(users[0]?.path).toBe('/api/v1/user/?_skip=0&_limit=100')
    // HTTP Basic, the key as the user name and no password, as Close takes keys.
    expect(users[0]?.authorization).toBe(`Basic ${Buffer.from('close-key:').toString('base64')}`)
    expect(fake.seen.filter((s) => s.path.startsWith('/api/v1/status/lead/'))).toHaveLength(2)
  })
})

describe('leadline import close with what Leadline cannot hold', () => {
  let fake: Awaited<ReturnType<typeof fakeSource>>
  const lead = (i: number) => ({ id: `lead_close${i}`, name: `Paged lead ${i}`, contacts: [], addresses: [] })

  beforeAll(async () => {
    fake = await fakeSource((path) => {
      const url = new URL(path, 'http://source')
      const skip = Number(url.searchParams.get('_skip'))
      if (url.pathname === '/api/v1/lead/') {
        // 250 leads over three pages of the importer's 100.
        const all = Array.from({ length: 250 }, (_, i) => lead(i))
        return { body: { has_more: skip + 100 < all.length, data: all.slice(skip, skip + 100) } }
      }
      if (url.pathname === '/api/v1/task/') {
        return {
          body: {
            has_more: false,
            data: [
              { id: 'task_close1', _type: 'lead', lead_id: 'lead_close1', text: 'Follow up', date: '2026-12-02' },
              { id: 'task_close2', _type: 'email_followup', lead_id: 'lead_close1', text: 'Reply?' },
            ],
          },
        }
      }
      if (url.pathname === '/api/v1/activity/email/') {
        const email = { lead_id: 'lead_close2', subject: 'Later', body_text: 'x', to: ['a@example.com'] }
        return {
          body: {
            has_more: false,
            data: [
              { ...email, id: 'acti_close1', status: 'scheduled' },
              { ...email, id: 'acti_close2', status: 'sent', sender: 'me@example.com', attachments: [{ url: 'x' }] },
            ],
          },
        }
      }
      if (url.pathname === '/api/v1/activity/note/') {
        return { body: { has_more: false, data: [{ id: 'acti_close3', lead_id: 'lead_gone', note: 'Orphan' }] } }
      }
      return { body: EMPTY }
    })
  })

  afterAll(async () => {
    await fake.close()
  })

  it('pages through every lead, copies what it can, reports the rest and exits 1', async () => {
    const run = await runImport(['--base-url', fake.url, '--org', b.id, '--db', targetDb.url], 'close-key')
    expect(run.code, run.stderr).toBe(1)
    const leadPages = fake.seen.filter((s) => s.path.startsWith('/api/v1/lead/')).map((s) => s.path)
    expect(leadPages).toEqual([
      '/api/v1/lead/?_skip=0&_limit=100',
      '/api/v1/lead/?_skip=100&_limit=100',
      '/api/v1/lead/?_skip=200&_limit=100',
    ])
    // A line every 200 leads, and one when they are all read.
    expect(run.stderr).toMatch(/^leads: 200 read; 200 created$/m)
    expect(run.stderr).toMatch(/^leads: 250 read; 250 created; contacts: 0 created$/m)
    expect(run.stdout).toMatch(/^ {2}task +1 +0 +0 +0 +1$/m)
    expect(run.stdout).toMatch(/^ {2}email +1 +0 +0 +0 +1$/m)
    expect(run.stdout).toContain('Not brought (4):')
    expect(run.stdout).toContain('task task_close2: a task of type email_followup')
    expect(run.stdout).toContain('email acti_close1: an email in status "scheduled"')
    expect(run.stdout).toContain('email acti_close2: its attachments were not copied')
    expect(run.stdout).toContain('note acti_close3: its lead lead_gone was not copied')
    const paged = await readB(`/lead/?query=${encodeURIComponent('"Paged lead"')}&_limit=1`)
    expect(paged.total_results).toBe(250)
  })
})
