import type { LightMyRequestResponse } from 'fastify'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { dataSnapshot, snapshotChanges } from '../test-support/data-snapshot.js'
import { createEveryObject, made, markerOf, type EveryObject } from '../test-support/every-object.js'
import {
  bodyFields,
  collectionOf,
  documentedOperations,
  fillPath,
  nonNull,
  withField,
  type Operation,
} from '../test-support/openapi-walk.js'
import { bodyHints, referenceKind, validRequest } from '../test-support/request-refs.js'
import { basicAuth, createTestContext } from '../test-support/test-app.js'
import { provisionMember } from '../../crm/organizations/provision.js'
import { createExportWorker } from '../../integrations/exports/export-worker.js'

// The authorization matrix (decision 0041): every documented route, generated from the API's OpenAPI document, with
// another organization's objects in its path, body and filters, as a member on an admin's routes, and as a member
// acting for a colleague. A refused request answers 404 (403 for a role), or a 400 naming the field, and stores
// nothing; an answer never shows another organization's data.

/** Routes the generator cannot cover, with why and where they are checked instead. */
const NOT_COVERABLE: Record<string, string> = {
  'GET /event/stream/': 'a stream that stays open; its organization scope and who may open it: event-stream.test.ts',
  'POST /inbound/sms/':
    'authenticated by a signature with the organization’s inbound secret, not an API key: inbound-routes tests',
  'POST /inbound/call/':
    'authenticated by a signature with the organization’s inbound secret, not an API key: inbound-routes tests',
  'POST /auth/sign_in/':
    'authenticated by a password, not an API key; it signs into the person’s own organizations only: session-routes tests',
  'POST /auth/invitation/lookup/':
    'authenticated by the emailed link’s token, not an API key; it shows that invitation only: invitation-routes tests',
  'POST /auth/invitation/accept/':
    'authenticated by the emailed link’s token, not an API key; it joins that invitation’s organization only: invitation-routes tests',
  'POST /auth/password_reset/':
    'public, and answers the same for any address; what it sends goes to the address only: password-reset-routes tests',
  'POST /auth/password_reset/complete/':
    'authenticated by the emailed link’s token, not an API key; it sets that person’s password only: password-reset-routes tests',
  'GET /auth/sso/available/': 'public: answers from an email’s domain alone, nothing of any organization’s data',
  'POST /auth/sso/start/': 'public: begins a sign-in at the provider of an email’s domain; single-sign-on-routes tests',
  'POST /auth/sso/finish/':
    'authenticated by the provider’s verified email, not an API key; it signs into the organization the sign-in began with: single-sign-on-routes tests',
  'GET /role/{id}/':
    'its id is a fixed role (`admin`, `user`), the same in every organization, not an object of one: close-endpoints tests',
  'GET /custom_field/shared/{id}/':
    'no organization has a shared custom field: every id is a 404 whoever asks; close-endpoints tests',
}

/** Routes only an admin may use (ARCHITECTURE.md §8, and every route whose handler calls `requireAdmin`). */
const WRITES = ['POST', 'PUT', 'PATCH', 'DELETE']
const ADMIN_ONLY: { prefix: string; suffix?: string; methods: string[] }[] = [
  { prefix: '/status/', methods: WRITES },
  { prefix: '/custom_field/', methods: WRITES },
  { prefix: '/custom_field/', suffix: '/usage/', methods: ['GET'] },
  { prefix: '/custom_field_schema/', methods: WRITES },
  { prefix: '/pipeline/', methods: WRITES },
  { prefix: '/organization/', methods: WRITES },
  { prefix: '/organization/{id}/environment/', methods: ['GET'] },
  { prefix: '/phone_number/', methods: WRITES },
  { prefix: '/outcome/', methods: WRITES },
  { prefix: '/webhook/', methods: ['GET', ...WRITES] },
  { prefix: '/inbound/secret/', methods: ['GET', ...WRITES] },
  { prefix: '/membership/', methods: ['GET', ...WRITES] },
  { prefix: '/auth/policy/', methods: ['GET', ...WRITES] },
  { prefix: '/invitation/', methods: ['GET', ...WRITES] },
  { prefix: '/auth/sso/', methods: ['GET', 'PUT'] },
  { prefix: '/audit_log/', methods: ['GET'] },
]

function isAdminOnly(op: Operation): boolean {
  return ADMIN_ONLY.some(
    (rule) =>
      op.path.startsWith(rule.prefix) &&
      (rule.suffix === undefined || op.path.endsWith(rule.suffix)) &&
      rule.methods.includes(op.method),
  )
}

/**
 * Every field that names a user (or a user's own number or address), and whether naming a colleague there is
 * acting as them (refused to a member) or handing them something (allowed). A new such field fails the suite
 * until it is listed here. Query-string filters only read, and are allowed to name a colleague.
 */
const USER_FIELDS: Record<string, { acts: boolean; body?: (o: EveryObject) => Record<string, unknown>; why: string }> =
  {
    'POST /opportunity/ user_id': { acts: false, why: 'the owner: a rep may hand an opportunity to a colleague' },
    'PUT /opportunity/{id}/ user_id': { acts: false, why: 'the owner: a rep may hand an opportunity to a colleague' },
    'POST /task/ assigned_to': { acts: false, why: 'a rep may give a colleague a task' },
    'PUT /task/{id}/ assigned_to': { acts: false, why: 'a rep may give a colleague a task' },
    'POST /activity/call/ user_id': {
      acts: false,
      why: 'Close clients log a call made elsewhere in a colleague’s name (log_call.json); logging sends nothing',
    },
    'POST /activity/call/ created_by': {
      acts: false,
      why: 'Close clients log a call made elsewhere in a colleague’s name (log_call.json); logging sends nothing',
    },
    'POST /activity/call/ local_phone': { acts: false, why: 'the number the call was on: logging it sends nothing' },
    'POST /activity/email/ user_id': {
      acts: true,
      body: (o) => ({ status: 'outbox', sender: o.colleague.email_address }),
      why: 'sends through the colleague’s account',
    },
    'POST /activity/email/ sender': {
      acts: true,
      body: () => ({ status: 'outbox' }),
      why: 'sends as the colleague’s address',
    },
    'PUT /activity/email/{id}/ sender': {
      acts: true,
      body: () => ({ status: 'outbox' }),
      why: 'sends as the colleague’s address',
    },
    'POST /activity/sms/ local_phone': {
      acts: true,
      body: () => ({ status: 'outbox' }),
      why: 'sends from the colleague’s own number',
    },
    'PUT /activity/sms/{id}/ local_phone': {
      acts: true,
      body: () => ({ status: 'outbox' }),
      why: 'sends from the colleague’s own number',
    },
    'POST /email_account/ user_id': { acts: true, why: 'a colleague’s account is theirs to add (or an admin’s)' },
    'PUT /email_account/{id}/ user_id': { acts: true, why: 'gives the member’s account to a colleague' },
    'POST /export/opportunity/ params.user_id': {
      acts: false,
      why: 'a filter: exports the colleague’s opportunities, which the member may list anyway',
    },
    'POST /export/opportunity/ params.user_id__in': {
      acts: false,
      why: 'a filter: exports the colleague’s opportunities, which the member may list anyway',
    },
  }

/** A colleague's object a member must not act on, by route: which, and the body that would act. */
const COLLEAGUE_OBJECTS: Record<string, { object: string; body: (o: EveryObject) => Record<string, unknown> }> = {
  'PUT /activity/email/{id}/': {
    object: 'email',
    body: (o) => ({ status: 'outbox', sender: o.colleague.email_address }),
  },
  'PUT /activity/sms/{id}/': { object: 'sms', body: () => ({ status: 'outbox' }) },
  'DELETE /email_account/{id}/': { object: 'email_account', body: () => ({}) },
  'PUT /email_account/{id}/': { object: 'email_account', body: () => ({}) },
  'GET /email_account/{id}/': { object: 'email_account', body: () => ({}) },
  'POST /email_account/{id}/send_test/': { object: 'email_account', body: () => ({}) },
  // A member sees their own exports only; an admin's is not theirs to read or download.
  'GET /export/{id}/': { object: 'export', body: () => ({}) },
  'GET /export/lead/{id}/': { object: 'export', body: () => ({}) },
  'GET /export/{id}/download/': { object: 'export', body: () => ({}) },
  // A member sees their own imports only; an admin's is not theirs to read, change or delete.
  'GET /import/{id}/': { object: 'import', body: () => ({}) },
  'PUT /import/{id}/': { object: 'import', body: () => ({ duplicate_rule: { match: 'name', action: 'update' } }) },
  'DELETE /import/{id}/': { object: 'import', body: () => ({}) },
  'POST /import/{id}/dry_run/': { object: 'import', body: () => ({}) },
  'POST /import/{id}/run/': { object: 'import', body: () => ({}) },
  'POST /import/{id}/undo/': { object: 'import', body: () => ({}) },
  'GET /import/{id}/failed_rows/': { object: 'import', body: () => ({}) },
  // An unshared Smart View is its user's alone: to a colleague it does not exist.
  'GET /saved_search/{id}/': { object: 'saved_search', body: () => ({}) },
  'PUT /saved_search/{id}/': { object: 'saved_search', body: () => ({ name: 'taken over', is_shared: true }) },
  'DELETE /saved_search/{id}/': { object: 'saved_search', body: () => ({}) },
  // A member sees their own bulk actions only; an admin's is not theirs to read, pause or undo.
  'GET /bulk_action/edit/{id}/': { object: 'bulk_edit', body: () => ({}) },
  'PUT /bulk_action/edit/{id}/': { object: 'bulk_edit', body: () => ({ status: 'paused' }) },
  'POST /bulk_action/edit/{id}/undo/': { object: 'bulk_edit', body: () => ({}) },
}

/** Who sends the suite's requests: a member, as most users are, or an admin where only an admin may. */
function actor(op: Operation): string {
  return isAdminOnly(op) ? ctx.org.admin.key : ctx.org.member.key
}

/** Routes whose requests use up the object in their path (a draft sent): each request names one made for it. */
const FRESH_OBJECTS: Record<string, () => Promise<string>> = {
  'DELETE /api_key/{id}/': async () => (await made(ctx.app, ctx.org.member.key, 'POST', '/api_key/', {})).id,
  // Deactivating uses its member up: each request deactivates one made for it.
  'POST /membership/{id}/deactivate/': freshMembership,
  'POST /membership/{id}/reactivate/': freshMembership,
  // Revoking uses its invitation up, and a resend waits a minute after the last: each request names one made for it.
  'DELETE /invitation/{id}/': freshInvitation,
  'POST /invitation/{id}/resend/': freshInvitation,
  'DELETE /auth/session/{id}/': async () =>
    String((await made(ctx.app, ctx.org.member.key, 'POST', '/auth/session/', {})).api_key_id),
  'PUT /activity/email/{id}/': async () =>
    madeId('/activity/email/', {
      lead_id: own.byReference.lead,
      status: 'draft',
      subject: 'Fresh',
      body_text: 'Fresh',
      to: [own.contactAddress],
    }),
  'PUT /activity/sms/{id}/': async () =>
    madeId('/activity/sms/', {
      lead_id: own.byReference.lead,
      status: 'draft',
      text: 'Fresh',
      local_phone: own.byReference.phone,
      remote_phone: own.contactPhone,
    }),
}

async function freshMembership(): Promise<string> {
  const member = await provisionMember(ctx.database.db, ctx.clock, {
    organizationId: ctx.org.id,
    email: `fresh-${String(Date.now())}-${String(Math.random()).slice(2)}@example.com`,
    role: 'user',
  })
  return member.membership_id
}

async function freshInvitation(): Promise<string> {
  const email = `fresh-${String(Date.now())}-${String(Math.random()).slice(2)}@example.com`
  const id = (await made(ctx.app, ctx.org.admin.key, 'POST', '/invitation/', { email })).id
  // Sent over a minute ago, so that it may be sent again.
  await ctx.database.db
    .updateTable('invitation')
    .set({ date_last_sent: '2000-01-01T00:00:00.000000+00:00' })
    .where('id', '=', id)
    .execute()
  return id
}

async function madeId(path: string, body: unknown): Promise<string> {
  return (await made(ctx.app, ctx.org.member.key, 'POST', path, body)).id
}

/** Fields that name something only when a message is sent: the suite sends the message. */
const WHEN_SENT: Record<string, Record<string, unknown>> = {
  'POST /activity/email/ sender': { status: 'outbox' },
  'PUT /activity/email/{id}/ sender': { status: 'outbox' },
  'POST /activity/sms/ local_phone': { status: 'outbox' },
  'PUT /activity/sms/{id}/ local_phone': { status: 'outbox' },
  // Leads named by id are the whole selection: no query beside them.
  'POST /bulk_action/edit/ lead_ids': { query: null },
  'POST /bulk_action/edit/ lead_ids.0': { query: null },
  'POST /bulk_action/delete/ lead_ids': { query: null },
  'POST /bulk_action/delete/ lead_ids.0': { query: null },
  // A custom field is named by an edit of one.
  'POST /bulk_action/edit/ custom_field_id': { type: 'clear_custom_field' },
}

/** Routes whose control request uses up a lead: each of its requests names leads made for it. */
const FRESH_LEADS = new Set(['POST /lead/merge/'])

const USER_KINDS = new Set(['user', 'phone', 'email_address'])

const ctx = await createTestContext({ env: { LEADLINE_RATE_LIMIT: '1000000' } })
const operations = await documentedOperations(ctx.app)
let own: EveryObject
let foreign: EveryObject

beforeAll(async () => {
  own = await createEveryObject(ctx.app, ctx.org, 1)
  foreign = await createEveryObject(ctx.app, ctx.other, 2)
}, 120_000)
afterAll(async () => {
  await ctx.close()
})
// The matrix asks for many exports: each is made after its test, as a running worker makes them, so that none waits
// on the bound of an organization's exports under way.
const exportWorker = createExportWorker({
  db: ctx.database.db,
  dialect: ctx.database.dialect,
  reader: ctx.database.reader,
  clock: ctx.clock,
  appUrl: ctx.config.appUrl,
})
afterEach(async () => {
  await exportWorker.drain()
  // The bulk actions the suite's requests asked for are not run (they would change or delete the suite's own leads),
  // nor left to count against the organization's jobs under way: only every-object.ts's stay.
  const kept = [own, foreign].flatMap((o) => [...Object.values(o.byCollection), ...Object.values(o.colleague)])
  await ctx.database.db.deleteFrom('bulk_action').where('id', 'not in', kept).execute()
})

interface Sent {
  key: string
  path?: Record<string, string>
  query?: Record<string, string>
  body?: unknown
}

async function send(op: Operation, sent: Sent): Promise<LightMyRequestResponse> {
  const headers: Record<string, string> = { authorization: basicAuth(sent.key) }
  const withBody = op.body !== undefined && sent.body !== undefined
  if (withBody) headers['content-type'] = 'application/json'
  return ctx.app.inject({
    method: op.method as 'GET',
    url: `/api/v1${fillPath(op.path, sent.path ?? {})}`,
    headers,
    ...(sent.query === undefined ? {} : { query: sent.query }),
    ...(withBody ? { payload: JSON.stringify(sent.body) } : {}),
  })
}

/** What no answer to this organization may carry: the other organization's marker, or its ids but `except`. */
function leaks(res: LightMyRequestResponse, except?: string): string[] {
  const found: string[] = []
  if (res.body.includes(markerOf(foreign.org))) found.push('the other organization’s names')
  for (const id of foreign.allIds) if (id !== except && res.body.includes(id)) found.push(id)
  return found
}

async function freshLead(): Promise<string> {
  return madeId('/lead/', { name: 'Fresh' })
}

/** The organization's own ids for a route's path, and a smallest valid body naming its own objects. */
async function ownRequest(
  op: Operation,
): Promise<{ path: Record<string, string>; body: unknown; query?: Record<string, string> }> {
  const path: Record<string, string> = {}
  for (const p of op.parameters.filter((q) => q.in === 'path')) {
    const collection = collectionOf(op.path) ?? ''
    const fresh = FRESH_OBJECTS[op.key]
    const inner = own.byPathParam[p.name]
    if (inner !== undefined) path[p.name] = inner
    else path[p.name] = fresh === undefined ? (own.byCollection[collection] ?? '') : await fresh()
  }
  const valid = await validRequest(ctx.app, op, own)
  let body = valid.body
  if (FRESH_LEADS.has(op.key) && op.body !== undefined) {
    for (const field of bodyFields(op.body)) {
      if (referenceKind(op, field.name, field.schema) === 'lead') {
        body = withField(body, op.body, field.path, await freshLead(), bodyHints(op, own))
      }
    }
  }
  return { path, body, ...(valid.query === undefined ? {} : { query: valid.query }) }
}

/** Sends `sent`, and answers what was wrong: an answer not in `allowed`, data stored, the other's data shown. */
async function refused(
  op: Operation,
  sent: Sent,
  allowed: (res: LightMyRequestResponse) => boolean,
  except?: string,
  options: { ignoredField?: boolean } = {},
): Promise<string[]> {
  const before = await dataSnapshot(ctx.database.db)
  const res = await send(op, sent)
  const after = await dataSnapshot(ctx.database.db)
  const problems: string[] = []
  // A field the document says is ignored may be: the request succeeds, and the id it named is stored nowhere new.
  if (options.ignoredField === true && res.statusCode < 300 && except !== undefined) {
    if (occurrences(after, except) > occurrences(before, except)) problems.push(`stored ${except}`)
    for (const leak of leaks(res)) problems.push(`showed ${leak}`)
    return problems
  }
  if (!allowed(res)) problems.push(`answered ${res.statusCode}: ${res.body.slice(0, 300)}`)
  for (const change of snapshotChanges(before, after)) problems.push(`stored ${change}`)
  for (const leak of leaks(res, except)) problems.push(`showed ${leak}`)
  return problems
}

function occurrences(snapshot: Map<string, string>, text: string): number {
  let count = 0
  for (const rows of snapshot.values()) count += rows.split(text).length - 1
  return count
}

/** A 400 naming the field (as Close names some: `lead` for `lead_id`), or a part of it, or a field inside it. */
function fieldErrorOn(res: LightMyRequestResponse, field: string): boolean {
  if (res.statusCode !== 400) return false
  const errors = res.json<{ 'field-errors'?: Record<string, string> }>()['field-errors'] ?? {}
  const names = [field, field.replace(/_id(__in)?$/, '')]
  return Object.keys(errors).some((k) =>
    names.some((name) => k === name || k.startsWith(`${name}.`) || name.startsWith(`${k}.`)),
  )
}

/** A control request: the same with the organization's own objects must succeed, or the case proves nothing. */
async function control(op: Operation, sent: Sent): Promise<string[]> {
  const res = await send(op, sent)
  return res.statusCode < 300 ? [] : [`the same request naming its own objects answered ${res.statusCode}: ${res.body}`]
}

const covered = operations.filter((op) => NOT_COVERABLE[op.key] === undefined)

describe('the generator covers every documented route', () => {
  it('lists only documented routes as not coverable', () => {
    const documented = new Set(operations.map((op) => op.key))
    const stale = Object.keys(NOT_COVERABLE).filter((key) => !documented.has(key))
    expect(stale, `no longer documented: ${stale.join(', ')}`).toEqual([])
  })
  it.each(covered.filter((op) => op.parameters.some((p) => p.in === 'path')).map((op) => [op.key, op] as const))(
    '%s names a kind of object the suite has one of',
    (_key, op) => {
      expect(foreign.byCollection[collectionOf(op.path) ?? ''], 'add one to every-object.ts').toBeDefined()
    },
  )
})

describe('another organization’s object in the path: 404, nothing stored', () => {
  const cases = covered.filter((op) => op.parameters.some((p) => p.in === 'path'))
  it.each(cases.map((op) => [op.key, op] as const))('%s', async (_key, op) => {
    const { path, body, query } = await ownRequest(op)
    const foreignId = foreign.byCollection[collectionOf(op.path) ?? ''] ?? ''
    const theirs = Object.fromEntries(Object.keys(path).map((name) => [name, foreign.byPathParam[name] ?? foreignId]))
    const sent = { key: actor(op), path: theirs, body, ...(query === undefined ? {} : { query }) }
    const problems = await refused(op, sent, (r) => r.statusCode === 404, foreignId)
    expect(problems, problems.join('\n')).toEqual([])
    const read = { ...op, method: 'GET', path: `${collectionOf(op.path) ?? ''}{id}/` }
    const seen = await Promise.all(
      [ctx.other.admin.key, ctx.other.member.key].map((key) => send(read, { key, path: { id: foreignId } })),
    )
    expect(
      seen.map((r) => r.statusCode),
      'the object exists in its own organization',
    ).toContain(200)
  })
})

interface FieldCase {
  label: string
  op: Operation
  field: string
  kind: string
  where: 'body' | 'query'
  /** The document says the route ignores the field. */
  ignored: boolean
}

function fieldCases(): { cases: FieldCase[]; unknown: string[] } {
  const cases: FieldCase[] = []
  const unknown: string[] = []
  for (const op of covered) {
    const fields =
      op.body === undefined
        ? []
        : bodyFields(op.body).map((f) => ({ name: f.name, schema: f.schema, where: 'body' as const }))
    const query = op.parameters
      .filter((p) => p.in === 'query')
      .map((p) => ({ name: p.name, schema: p.schema, where: 'query' as const }))
    for (const f of [...fields, ...query]) {
      const kind = referenceKind(op, f.name, f.schema)
      if (kind === null) continue
      if (kind === undefined) unknown.push(`${op.key} ${f.where} ${f.name}`)
      else {
        const ignored = /\(ignored\)/.test(nonNull(f.schema).description ?? '')
        cases.push({ label: `${op.key} ${f.where} ${f.name}`, op, field: f.name, kind, where: f.where, ignored })
      }
    }
  }
  return { cases, unknown }
}

const { cases: referenceCases, unknown: unknownReferences } = fieldCases()

it('knows what every id-like field names', () => {
  expect(unknownReferences, `add to REFERENCES in request-refs.ts: ${unknownReferences.join(', ')}`).toEqual([])
})

async function withValue(c: FieldCase, value: string): Promise<Sent & { key: string }> {
  const { path, body, query } = await ownRequest(c.op)
  if (c.where === 'query') return { key: actor(c.op), path, body, query: { ...query, [c.field]: value } }
  const schema = c.op.body ?? {}
  const field = bodyFields(schema).find((f) => f.name === c.field)
  // A list of ids (`lead_ids`) takes the id as its one item.
  const listed = field !== undefined && nonNull(field.schema).type === 'array' ? [value] : value
  const sent = withField(body, schema, field?.path ?? [], listed, bodyHints(c.op, own))
  return {
    key: actor(c.op),
    path,
    body: { ...(sent as object), ...WHEN_SENT[`${c.op.key} ${c.field}`] },
    ...(query === undefined ? {} : { query }),
  }
}

describe('another organization’s object in a body field or filter: refused or unseen, nothing stored', () => {
  it.each(referenceCases.map((c) => [c.label, c] as const))('%s', async (_label, c) => {
    const theirs = foreign.byReference[c.kind] ?? ''
    const ownValue =
      FRESH_LEADS.has(c.op.key) && c.kind === 'lead' ? await freshLead() : (own.byReference[c.kind] ?? '')
    const sent = await withValue(c, theirs)
    const problems = await refused(
      c.op,
      sent,
      (r) =>
        r.statusCode === 404 ||
        // A role's refusal names no object: a member may name no user but themselves there.
        r.statusCode === 403 ||
        fieldErrorOn(r, c.field) ||
        // A filter may simply match nothing of this organization's.
        (c.where === 'query' && r.statusCode < 300),
      theirs,
      { ignoredField: c.ignored },
    )
    expect(problems, problems.join('\n')).toEqual([])
    const controlled = await control(c.op, await withValue(c, ownValue))
    expect(controlled, controlled.join('\n')).toEqual([])
  })
})

describe('a member on an admin’s route: 403, nothing stored', () => {
  const cases = covered.filter(isAdminOnly)
  it.each(cases.map((op) => [op.key, op] as const))('%s', async (_key, op) => {
    const { path, body, query } = await ownRequest(op)
    const sent = { key: ctx.org.member.key, path, body, ...(query === undefined ? {} : { query }) }
    const problems = await refused(op, sent, (r) => r.statusCode === 403)
    expect(problems, problems.join('\n')).toEqual([])
  })
})

describe('a member on every other route is not refused for the role', () => {
  const cases = covered.filter((op) => !isAdminOnly(op))
  it.each(cases.map((op) => [op.key, op] as const))('%s', async (_key, op) => {
    const { path, body, query } = await ownRequest(op)
    // Deleting the suite's own objects would leave later cases nothing to name: an id of no object will do.
    const target =
      op.method === 'DELETE'
        ? Object.fromEntries(Object.entries(path).map(([k, v]) => [k, `${v.slice(0, -6)}Absent`]))
        : path
    const res = await send(op, {
      key: ctx.org.member.key,
      path: target,
      body,
      ...(query === undefined ? {} : { query }),
    })
    expect(res.statusCode, res.body).not.toBe(403)
  })
})

const colleagueFieldCases = referenceCases.filter(
  (c) => USER_KINDS.has(c.kind) && c.where === 'body' && !isAdminOnly(c.op),
)

describe('a member naming a colleague: refused where it acts as them, nothing stored', () => {
  it('knows whether each field that names a user acts as them', () => {
    const unlisted = colleagueFieldCases
      .map((c) => `${c.op.key} ${c.field}`)
      .filter((k) => USER_FIELDS[k] === undefined)
    expect(unlisted, `add to USER_FIELDS with why: ${unlisted.join(', ')}`).toEqual([])
  })
  it.each(colleagueFieldCases.map((c) => [c.label, c] as const))('%s', async (_label, c) => {
    const rule = USER_FIELDS[`${c.op.key} ${c.field}`]
    if (rule === undefined) throw new Error('not listed in USER_FIELDS')
    const colleague = c.kind === 'user' ? ctx.org.admin.id : (own.colleague[c.kind] ?? '')
    const sent = await withValue(c, colleague)
    sent.key = ctx.org.member.key
    if (typeof sent.body === 'object' && sent.body !== null) sent.body = { ...sent.body, ...rule.body?.(own) }
    if (rule.acts) {
      const problems = await refused(
        c.op,
        sent,
        (r) => r.statusCode === 403 || r.statusCode === 404 || fieldErrorOn(r, c.field),
      )
      expect(problems, problems.join('\n')).toEqual([])
    } else {
      const res = await send(c.op, sent)
      expect(res.statusCode, `${rule.why}: ${res.body}`).toBeLessThan(300)
    }
  })
  it.each(Object.entries(COLLEAGUE_OBJECTS))('%s on the colleague’s own', async (key, rule) => {
    const op = operations.find((o) => o.key === key)
    expect(op, `${key} is no longer documented`).toBeDefined()
    if (op === undefined) return
    const { body } = await ownRequest(op)
    const problems = await refused(
      op,
      {
        key: ctx.org.member.key,
        path: { id: own.colleague[rule.object] ?? '' },
        ...(op.body === undefined ? {} : { body: { ...(body as object), ...rule.body(own) } }),
      },
      (r) => r.statusCode === 403 || r.statusCode === 404,
    )
    expect(problems, problems.join('\n')).toEqual([])
  })
})
