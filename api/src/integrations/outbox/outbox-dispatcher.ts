import { hostname } from 'node:os'
import { sql, type ExpressionBuilder, type Selectable } from 'kysely'
import type { Config } from '../../platform/config.js'
import type { Db, Dialect, OutboxTable, Tables } from '../../platform/data/database.js'
import { createOutboundClient, type OutboundClient, type OutboundResult } from '../outbound/outbound-client.js'
import { newId, randomBase62 } from '../../platform/security/ids.js'
import { openSecret, StoredSecretError, webhookKeyContext } from '../../platform/security/stored-secrets.js'
import { formatTimestamp, type Clock } from '../../platform/data/time.js'
import { leadWebhookSigningKey, readLeadWebhook } from './lead-webhook.js'
import { onOutboxWritten } from './outbox-signal.js'
import { signatureHeaders } from './outbox-signing.js'
import { outboundPrivateAllowed } from '../../platform/config.js'
import { wakeableSleep } from '../../platform/data/wakeable-sleep.js'
import { metrics } from '../../platform/metrics.js'

// The dispatcher (docs/decisions/0024-outbox-and-delivery.md): each api process runs one. It claims due deliveries
// with a lease, POSTs them, records every attempt and reschedules or settles each row. A row is due when its time
// has come, no live lease holds it, and no earlier row of its ordering key (a subscription and an object) is still
// pending: so one object's deliveries go out one at a time, in order.

export type OutboxRow = Selectable<OutboxTable>

const HOUR_MS = 3_600_000
/** A webhook delivery is retried for this long after its row was written; then it has failed. */
export const WEBHOOK_RETRY_WINDOW_MS = 72 * HOUR_MS
/** A subscription whose deliveries have all failed for this long is paused. */
export const WEBHOOK_PAUSE_AFTER_MS = 72 * HOUR_MS
/** The longest wait between two attempts of one webhook delivery. */
export const WEBHOOK_RETRY_CAP_MS = 3 * HOUR_MS
export const LEAD_WEBHOOK_ATTEMPTS = 3
const REQUEST_TIMEOUT_MS = 10_000
/** `next_attempt_at` of a row whose subscription is paused: past every real time, so no claim considers it. */
export const PARKED = '9999-12-31T00:00:00.000000+00:00'

/** What a kind's handler is given: whose lease its rows are under, and how long a request it makes may take. */
export interface HandlerContext {
  owner: string
  timeoutMs: number
  /**
   * How long one send (an email's, a text's) may take from its claim, every step of it: half the lease, so that it
   * is over, and recorded, before another process could claim the row again.
   */
  sendTimeoutMs: number
  /** [0, 1): the jitter of retry delays. */
  random: () => number
  /** Tells the operator that a delivery's lease was lost before its outcome could be recorded (nothing was). */
  leaseLost: (row: OutboxRow, outcome: string) => void
}

/**
 * The row as the claim that returned it holds it: the same owner and the same `lease_until`. A later claim, by
 * another process or by this one once the lease ran out, writes a later `lease_until`, so this tells them apart.
 */
export function leaseHeld(row: OutboxRow, owner: string) {
  return (eb: ExpressionBuilder<Tables, 'outbox'>) =>
    eb.and([eb('lease_owner', '=', owner), eb('lease_until', '=', row.lease_until ?? '')])
}

/** Handles the claimed rows of one `kind`; answers whether it made an attempt (rather than setting the row aside). */
export type OutboxHandler = (row: OutboxRow) => Promise<boolean>

export interface DispatcherOptions {
  db: Db
  dialect: Dialect
  clock: Clock
  config: Pick<Config, 'outbox' | 'leadWebhookUrl' | 'outboundAllowPrivate' | 'secretBox'>
  /** The HTTP client; by default one with the SSRF guard as LEADLINE_OUTBOUND_ALLOW_PRIVATE says. */
  client?: OutboundClient
  /** This process's name on its leases. */
  owner?: string
  /** [0, 1): the jitter of retry delays. */
  random?: () => number
  /** How often an idle dispatcher looks for rows other processes wrote. */
  pollMs?: number
  onError?: (error: unknown, what: string) => void
  /** Handlers of kinds other than the webhooks', by kind (`sms_send`…), each made once with this dispatcher's context. */
  handlers?: Record<string, (context: HandlerContext) => OutboxHandler>
}

export interface Dispatcher {
  readonly owner: string
  /** Claims and delivers until nothing is due; answers how many attempts it made. For tests and tools. */
  drain(): Promise<number>
  /** Delivers in the background as rows fall due, until stopped. */
  start(): void
  /** Stops claiming, lets the deliveries under way finish and be recorded, and closes the client's connections. */
  stop(): Promise<void>
}

/** The wait before attempt `attempt + 1`: from the base, doubling, capped at `capMs`, ±25 % jitter. */
export function retryDelayMs(attempt: number, baseMs: number, capMs: number, random: number): number {
  const plain = Math.min(capMs, baseMs * 2 ** Math.min(attempt - 1, 30))
  return Math.round(plain * (0.75 + 0.5 * random))
}

/** The wait before attempt `attempt + 1` of a webhook delivery: from the base, doubling, up to 3 hours. */
export function webhookRetryDelayMs(attempt: number, baseMs: number, random: number): number {
  return retryDelayMs(attempt, baseMs, WEBHOOK_RETRY_CAP_MS, random)
}

/** One attempt at a claimed row, as `recordAttempt` stores it. */
export interface AttemptRecord {
  /** Where it went: the URL, or what stands for it (`log:`). */
  url: string
  result: OutboundResult
  /** When to try again; null when the attempt succeeded or the row has failed for good. */
  nextAt: string | null
  at: string
}

/**
 * Records an attempt at a row this claim holds (`owner`'s lease, as claimed) and settles or reschedules the row, in
 * the caller's transaction; answers false, changing nothing, when the row is no longer pending under that lease
 * (another claim took it, or it was cancelled once the lease had run out).
 */
export async function recordAttempt(tx: Db, row: OutboxRow, owner: string, attempt: AttemptRecord): Promise<boolean> {
  const { result, nextAt, at } = attempt
  const count = row.attempts + 1
  const settled = await tx
    .updateTable('outbox')
    .set({
      status: result.ok ? 'delivered' : nextAt === null ? 'failed' : 'pending',
      attempts: count,
      last_status_code: result.statusCode,
      last_error: result.error,
      lease_until: null,
      date_updated: at,
      ...(nextAt === null ? {} : { next_attempt_at: nextAt }),
    })
    .where('seq', '=', row.seq)
    .where(leaseHeld(row, owner))
    // Not one cancelled meanwhile (its subscription deleted while the request was under way).
    .where('status', '=', 'pending')
    .executeTakeFirst()
  if (Number(settled.numUpdatedRows) === 0) {
    metrics.delivery(row.kind, 'lease_lost')
    return false
  }
  metrics.delivery(row.kind, result.ok ? 'delivered' : nextAt === null ? 'failed' : 'retry')
  await tx
    .insertInto('outbox_attempt')
    .values({
      id: newId('outboxAttempt'),
      organization_id: row.organization_id,
      outbox_id: row.id,
      subscription_id: row.subscription_id,
      event_id: row.event_id,
      attempt: count,
      url: attempt.url,
      status_code: result.statusCode,
      duration_ms: result.durationMs,
      error: result.error,
      date_created: at,
    })
    .execute()
  return true
}

export function createDispatcher(options: DispatcherOptions): Dispatcher {
  const { db, dialect, clock, config } = options
  const client = options.client ?? createOutboundClient({ allowPrivate: outboundPrivateAllowed(config) })
  const owner = options.owner ?? `${hostname()}:${String(process.pid)}:${randomBase62(8)}`.slice(-64)
  const random = options.random ?? Math.random
  const pollMs = options.pollMs ?? 1000
  const leaseMs = config.outbox.leaseSeconds * 1000
  // A request must end well within its lease, or another process could claim the row while it is still under way.
  const timeoutMs = Math.min(REQUEST_TIMEOUT_MS, Math.floor(leaseMs / 2))
  const sendTimeoutMs = Math.floor(leaseMs / 2)
  const report =
    options.onError ??
    ((error: unknown, what: string) => {
      process.stderr.write(`outbox: ${what}: ${error instanceof Error ? error.message : String(error)}\n`)
    })
  let signingKey: string | undefined

  async function claim(limit: number): Promise<OutboxRow[]> {
    const now = clock.now()
    const at = formatTimestamp(now)
    let due = db
      .selectFrom('outbox as o')
      .select('o.seq')
      .where('o.status', '=', 'pending')
      .where('o.next_attempt_at', '<=', at)
      .where((eb) => eb.or([eb('o.lease_until', 'is', null), eb('o.lease_until', '<=', at)]))
      .where((eb) =>
        eb.not(
          eb.exists(
            eb
              .selectFrom('outbox as e')
              .select(sql`1`.as('one'))
              .whereRef('e.ordering_key', '=', 'o.ordering_key')
              .where('e.status', '=', 'pending')
              .whereRef('e.seq', '<', 'o.seq'),
          ),
        ),
      )
      .orderBy('o.next_attempt_at')
    // An idle poll only reads: on SQLite an update takes the write lock even when it changes nothing.
    if ((await due.limit(1).executeTakeFirst()) === undefined) return []
    due = due.limit(limit)
    // Postgres: several processes claim at once; each skips the rows another is claiming. SQLite has one writer.
    if (dialect === 'postgres') due = due.forUpdate().skipLocked()
    return db
      .updateTable('outbox')
      .set({ lease_owner: owner, lease_until: formatTimestamp(new Date(now.getTime() + leaseMs)) })
      .where('seq', 'in', due)
      .returningAll()
      .execute()
  }

  /** Rows of paused subscriptions wait, parked; they are due again once their subscription is active (or gone). */
  async function unpark(): Promise<void> {
    const waiting = (query: typeof db) =>
      query
        .selectFrom('outbox')
        .where('status', '=', 'pending')
        .where('next_attempt_at', '=', PARKED)
        .where((eb) =>
          eb.not(
            eb.exists(
              eb
                .selectFrom('webhook_subscription as s')
                .select(sql`1`.as('one'))
                .whereRef('s.id', '=', 'outbox.subscription_id')
                .where('s.status', '<>', 'active'),
            ),
          ),
        )
    if ((await waiting(db).select('seq').limit(1).executeTakeFirst()) === undefined) return
    const at = formatTimestamp(clock.now())
    await db
      .updateTable('outbox')
      .set({ next_attempt_at: at, date_updated: at })
      .where('seq', 'in', waiting(db).select('seq'))
      .execute()
  }

  /** Settles a row without an attempt (its subscription or the lead webhook is gone), or parks it. */
  async function setAside(row: OutboxRow, change: 'cancelled' | 'parked', reason: string): Promise<void> {
    const at = formatTimestamp(clock.now())
    await db
      .updateTable('outbox')
      .set(
        change === 'cancelled'
          ? { status: 'cancelled', last_error: reason, lease_until: null, date_updated: at }
          : { next_attempt_at: PARKED, lease_until: null, date_updated: at },
      )
      .where('seq', '=', row.seq)
      .where(leaseHeld(row, owner))
      .execute()
  }

  interface Target {
    url: string
    key: string
    verifyTls: boolean
    /** Why the signing key cannot be opened (sealed under another LEADLINE_SECRET_KEY): a failed attempt, no request. */
    keyProblem?: string
  }

  /** The target with its signing key opened, or with why it cannot be. */
  async function withKey(target: Omit<Target, 'key'>, key: () => Promise<string> | string): Promise<Target> {
    try {
      return { ...target, key: await key() }
    } catch (error) {
      if (!(error instanceof StoredSecretError)) throw error
      return { ...target, key: '', keyProblem: error.message }
    }
  }

  async function targetOf(row: OutboxRow): Promise<Target | undefined> {
    if (row.kind === 'lead_webhook') {
      const { url } = await readLeadWebhook(db, config.leadWebhookUrl)
      if (url === null) {
        await setAside(row, 'cancelled', 'The lead webhook was cleared before this delivery.')
        return undefined
      }
      return withKey({ url, verifyTls: true }, async () => {
        signingKey ??= await leadWebhookSigningKey(db, config.secretBox)
        return signingKey
      })
    }
    const subscription =
      row.subscription_id === null
        ? undefined
        : await db
            .selectFrom('webhook_subscription')
            .select(['url', 'signature_key', 'verify_ssl', 'status'])
            .where('organization_id', '=', row.organization_id)
            .where('id', '=', row.subscription_id)
            .executeTakeFirst()
    if (subscription === undefined) {
      await setAside(row, 'cancelled', 'The subscription was deleted before this delivery.')
      return undefined
    }
    if (subscription.status !== 'active') {
      await setAside(row, 'parked', '')
      return undefined
    }
    const id = row.subscription_id ?? ''
    return withKey({ url: subscription.url, verifyTls: subscription.verify_ssl !== 0 }, () =>
      openSecret(config.secretBox, subscription.signature_key, webhookKeyContext(id), `The signature key of ${id}`),
    )
  }

  /** When to try again after a failed attempt, or null when the row has failed for good. */
  function retryAt(row: OutboxRow, attempt: number, now: Date): Date | null {
    if (row.kind === 'lead_webhook') {
      if (attempt >= LEAD_WEBHOOK_ATTEMPTS) return null
      return new Date(now.getTime() + config.outbox.leadWebhookRetrySeconds * 1000)
    }
    const deadline = Date.parse(row.date_created) + WEBHOOK_RETRY_WINDOW_MS
    if (now.getTime() >= deadline) return null
    const delay = webhookRetryDelayMs(attempt, config.outbox.webhookRetrySeconds * 1000, random())
    return new Date(Math.min(now.getTime() + delay, deadline))
  }

  async function record(row: OutboxRow, target: Target, result: OutboundResult): Promise<void> {
    const now = clock.now()
    const at = formatTimestamp(now)
    const attempt = row.attempts + 1
    const next = result.ok ? null : retryAt(row, attempt, now)
    const nextAt = next === null ? null : formatTimestamp(next)
    const held = await db.transaction().execute(async (tx) => {
      // A lease lost (another claim took the row, or it was cancelled) records, reschedules and pauses nothing.
      if (!(await recordAttempt(tx, row, owner, { url: target.url, result, nextAt, at }))) return false
      if (nextAt !== null) {
        // The rows behind this one cannot go before it: they need not be looked at until it is tried again.
        await tx
          .updateTable('outbox')
          .set({ next_attempt_at: nextAt })
          .where('ordering_key', '=', row.ordering_key)
          .where('status', '=', 'pending')
          .where('seq', '>', row.seq)
          .where('next_attempt_at', '<', nextAt)
          .execute()
      }
      if (row.kind !== 'webhook' || row.subscription_id === null) return true
      const subscription = tx.updateTable('webhook_subscription').where('id', '=', row.subscription_id)
      if (result.ok) {
        await subscription.set({ failing_since: null }).where('failing_since', 'is not', null).execute()
        return true
      }
      await subscription.set({ failing_since: at }).where('failing_since', 'is', null).execute()
      const state = await tx
        .selectFrom('webhook_subscription')
        .select(['status', 'failing_since'])
        .where('id', '=', row.subscription_id)
        .executeTakeFirst()
      const since = state?.failing_since ?? at
      if (state?.status !== 'active' || Date.parse(since) > now.getTime() - WEBHOOK_PAUSE_AFTER_MS) return true
      await subscription
        .set({
          status: 'paused',
          status_reason: `Paused: every delivery has failed since ${since} (72 hours or more); the last one: ${result.error ?? 'no answer'}. Set the status to active to resume; the deliveries waiting will go out.`,
          date_updated: at,
        })
        .where('status', '=', 'active')
        .execute()
      return true
    })
    if (!held) leaseLost(row, result.ok ? 'delivered' : (result.error ?? 'failed'))
  }

  async function deliverWebhook(row: OutboxRow): Promise<boolean> {
    const target = await targetOf(row)
    if (target === undefined) return false
    const timestamp = Math.floor(clock.now().getTime() / 1000)
    const result =
      target.keyProblem === undefined
        ? await client.post({
            url: target.url,
            body: row.payload,
            headers: signatureHeaders(target.key, row.id, timestamp, row.payload),
            timeoutMs,
            verifyTls: target.verifyTls,
          })
        : { ok: false, statusCode: null, durationMs: 0, error: target.keyProblem }
    await record(row, target, result)
    return true
  }

  function leaseLost(row: OutboxRow, outcome: string): void {
    report(
      new Error(
        `the lease was lost before the outcome (${outcome}) could be recorded: another claim holds the row, or it was cancelled; nothing was recorded`,
      ),
      `delivering ${row.id}`,
    )
  }

  const context: HandlerContext = { owner, timeoutMs, sendTimeoutMs, random, leaseLost }
  const handlers = new Map<string, OutboxHandler>([
    ['webhook', deliverWebhook],
    ['lead_webhook', deliverWebhook],
    ...Object.entries(options.handlers ?? {}).map(([kind, make]): [string, OutboxHandler] => [kind, make(context)]),
  ])

  async function deliver(row: OutboxRow): Promise<boolean> {
    const handle = handlers.get(row.kind)
    // A kind this process cannot handle stays leased; another process may when the lease runs out.
    if (handle === undefined) throw new Error(`no handler for outbox rows of kind ${row.kind}`)
    return handle(row)
  }

  async function drain(): Promise<number> {
    let attempts = 0
    await unpark()
    for (;;) {
      const rows = await claim(config.outbox.concurrency)
      if (rows.length === 0) return attempts
      const made = await Promise.all(rows.map(deliver))
      attempts += made.filter(Boolean).length
    }
  }

  // The background loop: claims as many rows as it has free slots, and sleeps until a delivery ends, this process
  // writes rows, or the poll interval passes.
  let running = false
  let loop: Promise<void> | undefined
  const inFlight = new Set<Promise<void>>()
  const { sleep, signal } = wakeableSleep()
  let stopListening: (() => void) | undefined
  let followUp: NodeJS.Timeout | undefined

  async function run(): Promise<void> {
    let lastUnpark = 0
    while (running) {
      try {
        if (Date.now() - lastUnpark >= 5 * pollMs) {
          lastUnpark = Date.now()
          await unpark()
        }
        const free = config.outbox.concurrency - inFlight.size
        const rows = free > 0 ? await claim(free) : []
        for (const row of rows) {
          const delivery = deliver(row).then(
            () => undefined,
            (error: unknown) => {
              report(error, `delivering ${row.id}`)
            },
          )
          inFlight.add(delivery)
          void delivery.finally(() => {
            inFlight.delete(delivery)
            signal()
          })
        }
      } catch (error) {
        report(error, 'claiming deliveries')
      }
      await sleep(pollMs)
    }
  }

  return {
    owner,
    drain,
    start() {
      if (running) return
      running = true
      // Rows this process writes are visible once their transaction commits: look now, and again shortly after.
      stopListening = onOutboxWritten(() => {
        signal()
        followUp ??= setTimeout(() => {
          followUp = undefined
          signal()
        }, 50)
      })
      loop = run()
    },
    async stop() {
      running = false
      stopListening?.()
      if (followUp !== undefined) clearTimeout(followUp)
      signal()
      await loop
      await Promise.all(inFlight)
      client.close()
    },
  }
}
