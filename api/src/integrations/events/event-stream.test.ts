import type { SseMessage } from '@leadline/shared/sse'
import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { revokeApiKey } from '../../platform/security/api-key-repo.js'
import { buildApp } from '../../app/app.js'
import { formatTimestamp } from '../../platform/data/time.js'
import { listenLocally } from '../../tooling/test-support/raw-http.js'
import { openSse, type SseClient } from '@leadline/shared/sse-client'
import {
  basicAuth,
  TEST_STREAM_SECRET,
  createTestContext,
  testDatabaseKind,
  type TestContext,
  type TestOrg,
} from '../../tooling/test-support/test-app.js'
import { EventHub, type FeedListener } from './event-hub.js'
import { purgeOldEvents } from './event-retention.js'

// The event stream over real HTTP: who may open it, what it sends, resuming with Last-Event-ID, and shutting down.

interface StreamedEvent {
  id: string
  object_type: string
  object_id: string
  action: string
  organization_id: string
  meta: Record<string, unknown>
}

let ctx: TestContext
let base = ''
const opened: SseClient[] = []

beforeAll(async () => {
  ctx = await createTestContext()
  base = `http://127.0.0.1:${String(await listenLocally(ctx.app))}/api/v1`
})

afterAll(async () => {
  for (const client of opened) client.close()
  await ctx.close()
})

async function stream(key: string | undefined, headers: Record<string, string> = {}, query = '', at = base) {
  const client = await openSse(`${at}/event/stream/${query}`, {
    ...(key === undefined ? {} : { authorization: basicAuth(key) }),
    ...headers,
  })
  opened.push(client)
  return client
}

async function request(key: string, method: string, path: string, body?: unknown) {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: basicAuth(key), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  })
  const json: unknown = await response.json()
  expect(response.status, JSON.stringify(json)).toBe(200)
  return json as Record<string, unknown> & { id: string }
}

/** A lead and tasks on it, written through the API; answers the tasks' ids. */
async function writeTasks(org: TestOrg, texts: string[]): Promise<string[]> {
  const lead = await request(org.member.key, 'POST', '/lead/', { name: `Stream ${texts.join(' ')}` })
  const ids: string[] = []
  for (const text of texts) ids.push((await request(org.member.key, 'POST', '/task/', { lead_id: lead.id, text })).id)
  return ids
}

function events(messages: SseMessage[]): StreamedEvent[] {
  return messages.map((m) => JSON.parse(m.data) as StreamedEvent)
}

function isCreatedTask(message: SseMessage): boolean {
  const event = JSON.parse(message.data) as StreamedEvent
  return event.object_type === 'task.lead' && event.action === 'created'
}

/** The task ids of the `created` task events among the messages, in the order they came. */
function createdTasks(messages: SseMessage[]): string[] {
  return events(messages.filter(isCreatedTask)).map((e) => e.object_id)
}

/** The messages of created tasks, once there are `count` (the leads they go on have their events too). */
async function untilTasks(client: SseClient, count: number): Promise<SseMessage[]> {
  await expect.poll(() => client.messages.filter(isCreatedTask).length, { timeout: 5000 }).toBeGreaterThanOrEqual(count)
  return client.messages.filter(isCreatedTask)
}

/** Resolves once the last created task the stream sent is `task`. */
async function untilLastTask(client: SseClient, task: string | undefined): Promise<void> {
  await expect.poll(() => createdTasks(client.messages).at(-1), { timeout: 5000 }).toBe(task)
}

describe('GET /event/stream/', () => {
  it('sends an admin every event of the organization, as GET /event/{id}/ answers it, in order', async () => {
    const org = await ctx.createOrg('Streaming Co')
    const client = await stream(org.admin.key)
    expect(client.status).toBe(200)
    expect(client.headers.get('content-type')).toBe('text/event-stream; charset=utf-8')
    expect(client.headers.get('cache-control')).toBe('no-store')
    expect(client.headers.get('x-request-id')).toMatch(/^req_/)
    await client.waitForId()

    const tasks = await writeTasks(org, ['One', 'Two', 'Three'])
    const messages = await untilTasks(client, 3)
    expect(createdTasks(messages)).toEqual(tasks)
    for (const message of messages) {
      expect(message.event).toBe('message')
      const event = JSON.parse(message.data) as StreamedEvent
      const one = await fetch(`${base}/event/${event.id}/`, { headers: { authorization: basicAuth(org.member.key) } })
      expect(await one.json()).toEqual(event)
      expect(event.meta).toEqual({ request_method: 'POST', request_path: '/api/v1/task/' })
      // Opaque: nothing of the organization or the order shows through.
      expect(message.lastEventId).toMatch(/^[A-Za-z0-9_-]+$/)
      expect(message.lastEventId).not.toContain(org.id)
    }
    expect(new Set(messages.map((m) => m.lastEventId)).size).toBe(3)
    // An id is also a cursor of the log: the events after it.
    const after = await fetch(`${base}/event/?_cursor=${messages[0]?.lastEventId ?? ''}`, {
      headers: { authorization: basicAuth(org.member.key) },
    })
    const page = (await after.json()) as { data: StreamedEvent[] }
    expect(page.data.map((e) => e.object_id)).toEqual(tasks.slice(1).reverse())
  })

  it('lets any key of the organization stream with the shared secret, and refuses everyone else', async () => {
    const refused = await stream(ctx.org.member.key)
    expect(refused.status).toBe(403)
    expect(refused.error).toEqual({ error: expect.stringContaining('X-Leadline-Stream-Secret') })
    const wrong = await stream(ctx.org.member.key, { 'x-leadline-stream-secret': `${TEST_STREAM_SECRET}x` })
    expect(wrong.status).toBe(403)
    const short = await stream(ctx.org.member.key, { 'x-leadline-stream-secret': TEST_STREAM_SECRET.slice(0, -1) })
    expect(short.status).toBe(403)
    const anonymous = await stream(undefined, { 'x-leadline-stream-secret': TEST_STREAM_SECRET })
    expect(anonymous.status).toBe(401)

    const trusted = await stream(ctx.org.member.key, { 'x-leadline-stream-secret': TEST_STREAM_SECRET })
    expect(trusted.status).toBe(200)
    const [task] = await writeTasks(ctx.org, ['Trusted'])
    expect(createdTasks(await untilTasks(trusted, 1))).toEqual([task])

    // Without a configured secret, only admins.
    const noSecret = await buildApp({
      database: ctx.database,
      config: { ...ctx.config, streamSecret: undefined },
      clock: ctx.clock,
      logger: false,
    })
    try {
      const at = `http://127.0.0.1:${String(await listenLocally(noSecret))}/api/v1`
      expect(
        (await stream(ctx.org.member.key, { 'x-leadline-stream-secret': TEST_STREAM_SECRET }, '', at)).status,
      ).toBe(403)
      const admin = await stream(ctx.org.admin.key, {}, '', at)
      expect(admin.status).toBe(200)
      admin.close()
    } finally {
      await noSecret.close()
    }
  })

  it('never sends another organization’s events', async () => {
    const mine = await ctx.createOrg('Mine Co')
    const theirs = await ctx.createOrg('Theirs Co')
    const myStream = await stream(mine.admin.key)
    const theirStream = await stream(theirs.member.key, { 'x-leadline-stream-secret': TEST_STREAM_SECRET })
    await Promise.all([myStream.waitForId(), theirStream.waitForId()])
    const myTasks: string[] = []
    const theirTasks: string[] = []
    for (let i = 0; i < 3; i++) {
      myTasks.push(...(await writeTasks(mine, [`Mine ${String(i)}`])))
      theirTasks.push(...(await writeTasks(theirs, [`Theirs ${String(i)}`])))
    }
    await Promise.all([untilTasks(myStream, 3), untilTasks(theirStream, 3)])
    // One more write of each, so that anything stray would have come with it.
    const [lastMine] = await writeTasks(mine, ['Mine last'])
    const [lastTheirs] = await writeTasks(theirs, ['Theirs last'])
    await Promise.all([untilTasks(myStream, 4), untilTasks(theirStream, 4)])
    expect(createdTasks(myStream.messages)).toEqual([...myTasks, lastMine])
    expect(createdTasks(theirStream.messages)).toEqual([...theirTasks, lastTheirs])
    expect(events(myStream.messages).every((e) => e.organization_id === mine.id)).toBe(true)
    expect(events(theirStream.messages).every((e) => e.organization_id === theirs.id)).toBe(true)
  })

  it('resumes after Last-Event-ID without losing what was written meanwhile, from the header or the query', async () => {
    const org = await ctx.createOrg('Resume Co')
    const first = await stream(org.admin.key)
    await first.waitForId()
    const [a, b] = await writeTasks(org, ['A', 'B'])
    const seen = await untilTasks(first, 2)
    first.close()
    const [c, d] = await writeTasks(org, ['C', 'D'])
    const idOf = (task: string | undefined) =>
      seen.find((m) => (JSON.parse(m.data) as StreamedEvent).object_id === task)?.lastEventId ?? ''

    /** What a resumed stream sends: what was missed, after a few repeats on Postgres (decision 0022). */
    const resumed = async (headers: Record<string, string>, query: string, missed: (string | undefined)[]) => {
      const client = await stream(org.admin.key, headers, query)
      expect(client.status, JSON.stringify([client.error, headers, query])).toBe(200)
      await expect.poll(() => createdTasks(client.messages).slice(-missed.length)).toEqual(missed)
      const got = createdTasks(client.messages)
      const repeats = got.slice(0, -missed.length)
      if (testDatabaseKind === 'sqlite') expect(repeats).toEqual([])
      // Repeats, if any, are the events just before the missed ones.
      const before = [a, b, c, d].slice(0, 4 - missed.length)
      expect(before.slice(before.length - repeats.length)).toEqual(repeats)
      return client
    }
    const fromB = await resumed({ 'last-event-id': idOf(b) }, '', [c, d])
    const fromA = await resumed({}, `?last_event_id=${idOf(a)}`, [b, c, d])
    // EventSource sends its newest id as the header, to the URL it was given: the header wins.
    await resumed({ 'last-event-id': idOf(b) }, `?last_event_id=${idOf(a)}`, [c, d])

    // The resumed streams go on live.
    const [e] = await writeTasks(org, ['E'])
    await untilLastTask(fromB, e)
    await untilLastTask(fromA, e)
  })

  it('gives a fresh stream an id before any event, so that nothing is lost when it reconnects', async () => {
    const org = await ctx.createOrg('Quiet Co')
    const quiet = await stream(org.admin.key)
    const position = await quiet.waitForId()
    quiet.close()
    const [missed] = await writeTasks(org, ['While away'])
    const back = await stream(org.admin.key, { 'last-event-id': position })
    await untilLastTask(back, missed)
    expect(createdTasks(back.messages)).toEqual([missed])
  })

  it('starts with event: reset when the id is older than the events kept, then goes on from now', async () => {
    const org = await ctx.createOrg('Retention Co')
    const first = await stream(org.admin.key)
    await first.waitForId()
    const [old] = await writeTasks(org, ['Old'])
    const [message] = await untilTasks(first, 1)
    first.close()
    const oldEvent = JSON.parse(message?.data ?? '{}') as StreamedEvent
    const longAgo = formatTimestamp(
      new Date(ctx.clock.now().getTime() - (ctx.config.eventRetentionDays + 1) * 86_400_000),
    )
    await ctx.database.db.updateTable('event').set({ date_created: longAgo }).where('id', '=', oldEvent.id).execute()
    expect(await purgeOldEvents(ctx.database.db, ctx.clock, ctx.config.eventRetentionDays)).toBeGreaterThanOrEqual(1)
    expect(old).toBe(oldEvent.object_id)
    await writeTasks(org, ['Before the reconnect'])

    const back = await stream(org.admin.key, { 'last-event-id': message?.lastEventId ?? '' })
    const [reset] = await back.waitFor(1)
    expect(reset?.event).toBe('reset')
    expect(JSON.parse(reset?.data ?? '{}')).toEqual({ reason: expect.stringContaining('no longer kept') })
    const [now] = await writeTasks(org, ['After the reset'])
    await untilLastTask(back, now)
    expect(createdTasks(back.messages)).toEqual([now])

    // The reset's id is a good place to resume from.
    back.close()
    const [later] = await writeTasks(org, ['Later'])
    const again = await stream(org.admin.key, { 'last-event-id': reset?.lastEventId ?? '' })
    await expect.poll(() => createdTasks(again.messages).slice(-2)).toEqual([now, later])
    expect(again.messages.map((m) => m.event)).not.toContain('reset')
  })

  it('refuses an id that is not a stream id of this organization', async () => {
    const mine = await stream(ctx.org.admin.key)
    const here = await mine.waitForId()
    mine.close()
    const cases: [Record<string, string>, string, string, string][] = [
      [{ 'last-event-id': 'not-an-id' }, '', 'Last-Event-ID', 'Not a stream id of this event list.'],
      [{}, '?last_event_id=%5B%5D', 'last_event_id', 'Not a stream id of this event list.'],
      [{ 'last-event-id': here }, '', 'Last-Event-ID', 'Not a stream id of this organization.'],
      [
        { 'last-event-id': Buffer.from(JSON.stringify([ctx.other.id, 5, 'next'])).toString('base64url') },
        '',
        'Last-Event-ID',
        'Not a stream id of this event list.',
      ],
      [
        { 'last-event-id': Buffer.from(JSON.stringify([ctx.other.id, 5, 'previous', 9])).toString('base64url') },
        '',
        'Last-Event-ID',
        'Not a stream id of this event list.',
      ],
    ]
    for (const [headers, query, field, message] of cases) {
      const refused = await stream(ctx.other.admin.key, headers, query)
      expect(refused.status, JSON.stringify(headers) + query).toBe(400)
      expect(refused.error).toEqual({ errors: [], 'field-errors': { [field]: message } })
    }
  })
})

describe('the stream’s connection', () => {
  let app: FastifyInstance
  let at = ''

  beforeAll(async () => {
    app = await buildApp({
      database: ctx.database,
      config: ctx.config,
      clock: ctx.clock,
      logger: false,
      eventStream: { heartbeatMs: 50 },
    })
    at = `http://127.0.0.1:${String(await listenLocally(app))}/api/v1`
  })

  it('carries a heartbeat comment when nothing happens', async () => {
    const client = await stream(ctx.org.admin.key, {}, '', at)
    expect(await client.waitForComments(2)).toEqual(['heartbeat', 'heartbeat'])
    expect(client.messages).toEqual([])
    client.close()
  })

  it('ends when the key it was opened with is revoked', async () => {
    const org = await ctx.createOrg('Revoked Co')
    const client = await stream(org.admin.key, {}, '', at)
    await client.waitForId()
    await client.waitForComments(1)
    expect((await revokeApiKey(ctx.database.db, ctx.clock, org.admin.keyId))?.revokedNow).toBe(true)
    // Past the few seconds a verified key is trusted for.
    ctx.clock.advance(10_000)
    expect(await client.ended).toBe('end')
  })

  it('is ended cleanly when the server closes, rather than holding the shutdown', async () => {
    const first = await stream(ctx.org.admin.key, {}, '', at)
    const second = await stream(ctx.other.admin.key, {}, '', at)
    await Promise.all([first.waitForId(), second.waitForId()])
    await app.close()
    expect(await first.ended).toBe('end')
    expect(await second.ended).toBe('end')
  })
})

describe('EventHub', () => {
  it('keeps one feed per organization while it has listeners, and ends them when it closes', async () => {
    const hub = new EventHub(ctx.database.db, {
      pollMs: 20,
      heartbeatMs: 60_000,
      settleMs: 0,
      onError: (error) => {
        throw error
      },
    })
    const ended: string[] = []
    const delivered: string[] = []
    const listener = (name: string): FeedListener => ({
      events: (rows) => delivered.push(...rows.map((r) => `${name}:${r.object_id}`)),
      heartbeat: () => undefined,
      end: () => ended.push(name),
    })
    const one = await hub.join(ctx.org.id, listener('one'))
    const two = await hub.join(ctx.org.id, listener('two'))
    const other = await hub.join(ctx.other.id, listener('other'))
    expect(hub.size).toBe(2)
    expect(two.position()).toEqual(one.position())
    const [task] = await writeTasks(ctx.org, ['Hub'])
    await expect
      .poll(() => delivered.filter((d) => d.endsWith(`:${task ?? ''}`)).sort())
      .toEqual([`one:${task ?? ''}`, `two:${task ?? ''}`])
    one.leave()
    two.leave()
    expect(hub.size).toBe(1)
    await hub.close()
    expect(ended).toEqual(['other'])
    other.leave()
    expect(hub.size).toBe(0)
    await expect(hub.join(ctx.org.id, listener('late'))).rejects.toThrow('closed')
  })
})
