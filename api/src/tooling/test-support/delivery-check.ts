import { setTimeout as sleep } from 'node:timers/promises'
import { afterAll, beforeAll } from 'vitest'
import { openDatabase, type DatabaseHandle, type Db } from '../../platform/data/database.js'
import { migrateToLatest } from '../../platform/data/migrate.js'
import { leadWebhookSigningKey } from '../../integrations/outbox/lead-webhook.js'
import { secretBoxFrom } from '../../platform/security/secret-box.js'
import { systemClock } from '../../platform/data/time.js'
import { startApiProcess, stopApiProcesses, type ApiProcess } from './api-process.js'
import {
  basicAuth,
  createOrg,
  createTestDatabase,
  TEST_SECRET_KEY,
  type TestDatabase,
  type TestOrg,
} from './test-app.js'
import { startReceiver, type Receiver } from './webhook-receiver.js'
import { verifySignedRequest } from './webhook-signatures.js'

// What the "nothing lost" tests check: a real receiver that verifies every request's signatures as it comes in,
// holds each one a little (so deliveries are in flight when a process is killed), refuses some (so retries happen),
// and, at the end, the log of what it accepted held against the event log.

/**
 * The settings that make a killed process's deliveries come back within seconds, not minutes. The lease is not
 * shorter: a request's timeout is half of it, and on a busy machine a 1-second timeout failed requests the receiver
 * was about to accept, using up the lead webhook's three attempts.
 */
export const FAST_OUTBOX_ENV = {
  LEADLINE_OUTBOUND_ALLOW_PRIVATE: '1',
  LEADLINE_OUTBOX_LEASE_SECONDS: '6',
  LEADLINE_WEBHOOK_RETRY_SECONDS: '1',
  LEADLINE_LEAD_WEBHOOK_RETRY_SECONDS: '1',
}

export interface Accepted {
  webhookId: string
  path: string
}

export interface CheckingReceiver {
  receiver: Receiver
  accepted: Accepted[]
  /** Requests it is holding that it will accept: a process killed now dies in the middle of a delivery. */
  holding(): number
  /** From now on, accepts every request. */
  stopRefusing(): void
  /** Requests whose signatures did not verify (none, if all is well). */
  badSignatures: string[]
  close(): Promise<void>
}

/**
 * Accepts a request after `holdMs`, except every `refuseEvery`-th one, which it answers 503 unless it refused that
 * delivery (webhook id) before: the lead webhook gives up after three attempts, and the test's own refusals must not
 * use them up. `signatureKey` gives the key that signs requests to a path (a subscription's, or the installation's for
 * the lead webhook).
 */
export async function startCheckingReceiver(
  signatureKey: (path: string) => string,
  options: { holdMs: number; refuseEvery: number },
): Promise<CheckingReceiver> {
  const accepted: Accepted[] = []
  const badSignatures: string[] = []
  let holding = 0
  let refusing = true
  const refused = new Set<string>()
  const receiver = await startReceiver(async (request, index) => {
    try {
      verifySignedRequest(signatureKey(request.path), request.headers, request.body)
    } catch (error) {
      badSignatures.push(`${request.body.slice(0, 80)}: ${error instanceof Error ? error.message : String(error)}`)
      return { status: 400 }
    }
    const webhookId = String(request.headers['webhook-id'])
    const refuse = refusing && index % options.refuseEvery === options.refuseEvery - 1 && !refused.has(webhookId)
    if (refuse) refused.add(webhookId)
    else holding++
    await sleep(options.holdMs)
    if (refuse) return { status: 503 }
    holding--
    accepted.push({ webhookId, path: request.path })
    return { status: 200 }
  })
  return {
    receiver,
    accepted,
    holding: () => holding,
    stopRefusing: () => {
      refusing = false
    },
    badSignatures,
    close: () => receiver.close(),
  }
}

/** Waits for `condition`, checking every 50 ms, up to `timeoutMs`; answers whether it came true. */
export async function waitFor(condition: () => boolean | Promise<boolean>, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    if (await condition()) return true
    if (Date.now() > deadline) return false
    await sleep(50)
  }
}

/** The organization's events of these types and actions, in the order they were written, with their object. */
export async function eventsInOrder(db: Db, organizationId: string, objectTypes: string[], actions: string[]) {
  return db
    .selectFrom('event')
    .select(['id', 'object_id'])
    .where('organization_id', '=', organizationId)
    .where('object_type', 'in', objectTypes)
    .where('action', 'in', actions)
    .orderBy('seq')
    .execute()
}

/** The event each of the organization's outbox rows carries, by the row's id (its requests' webhook-id). */
export async function outboxEvents(db: Db, organizationId: string): Promise<Map<string, string>> {
  const rows = await db
    .selectFrom('outbox')
    .select(['id', 'event_id'])
    .where('organization_id', '=', organizationId)
    .execute()
  return new Map(rows.map((r) => [r.id, r.event_id ?? '']))
}

/** Where the deliveries of these events stand (status, attempts, last error), for a failed check's message. */
export async function deliveriesOf(db: Db, organizationId: string, eventIds: string[]): Promise<string> {
  if (eventIds.length === 0) return 'no events'
  const rows = await db
    .selectFrom('outbox')
    .select(['id', 'kind', 'event_id', 'status', 'attempts', 'last_error', 'lease_owner', 'lease_until'])
    .where('organization_id', '=', organizationId)
    .where('event_id', 'in', eventIds.slice(0, 20))
    .execute()
  return JSON.stringify(rows)
}

export interface DeliveryReport {
  /** Events never accepted. */
  missing: string[]
  /** Objects whose accepted events went backwards: an event accepted after a later one of the same object. */
  outOfOrder: string[]
  /** Acceptances beyond the first of each webhook id: deliveries made again. */
  repeats: number
}

/**
 * Holds what the receiver accepted against the event log: `events` in the order they were written, `eventOf` the
 * event each delivery (outbox row, by its webhook id) carries.
 */
export function deliveryReport(
  events: { id: string; object_id: string }[],
  eventOf: ReadonlyMap<string, string>,
  accepted: Accepted[],
): DeliveryReport {
  const position = new Map(events.map((e, i) => [e.id, i]))
  const objectOf = new Map(events.map((e) => [e.id, e.object_id]))
  const seen = new Set<string>()
  const last = new Map<string, number>()
  const outOfOrder = new Set<string>()
  for (const delivery of accepted) {
    const eventId = eventOf.get(delivery.webhookId) ?? ''
    seen.add(eventId)
    const objectId = objectOf.get(eventId) ?? ''
    const at = position.get(eventId) ?? -1
    if (at < (last.get(objectId) ?? -1)) outOfOrder.add(objectId)
    last.set(objectId, Math.max(at, last.get(objectId) ?? -1))
  }
  const counts = new Map<string, number>()
  for (const a of accepted) counts.set(a.webhookId, (counts.get(a.webhookId) ?? 0) + 1)
  return {
    missing: events.filter((e) => !seen.has(e.id)).map((e) => e.id),
    outOfOrder: [...outOfOrder],
    repeats: [...counts.values()].reduce((sum, n) => sum + n - 1, 0),
  }
}

/** A JSON request to a real api process, as the given key; answers the parsed body (throws on a non-2xx). */
export async function apiCall(server: ApiProcess, key: string, method: string, path: string, body?: unknown) {
  const res = await fetch(`${server.url}/api/v1${path}`, {
    method,
    headers: { authorization: basicAuth(key), 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  })
  const text = await res.text()
  if (!res.ok) throw new Error(`${method} ${path}: ${String(res.status)} ${text}`)
  return JSON.parse(text) as Record<string, unknown>
}

/** Kills a process at once (no shutdown: its leases and in-flight deliveries are left as a crash leaves them). */
export async function killHard(server: ApiProcess): Promise<void> {
  if (server.child.exitCode !== null || server.child.signalCode !== null) return
  const exited = new Promise((resolve) => server.child.once('exit', resolve))
  server.child.kill('SIGKILL')
  await exited
}

export interface DeliveryFixture {
  database: DatabaseHandle
  org: TestOrg
  checking: CheckingReceiver
  /** Starts a real api process on the fixture's database, delivering fast (and to the lead webhook, if asked). */
  start: () => Promise<ApiProcess>
}

/**
 * For a test file: a database with an organization, a checking receiver at `/hook` (and at `/leads` for the lead
 * webhook, when `leadWebhook`), and the api processes it starts, stopped at the end. The first one started is asked
 * (POST /webhook/) for a subscription to the organization's tasks created and updated.
 */
export function deliveryFixture(options: {
  organization: string
  holdMs: number
  refuseEvery: number
  leadWebhook: boolean
}): DeliveryFixture {
  let testDb: TestDatabase | undefined
  const servers: ApiProcess[] = []
  const keys = { subscription: '', lead: '' }
  const fixture = {
    start: async () => {
      if (testDb === undefined) throw new Error('the fixture is not set up')
      const server = await startApiProcess(testDb.url, {
        ...FAST_OUTBOX_ENV,
        ...(options.leadWebhook ? { LEADLINE_LEAD_WEBHOOK_URL: `${fixture.checking.receiver.origin}/leads` } : {}),
      })
      servers.push(server)
      if (keys.subscription === '') {
        // The first process makes the subscription, as an admin would.
        const events = ['created', 'updated'].map((action) => ({ object_type: 'task.lead', action }))
        const body = { url: fixture.checking.receiver.url, events }
        const made = await apiCall(server, fixture.org.admin.key, 'POST', '/webhook/', body)
        keys.subscription = String(made.signature_key)
      }
      return server
    },
  } as DeliveryFixture
  beforeAll(async () => {
    testDb = await createTestDatabase()
    fixture.database = openDatabase(testDb.url)
    await migrateToLatest(fixture.database.db)
    fixture.org = await createOrg(fixture.database, systemClock, options.organization)
    if (options.leadWebhook)
      keys.lead = await leadWebhookSigningKey(
        fixture.database.db,
        secretBoxFrom({ LEADLINE_SECRET_KEY: TEST_SECRET_KEY }),
      )
    fixture.checking = await startCheckingReceiver((path) => (path === '/leads' ? keys.lead : keys.subscription), {
      holdMs: options.holdMs,
      refuseEvery: options.refuseEvery,
    })
  }, 60_000)
  afterAll(async () => {
    await stopApiProcesses(servers)
    await fixture.checking.close()
    await fixture.database.close()
    await testDb?.drop()
  })
  return fixture
}
