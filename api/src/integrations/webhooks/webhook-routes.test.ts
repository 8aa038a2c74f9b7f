import type { LookupAddress } from 'node:dns'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { pino } from 'pino'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { CreatedWebhookSubscription, WebhookSubscription } from '@leadline/shared/webhook-schema'
import { buildApp, REDACTED_PATHS } from '../../app/app.js'
import type { EventView } from '../events/event-routes.js'
import { newId } from '../../platform/security/ids.js'
import { call, createTestContext, type TestContext } from '../../tooling/test-support/test-app.js'
import { subscriptionMatcher } from './webhook-matching.js'

// /webhook/ over HTTP on a real database: admins subscribe https URLs to events of the log, with filters checked
// on the way in; nobody else sees or changes a subscription; the signature key is shown once.

let ctx: TestContext
/** The same API on the same database with LEADLINE_OUTBOUND_ALLOW_PRIVATE=1. */
let lenient: FastifyInstance

beforeAll(async () => {
  ctx = await createTestContext()
  lenient = await buildApp({
    database: ctx.database,
    config: { ...ctx.config, outboundAllowPrivate: true },
    clock: ctx.clock,
    logger: false,
  })
})

afterAll(async () => {
  await lenient.close()
  await ctx.close()
})

const URL_OK = 'https://hooks.example.com/leadline'
const leadCreated = { object_type: 'lead', action: 'created' }
const statusFilter = {
  type: 'and',
  filters: [
    { type: 'field_accessor', field: 'changed_fields', filter: { type: 'contains', value: 'status_label' } },
    {
      type: 'field_accessor',
      field: 'previous_data',
      filter: { type: 'field_accessor', field: 'status_label', filter: { type: 'equals', value: 'Demo' } },
    },
  ],
}

async function create(body: Record<string, unknown>, key = ctx.org.admin.key, app = ctx.app) {
  return call(app, key, 'POST', '/webhook/', { body })
}

async function created(body: Record<string, unknown> = {}, key = ctx.org.admin.key) {
  const res = await create({ url: URL_OK, events: [leadCreated], ...body }, key)
  expect(res.statusCode, res.body).toBe(201)
  return res.json<CreatedWebhookSubscription>()
}

/** The signature key as stored: sealed under the test key (decision 0040). */
async function storedKey(id: string): Promise<string> {
  const row = await ctx.database.db
    .selectFrom('webhook_subscription')
    .select('signature_key')
    .where('id', '=', id)
    .executeTakeFirstOrThrow()
  return row.signature_key
}

async function openedKey(id: string): Promise<string | undefined> {
  return ctx.config.secretBox?.open(await storedKey(id), `webhook_subscription:${id}`)
}

async function countSubscriptions(): Promise<number> {
  return (await ctx.database.db.selectFrom('webhook_subscription').select('id').execute()).length
}

function fieldErrors(res: LightMyRequestResponse): Record<string, string> {
  expect(res.statusCode, res.body).toBe(400)
  const body = res.json<{ errors: string[]; 'field-errors': Record<string, string> }>()
  expect(body.errors).toEqual([])
  return body['field-errors']
}

describe('POST /webhook/', () => {
  it('creates an active subscription and shows its signature key, once', async () => {
    const res = await create({
      url: URL_OK,
      events: [leadCreated, { object_type: 'opportunity', action: 'updated', extra_filter: statusFilter }],
    })
    expect(res.statusCode, res.body).toBe(201)
    const sub = res.json<CreatedWebhookSubscription>()
    expect(sub).toEqual({
      id: expect.stringMatching(/^whsub_[0-9A-Za-z]{22}$/),
      url: URL_OK,
      events: [
        { ...leadCreated, extra_filter: null },
        { object_type: 'opportunity', action: 'updated', extra_filter: statusFilter },
      ],
      verify_ssl: true,
      status: 'active',
      status_reason: null,
      organization_id: ctx.org.id,
      created_by: ctx.org.admin.id,
      updated_by: ctx.org.admin.id,
      date_created: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}\+00:00$/),
      date_updated: sub.date_created,
      signature_key: expect.stringMatching(/^[0-9a-f]{64}$/),
    })
    const again = await created()
    expect(again.signature_key).not.toBe(sub.signature_key)

    for (const path of [`/webhook/${sub.id}/`, '/webhook/']) {
      const read = await call(ctx.app, ctx.org.admin.key, 'GET', path)
      expect(read.statusCode).toBe(200)
      expect(read.body).not.toContain(sub.signature_key)
      expect(read.body).not.toContain('signature_key')
    }
    const one = await call(ctx.app, ctx.org.admin.key, 'GET', `/webhook/${sub.id}/`)
    const { signature_key: _key, ...shown } = sub
    expect(one.json()).toEqual(shown)
    // Stored sealed, never as shown.
    const stored = await storedKey(sub.id)
    expect(stored).toMatch(/^v1:/)
    expect(stored).not.toContain(sub.signature_key)
    expect(await openedKey(sub.id)).toBe(sub.signature_key)
  })

  it('takes verify_ssl, and ignores read-only and unknown fields', async () => {
    const sub = await created({
      verify_ssl: false,
      id: 'whsub_mine',
      organization_id: ctx.other.id,
      signature_key: 'ab'.repeat(32),
      status: 'paused',
      status_reason: 'mine',
      created_by: ctx.org.member.id,
      date_created: '2001-01-01T00:00:00.000000+00:00',
      colour: 'blue',
      events: [{ ...leadCreated, extra_filter: null, priority: 3 }],
    })
    expect(sub).toMatchObject({
      verify_ssl: false,
      organization_id: ctx.org.id,
      status: 'active',
      status_reason: null,
      created_by: ctx.org.admin.id,
      events: [{ ...leadCreated, extra_filter: null }],
    })
    expect(sub.id).not.toBe('whsub_mine')
    expect(sub.signature_key).not.toBe('ab'.repeat(32))
    expect(sub.date_created.startsWith('2001')).toBe(false)
    expect(sub).not.toHaveProperty('colour')
  })

  it('is for admins only', async () => {
    const res = await create({ url: URL_OK, events: [leadCreated] }, ctx.org.member.key)
    expect(res.statusCode).toBe(403)
    expect(res.json()).toEqual({ error: expect.stringContaining('admin') })
    const anonymous = await call(ctx.app, undefined, 'POST', '/webhook/', {
      body: { url: URL_OK, events: [leadCreated] },
    })
    expect(anonymous.statusCode).toBe(401)
  })

  it('requires url and a non-empty list of events', async () => {
    expect(fieldErrors(await create({ events: [leadCreated] }))).toEqual({ url: 'This field is required.' })
    expect(fieldErrors(await create({ url: URL_OK }))).toEqual({ events: 'This field is required.' })
    expect(fieldErrors(await create({ url: URL_OK, events: [] }))).toEqual({
      events: 'Ensure this list has at least 1 items.',
    })
    expect(fieldErrors(await create({ url: 7, events: [{ object_type: 'lead' }], verify_ssl: 'yes' }))).toEqual({
      url: 'Must be a string.',
      'events.0.action': 'This field is required.',
      verify_ssl: 'Must be true or false.',
    })
  })

  it.each([
    ['http://hooks.example.com/', 'Must be an https:// URL.'],
    ['ftp://hooks.example.com/', 'Must be an https:// URL.'],
    ['javascript:alert(1)', 'Must be an https:// URL.'],
    ['hooks.example.com/in', 'Enter a valid URL.'],
    ['https://', 'Enter a valid URL.'],
    ['https://user:secret@hooks.example.com/', 'Must not carry a user name or password.'],
    ['https://token@hooks.example.com/', 'Must not carry a user name or password.'],
    ['https://localhost/', 'Must not point to this machine.'],
    ['https://LOCALHOST.:8443/', 'Must not point to this machine.'],
    ['https://api.localhost/', 'Must not point to this machine.'],
    ['https://127.0.0.1/', 'Must not point to a loopback, private, link-local or reserved address.'],
    ['https://0x7f.1/', 'Must not point to a loopback, private, link-local or reserved address.'],
    ['https://2130706433/', 'Must not point to a loopback, private, link-local or reserved address.'],
    ['https://10.1.2.3/', 'Must not point to a loopback, private, link-local or reserved address.'],
    ['https://192.168.0.10:8443/in', 'Must not point to a loopback, private, link-local or reserved address.'],
    [
      'https://169.254.169.254/latest/meta-data/',
      'Must not point to a loopback, private, link-local or reserved address.',
    ],
    ['https://0.0.0.0/', 'Must not point to a loopback, private, link-local or reserved address.'],
    ['https://[::1]/', 'Must not point to a loopback, private, link-local or reserved address.'],
    ['https://[::ffff:127.0.0.1]/', 'Must not point to a loopback, private, link-local or reserved address.'],
    ['https://[fd00::1]/', 'Must not point to a loopback, private, link-local or reserved address.'],
    ['https://[fe80::1]/', 'Must not point to a loopback, private, link-local or reserved address.'],
  ])('refuses the URL %s', async (url, message) => {
    expect(fieldErrors(await create({ url, events: [leadCreated] }))).toEqual({ url: message })
  })

  it('takes public hosts and addresses', async () => {
    for (const url of [
      'https://93.184.216.34/in',
      'https://[2606:4700:4700::1111]:8443/in',
      'https://hooks.example.com:8443/a?b=c',
    ]) {
      expect((await create({ url, events: [leadCreated] })).statusCode).toBe(201)
    }
  })

  it('resolves a host name when the subscription is saved, and refuses one that reaches inside (400 on url)', async () => {
    // `vm` stands for a name in /etc/hosts; `slow` for one whose DNS answers later than a save waits.
    const names: Record<string, readonly LookupAddress[]> = {
      vm: [{ address: '127.0.0.1', family: 4 }],
      'split.example.com': [
        { address: '93.184.216.34', family: 4 },
        { address: '10.0.0.7', family: 4 },
      ],
      'metadata.example.com': [{ address: 'fd00:ec2::254', family: 6 }],
      'public.example.com': [{ address: '93.184.216.34', family: 4 }],
    }
    const asked: string[] = []
    const resolving = await buildApp({
      database: ctx.database,
      config: ctx.config,
      clock: ctx.clock,
      logger: false,
      resolve: async (hostname) => {
        asked.push(hostname)
        if (hostname === 'slow.example.com') return new Promise(() => {})
        const found = names[hostname]
        if (found === undefined) throw Object.assign(new Error(`${hostname} not found`), { code: 'ENOTFOUND' })
        return found
      },
    })
    try {
      const before = await countSubscriptions()
      for (const [url, address] of [
        ['https://vm:4443/hook', 'vm resolves to 127.0.0.1'],
        ['https://split.example.com/hook', 'split.example.com resolves to 10.0.0.7'],
        ['https://metadata.example.com/hook', 'metadata.example.com resolves to fd00:ec2::254'],
      ] as const) {
        const res = await create({ url, events: [leadCreated] }, ctx.org.admin.key, resolving)
        expect(fieldErrors(res), url).toEqual({
          url: `Must not point to a loopback, private, link-local or reserved address: ${address}.`,
        })
      }
      expect(await countSubscriptions()).toBe(before)

      const sub = await create(
        { url: 'https://public.example.com/hook', events: [leadCreated] },
        ctx.org.admin.key,
        resolving,
      )
      expect(sub.statusCode, sub.body).toBe(201)
      const id = sub.json<CreatedWebhookSubscription>().id
      const moved = await call(resolving, ctx.org.admin.key, 'PUT', `/webhook/${id}/`, {
        body: { url: 'https://vm/hook', status: 'paused' },
      })
      expect(fieldErrors(moved)).toEqual({
        url: 'Must not point to a loopback, private, link-local or reserved address: vm resolves to 127.0.0.1.',
      })
      const kept = await call(resolving, ctx.org.admin.key, 'GET', `/webhook/${id}/`)
      expect(kept.json()).toMatchObject({ url: 'https://public.example.com/hook', status: 'active' })

      // A name that does not resolve, or not in time, is taken: each delivery checks it again when it connects.
      const started = Date.now()
      for (const url of ['https://nowhere.example.com/hook', 'https://slow.example.com/hook']) {
        const res = await create({ url, events: [leadCreated] }, ctx.org.admin.key, resolving)
        expect(res.statusCode, url).toBe(201)
      }
      expect(Date.now() - started).toBeLessThan(10_000)
      expect(asked).toEqual(
        expect.arrayContaining(['vm', 'split.example.com', 'nowhere.example.com', 'slow.example.com']),
      )
    } finally {
      await resolving.close()
    }
  })

  it('with LEADLINE_OUTBOUND_ALLOW_PRIVATE=1 takes http and private targets, never another scheme or credentials', async () => {
    for (const url of ['http://127.0.0.1:8080/hook', 'https://localhost/', 'http://[::1]:9000/', 'http://10.0.0.5/']) {
      const res = await create({ url, events: [leadCreated] }, ctx.org.admin.key, lenient)
      expect(res.statusCode, url).toBe(201)
    }
    expect(
      fieldErrors(await create({ url: 'ftp://127.0.0.1/', events: [leadCreated] }, ctx.org.admin.key, lenient)),
    ).toEqual({
      url: 'Must be an https:// URL.',
    })
    expect(
      fieldErrors(await create({ url: 'http://a:b@127.0.0.1/', events: [leadCreated] }, ctx.org.admin.key, lenient)),
    ).toEqual({ url: 'Must not carry a user name or password.' })
  })

  it('takes only object types and actions of the event log', async () => {
    const errors = fieldErrors(
      await create({
        url: URL_OK,
        events: [
          { object_type: 'task.lead', action: 'completed' },
          { object_type: 'activity.note', action: 'created' },
          { object_type: 'lead', action: 'exploded' },
          { object_type: 'webhook', action: 'created' },
          { object_type: 'custom_field.lead', action: 'deleted' },
        ],
      }),
    )
    expect(errors).toEqual({
      'events.2.action': 'Must be one of created, updated, deleted, merged, completed, sent.',
      'events.3.object_type': expect.stringMatching(/^Not an object type of the event log: use one of lead, contact, /),
    })
    const sub = await created({
      events: [
        'lead',
        'contact',
        'opportunity',
        'task.opportunity_due',
        'activity.lead_status_change',
        'activity.sms',
        'status.lead',
        'status.opportunity',
        'pipeline',
        'custom_field.opportunity',
      ].map((objectType) => ({ object_type: objectType, action: 'updated' })),
    })
    expect(sub.events).toHaveLength(10)
  })

  it('names the path of a bad filter in its field error', async () => {
    const withFilter = (extraFilter: unknown) =>
      create({ url: URL_OK, events: [leadCreated, { ...leadCreated, extra_filter: extraFilter }] })
    expect(
      fieldErrors(await withFilter({ type: 'or', filters: [{ type: 'is_null' }, { type: 'equal', value: 'x' }] })),
    ).toEqual({
      'events.1.extra_filter.filters.1.type': expect.stringMatching(/^Unknown filter type "equal" \(one of equals, /),
    })
    expect(fieldErrors(await withFilter({ type: 'equals' }))).toEqual({
      'events.1.extra_filter.value': 'An "equals" filter needs "value".',
    })
    expect(fieldErrors(await withFilter({ type: 'field_accessor', field: 'data', filter: { type: 'not' } }))).toEqual({
      'events.1.extra_filter.filter.filter': 'A "not" filter needs "filter".',
    })
    expect(fieldErrors(await withFilter({ type: 'is_null', value: 1 }))).toEqual({
      'events.1.extra_filter.value': 'Unknown member "value" of an "is_null" filter.',
    })
    expect(fieldErrors(await withFilter('equals'))).toEqual({
      'events.1.extra_filter': 'Must be a filter object such as {"type": "is_null"}.',
    })
    expect(fieldErrors(await withFilter({ type: 'and', filters: 'all' }))).toEqual({
      'events.1.extra_filter.filters': '"filters" must be a list of filters.',
    })
    expect(
      fieldErrors(await withFilter({ type: 'or', filters: Array.from({ length: 1000 }, () => ({ type: 'is_null' })) })),
    ).toEqual({
      'events.1.extra_filter': 'The filter has more than 1000 parts.',
    })
    expect((await withFilter(null)).statusCode).toBe(201)
  })

  it("refuses Close's top-level event_filter rather than deliver more than was asked", async () => {
    expect(
      fieldErrors(await create({ url: URL_OK, events: [leadCreated], event_filter: { type: 'is_null' } })),
    ).toEqual({
      event_filter: 'Not supported: give each entry of events its extra_filter.',
    })
    expect((await create({ url: URL_OK, events: [leadCreated], event_filter: null })).statusCode).toBe(201)
  })
})

describe('GET /webhook/', () => {
  it("lists the organization's subscriptions newest first, in pages, to admins only", async () => {
    const org = await ctx.createOrg('Listing Co')
    const ids: string[] = []
    for (let i = 0; i < 3; i++) ids.push((await created({}, org.admin.key)).id)
    const page = async (query: Record<string, string>) => {
      const res = await call(ctx.app, org.admin.key, 'GET', '/webhook/', { query })
      expect(res.statusCode, res.body).toBe(200)
      return res.json<{ has_more: boolean; data: WebhookSubscription[] }>()
    }
    const all = await page({})
    expect(all.data.map((s) => s.id)).toEqual([...ids].reverse())
    expect(all.has_more).toBe(false)
    const first = await page({ _limit: '2' })
    expect(first).toMatchObject({ has_more: true })
    expect(first.data.map((s) => s.id)).toEqual([ids[2], ids[1]])
    const second = await page({ _limit: '2', _skip: '2' })
    expect(second).toMatchObject({ has_more: false })
    expect(second.data.map((s) => s.id)).toEqual([ids[0]])
    expect((await page({ _fields: 'id,url' })).data[0]).toEqual({ id: ids[2], url: URL_OK })

    expect((await call(ctx.app, org.member.key, 'GET', '/webhook/')).statusCode).toBe(403)
    expect((await call(ctx.app, org.member.key, 'GET', `/webhook/${ids[0] ?? ''}/`)).statusCode).toBe(403)
  })

  it("answers 404 for another organization's subscription, and never lists it", async () => {
    const theirs = await created({}, ctx.other.admin.key)
    const res = await call(ctx.app, ctx.org.admin.key, 'GET', `/webhook/${theirs.id}/`)
    expect(res.statusCode).toBe(404)
    expect(res.json()).toEqual({ error: 'Webhook subscription not found.' })
    const mine = await call(ctx.app, ctx.org.admin.key, 'GET', '/webhook/', { query: { _limit: '100' } })
    expect(mine.json<{ data: WebhookSubscription[] }>().data.map((s) => s.id)).not.toContain(theirs.id)
    for (const [method, path] of [
      ['PUT', `/webhook/${theirs.id}/`],
      ['DELETE', `/webhook/${theirs.id}/`],
      ['GET', `/webhook/${theirs.id}/deliveries/`],
    ] as const) {
      const other = await call(
        ctx.app,
        ctx.org.admin.key,
        method,
        path,
        method === 'PUT' ? { body: { status: 'paused' } } : {},
      )
      expect(other.statusCode, `${method} ${path}`).toBe(404)
    }
    expect((await call(ctx.app, ctx.other.admin.key, 'GET', `/webhook/${theirs.id}/`)).json()).toMatchObject({
      status: 'active',
    })
  })
})

describe('PUT /webhook/{id}/', () => {
  const put = (id: string, body: Record<string, unknown>, key = ctx.org.admin.key) =>
    call(ctx.app, key, 'PUT', `/webhook/${id}/`, { body })

  it('changes url, events and verify_ssl, and answers without the key', async () => {
    const sub = await created()
    ctx.clock.advance(1000)
    const res = await put(sub.id, {
      url: 'https://other.example.com/in',
      events: [{ object_type: 'contact', action: 'deleted', extra_filter: { type: 'non_null' } }],
      verify_ssl: false,
      signature_key: 'cd'.repeat(32),
      organization_id: ctx.other.id,
    })
    expect(res.statusCode, res.body).toBe(200)
    expect(res.body).not.toContain('signature_key')
    expect(res.body).not.toContain(sub.signature_key)
    const changed = res.json<WebhookSubscription>()
    expect(changed).toMatchObject({
      id: sub.id,
      url: 'https://other.example.com/in',
      events: [{ object_type: 'contact', action: 'deleted', extra_filter: { type: 'non_null' } }],
      verify_ssl: false,
      status: 'active',
      organization_id: ctx.org.id,
      date_created: sub.date_created,
    })
    expect(changed.date_updated > sub.date_updated).toBe(true)
    expect(await openedKey(sub.id)).toBe(sub.signature_key)
  })

  it('pauses with who paused it, and resumes forgetting the reason and past failures', async () => {
    const sub = await created()
    const paused = await put(sub.id, { status: 'paused' })
    expect(paused.json()).toMatchObject({ status: 'paused', status_reason: 'paused by Ada Admin' })
    // Pausing what is paused keeps why it was.
    await ctx.database.db
      .updateTable('webhook_subscription')
      .set({
        status_reason: 'paused after 72 hours of failed deliveries',
        failing_since: '2026-02-01T00:00:00.000000+00:00',
      })
      .where('id', '=', sub.id)
      .execute()
    expect((await put(sub.id, { status: 'paused' })).json()).toMatchObject({
      status: 'paused',
      status_reason: 'paused after 72 hours of failed deliveries',
    })
    expect((await put(sub.id, { status: 'active' })).json()).toMatchObject({ status: 'active', status_reason: null })
    const row = await ctx.database.db
      .selectFrom('webhook_subscription')
      .select(['failing_since', 'status'])
      .where('id', '=', sub.id)
      .executeTakeFirstOrThrow()
    expect(row).toEqual({ failing_since: null, status: 'active' })
  })

  it('refuses an unknown status or bad input, and then changes nothing', async () => {
    const sub = await created()
    expect(fieldErrors(await put(sub.id, { status: 'disabled', url: 'https://new.example.com/' }))).toEqual({
      status: 'Must be "active" or "paused".',
    })
    expect(fieldErrors(await put(sub.id, { url: 'http://new.example.com/' }))).toEqual({
      url: 'Must be an https:// URL.',
    })
    expect(fieldErrors(await put(sub.id, { url: 'https://127.0.0.1/' }))).toEqual({
      url: 'Must not point to a loopback, private, link-local or reserved address.',
    })
    expect(fieldErrors(await put(sub.id, { events: [] }))).toEqual({ events: 'Ensure this list has at least 1 items.' })
    expect(
      fieldErrors(
        await put(sub.id, { events: [{ ...leadCreated, extra_filter: { type: 'not', filter: { type: 'nope' } } }] }),
      ),
    ).toEqual({ 'events.0.extra_filter.filter.type': expect.stringMatching(/^Unknown filter type "nope"/) })
    const { signature_key: _key, ...unchanged } = sub
    expect((await call(ctx.app, ctx.org.admin.key, 'GET', `/webhook/${sub.id}/`)).json()).toEqual(unchanged)
  })

  it('is for admins only, and 404 for what does not exist', async () => {
    const sub = await created()
    const res = await put(sub.id, { status: 'paused' }, ctx.org.member.key)
    expect(res.statusCode).toBe(403)
    expect(res.json()).toEqual({ error: expect.any(String) })
    expect((await put('whsub_0000000000000000000000', { status: 'paused' })).statusCode).toBe(404)
    expect((await call(ctx.app, ctx.org.admin.key, 'GET', `/webhook/${sub.id}/`)).json()).toMatchObject({
      status: 'active',
    })
  })
})

interface OutboxSeed {
  subscriptionId: string
  status: string
  organizationId?: string
}

async function outboxRow(seed: OutboxSeed): Promise<string> {
  const id = newId('event')
  const now = '2026-03-01T12:00:00.000000+00:00'
  await ctx.database.db
    .insertInto('outbox')
    .values({
      id,
      organization_id: seed.organizationId ?? ctx.org.id,
      kind: 'webhook',
      subscription_id: seed.subscriptionId,
      event_id: newId('event'),
      ordering_key: `${seed.subscriptionId}:lead_x`,
      payload: '{}',
      status: seed.status,
      attempts: 0,
      next_attempt_at: now,
      lease_owner: null,
      lease_until: null,
      last_status_code: null,
      last_error: null,
      date_created: now,
      date_updated: now,
    })
    .execute()
  return id
}

async function outboxStatuses(ids: string[]): Promise<Record<string, string>> {
  const rows = await ctx.database.db.selectFrom('outbox').select(['id', 'status']).where('id', 'in', ids).execute()
  return Object.fromEntries(rows.map((r) => [r.id, r.status]))
}

describe('DELETE /webhook/{id}/', () => {
  it('deletes the subscription and cancels its pending deliveries, and only those', async () => {
    const sub = await created()
    const kept = await created()
    const pending = [
      await outboxRow({ subscriptionId: sub.id, status: 'pending' }),
      await outboxRow({ subscriptionId: sub.id, status: 'pending' }),
    ]
    const done = [
      await outboxRow({ subscriptionId: sub.id, status: 'delivered' }),
      await outboxRow({ subscriptionId: sub.id, status: 'failed' }),
    ]
    const others = [await outboxRow({ subscriptionId: kept.id, status: 'pending' })]

    const res = await call(ctx.app, ctx.org.admin.key, 'DELETE', `/webhook/${sub.id}/`)
    expect(res.statusCode, res.body).toBe(200)
    expect(res.json()).toEqual({})
    expect(await outboxStatuses([...pending, ...done, ...others])).toEqual({
      [pending[0] ?? '']: 'cancelled',
      [pending[1] ?? '']: 'cancelled',
      [done[0] ?? '']: 'delivered',
      [done[1] ?? '']: 'failed',
      [others[0] ?? '']: 'pending',
    })
    expect((await call(ctx.app, ctx.org.admin.key, 'GET', `/webhook/${sub.id}/`)).statusCode).toBe(404)
    expect((await call(ctx.app, ctx.org.admin.key, 'DELETE', `/webhook/${sub.id}/`)).statusCode).toBe(404)
    expect((await call(ctx.app, ctx.org.admin.key, 'GET', `/webhook/${kept.id}/`)).statusCode).toBe(200)
  })

  it('is for admins only', async () => {
    const sub = await created()
    const pending = await outboxRow({ subscriptionId: sub.id, status: 'pending' })
    const res = await call(ctx.app, ctx.org.member.key, 'DELETE', `/webhook/${sub.id}/`)
    expect(res.statusCode).toBe(403)
    expect(res.json()).toEqual({ error: expect.any(String) })
    expect((await call(ctx.app, ctx.org.admin.key, 'GET', `/webhook/${sub.id}/`)).statusCode).toBe(200)
    expect(await outboxStatuses([pending])).toEqual({ [pending]: 'pending' })
  })
})

describe('GET /webhook/{id}/deliveries/', () => {
  interface Attempt {
    id: string
    delivery_id: string
    event_id: string | null
    attempt: number
    url: string
    status_code: number | null
    duration_ms: number
    error: string | null
    date_created: string
  }

  const PURGED = {
    object_type: null,
    action: null,
    delivery_state: null,
    delivery_attempts: null,
    next_attempt_at: null,
  }

  async function attempts(subscriptionId: string, count: number, organizationId = ctx.org.id) {
    const made: (Attempt & typeof PURGED)[] = []
    for (let i = 0; i < count; i++) {
      const failed = i % 3 === 0
      const attempt: Attempt = {
        id: newId('event'),
        delivery_id: newId('event'),
        event_id: newId('event'),
        attempt: (i % 2) + 1,
        url: URL_OK,
        status_code: failed ? null : 200 + i,
        duration_ms: 10 + i,
        error: failed ? 'connect ECONNREFUSED' : null,
        date_created: `2026-03-01T12:${String(10 + i).padStart(2, '0')}:00.000000+00:00`,
      }
      await ctx.database.db
        .insertInto('outbox_attempt')
        .values({
          id: attempt.id,
          organization_id: organizationId,
          outbox_id: attempt.delivery_id,
          subscription_id: subscriptionId,
          event_id: attempt.event_id,
          attempt: attempt.attempt,
          url: attempt.url,
          status_code: attempt.status_code,
          duration_ms: attempt.duration_ms,
          error: attempt.error,
          date_created: attempt.date_created,
        })
        .execute()
      // No outbox row behind them (as once purged): nothing to tell of their deliveries.
      made.push({ ...attempt, ...PURGED })
    }
    return made
  }

  const deliveries = (id: string, query: Record<string, string> = {}, key = ctx.org.admin.key) =>
    call(ctx.app, key, 'GET', `/webhook/${id}/deliveries/`, { query })

  it("lists a subscription's attempts newest first, 20 at a time unless asked", async () => {
    const sub = await created()
    const other = await created()
    const made = await attempts(sub.id, 25)
    await attempts(other.id, 3)
    const newestFirst = [...made].reverse()

    const first = await deliveries(sub.id)
    expect(first.statusCode, first.body).toBe(200)
    expect(first.json()).toEqual({ has_more: true, data: newestFirst.slice(0, 20) })
    const rest = await deliveries(sub.id, { _skip: '20' })
    expect(rest.json()).toEqual({ has_more: false, data: newestFirst.slice(20) })
    const some = await deliveries(sub.id, { _limit: '3', _skip: '1' })
    expect(some.json()).toEqual({ has_more: true, data: newestFirst.slice(1, 4) })
    expect(fieldErrors(await deliveries(sub.id, { _limit: '101' }))).toEqual({
      _limit: 'Ensure this value is less than or equal to 100.',
    })
    expect((await deliveries(other.id)).json<{ data: Attempt[] }>().data).toHaveLength(3)
  })

  it('is for admins only, and 404 for a subscription not of the organization', async () => {
    const sub = await created()
    const res = await deliveries(sub.id, {}, ctx.org.member.key)
    expect(res.statusCode).toBe(403)
    expect(res.json()).toEqual({ error: expect.any(String) })
    const theirs = await created({}, ctx.other.admin.key)
    await attempts(theirs.id, 2, ctx.other.id)
    expect((await deliveries(theirs.id)).statusCode).toBe(404)
    expect((await deliveries(theirs.id, {}, ctx.other.admin.key)).json<{ data: Attempt[] }>().data).toHaveLength(2)
  })
})

describe('subscriptions made through the API', () => {
  it('are matched to events as they are created, paused, resumed, changed and deleted', async () => {
    const org = await ctx.createOrg('Matched Co')
    const event: EventView = {
      id: newId('event'),
      object_type: 'lead',
      object_id: 'lead_x',
      action: 'created',
      lead_id: 'lead_x',
      user_id: org.admin.id,
      request_id: null,
      api_key_id: null,
      organization_id: org.id,
      date_created: '2026-03-01T12:00:00.000000+00:00',
      date_updated: '2026-03-01T12:00:00.000000+00:00',
      data: { name: 'Acme' },
      previous_data: {},
      changed_fields: [],
      meta: {},
    }
    const match = async () => (await subscriptionMatcher(ctx.database.db, org.id))(event)
    expect(await match()).toEqual([])
    const sub = await created({}, org.admin.key)
    expect(await match()).toEqual([sub.id])
    const put = (body: Record<string, unknown>) => call(ctx.app, org.admin.key, 'PUT', `/webhook/${sub.id}/`, { body })
    await put({ status: 'paused' })
    expect(await match()).toEqual([])
    await put({ status: 'active' })
    expect(await match()).toEqual([sub.id])
    await put({
      events: [
        {
          ...leadCreated,
          extra_filter: {
            type: 'field_accessor',
            field: 'data',
            filter: { type: 'field_accessor', field: 'name', filter: { type: 'equals', value: 'Globex' } },
          },
        },
      ],
    })
    expect(await match()).toEqual([])
    expect((await subscriptionMatcher(ctx.database.db, org.id))({ ...event, data: { name: 'Globex' } })).toEqual([
      sub.id,
    ])
    await call(ctx.app, org.admin.key, 'DELETE', `/webhook/${sub.id}/`)
    expect((await subscriptionMatcher(ctx.database.db, org.id))({ ...event, data: { name: 'Globex' } })).toEqual([])
  })
})

describe('the request log', () => {
  it('never holds a signature key, even at trace', async () => {
    const lines: string[] = []
    const logger = pino(
      { level: 'trace', redact: { paths: REDACTED_PATHS, censor: '[redacted]' } },
      { write: (line: string) => lines.push(line) },
    )
    const logged = await buildApp({ database: ctx.database, config: ctx.config, clock: ctx.clock, logger })
    try {
      const res = await create({ url: URL_OK, events: [leadCreated] }, ctx.org.admin.key, logged)
      expect(res.statusCode).toBe(201)
      const sub = res.json<CreatedWebhookSubscription>()
      await call(logged, ctx.org.admin.key, 'GET', `/webhook/${sub.id}/`)
      await call(logged, ctx.org.admin.key, 'PUT', `/webhook/${sub.id}/`, { body: { status: 'paused' } })
      // Whatever logs a subscription or its row, as a field or nested one level deeper, has the key redacted.
      logger.info({ signature_key: sub.signature_key }, 'top')
      logger.info({ subscription: { signature_key: sub.signature_key } }, 'nested')
      logger.info({ delivery: { subscription: { signature_key: sub.signature_key } } }, 'deeper')
      expect(lines.length).toBeGreaterThan(6)
      expect(lines.join('\n')).not.toContain(sub.signature_key)
      expect(lines.filter((line) => line.includes('[redacted]'))).toHaveLength(3)
    } finally {
      await logged.close()
    }
  })
})
