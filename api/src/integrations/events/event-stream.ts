import { createHash, timingSafeEqual } from 'node:crypto'
import { PassThrough } from 'node:stream'
import { Type } from '@sinclair/typebox'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyRequest } from 'fastify'
import { sseComment, sseMessage } from '@leadline/shared/sse'
import { STREAM_SECRET_HEADER } from '@leadline/shared/stream-secret'
import type { KeyOwner } from '../../platform/security/api-key-repo.js'
import type { Db } from '../../platform/data/database.js'
import type { PlatformDeps } from '../../platform/deps.js'
import { ForbiddenError, ValidationError } from '../../platform/http/errors.js'
import { presentedKey } from '../../platform/http/platform.js'
import { caller } from '../../platform/http/request-context.js'
import { AUDIT_OBJECT_TYPE } from './audit-repo.js'
import { DEFAULT_HUB_OPTIONS, EventHub, type EventRow, type HubOptions, type Subscription } from './event-hub.js'
import { decodeCursor, encodeCursor, eventView } from './event-routes.js'
import { metrics } from '../../platform/metrics.js'

// `GET /event/stream/`: the organization's events as server-sent events, for trusted callers (decision 0022).

/** How long EventSource waits before reconnecting after the connection drops. */
const RETRY_MS = 2000
/** Rows per catch-up read after a `Last-Event-ID`. */
const CATCH_UP_BATCH = 500
/** A client that has not read this much is too slow to follow: it is cut off and resumes with its last id. */
const MAX_UNREAD_BYTES = 4 * 1024 * 1024

const streamQuery = Type.Object({
  last_event_id: Type.Optional(
    Type.String({ description: 'Resume after this id, for clients that cannot send the `Last-Event-ID` header.' }),
  ),
})

/** Where a stream stands: the `seq` of the last event sent, and the floor below which all had been sent. */
interface Position {
  seq: number
  floor: number
}

function idOf(organizationId: string, position: Position): string {
  return encodeCursor({ organizationId, seq: position.seq, direction: 'previous', floor: position.floor })
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest()
}

/** Admins may stream; any other key only with the secret the BFF shares with the API. */
function mayStream(request: FastifyRequest, me: KeyOwner, secret: string | undefined): boolean {
  if (me.role === 'admin') return true
  const presented = request.headers[STREAM_SECRET_HEADER]
  if (secret === undefined || typeof presented !== 'string') return false
  // Compared as digests: equal lengths whatever was sent, and no early exit on the first differing byte.
  return timingSafeEqual(digest(presented), digest(secret))
}

/** The position a resuming client names, from the header (what EventSource sends) or else the query string. */
function resumeFrom(request: FastifyRequest, query: string | undefined, organizationId: string) {
  const header = request.headers['last-event-id']
  if (typeof header === 'string' && header !== '') return decodeId(header, organizationId, 'Last-Event-ID')
  if (query !== undefined && query !== '') return decodeId(query, organizationId, 'last_event_id')
  return undefined
}

function decodeId(raw: string, organizationId: string, field: string): Position {
  const cursor = decodeCursor(raw.trim(), organizationId, field, 'stream id')
  if (cursor.direction !== 'previous') throw ValidationError.field(field, 'Not a stream id of this event list.')
  return { seq: cursor.seq, floor: cursor.floor ?? cursor.seq }
}

/** Whether the log still holds the event a stream id names: if it went (retention), events after it may have too. */
async function stillKept(db: Db, organizationId: string, position: Position): Promise<boolean> {
  if (position.seq === 0) return true
  const row = await db
    .selectFrom('event')
    .select('seq')
    .where('organization_id', '=', organizationId)
    .where('seq', '=', position.seq)
    .executeTakeFirst()
  return row !== undefined
}

/**
 * One client's stream: it joins the organization's feed first and holds back what the feed sends while it catches
 * up from its `Last-Event-ID`, then sends that too (what catch-up already sent is not sent twice).
 */
class EventStream {
  readonly body = new PassThrough()
  #subscription: Subscription | undefined
  /** Feed deliveries held back during catch-up. */
  #held: { rows: readonly EventRow[]; floor: number }[] | undefined = []
  /** The `seq`s catch-up sent above the feed's floor: a late commit may come from catch-up and the feed both. */
  readonly #sent = new Set<number>()
  #closed = false

  constructor(
    private readonly organizationId: string,
    /** Whether the caller may still stream (a revoked key, or a demoted admin without the secret, may not). */
    private readonly stillAllowed: () => Promise<boolean>,
    private readonly onClose: () => void,
  ) {
    metrics.streamOpened()
    this.body.once('close', () => {
      this.#close()
    })
  }

  /** Joins the organization's feed; what it sends is held back until `begin` has sent the first messages. */
  async join(hub: EventHub): Promise<void> {
    this.#subscription = await hub.join(this.organizationId, {
      events: (rows, floor) => {
        if (this.#held !== undefined) this.#held.push({ rows, floor })
        else this.#sendLive(rows, floor)
      },
      heartbeat: () => {
        this.#write(sseComment('heartbeat'))
        this.stillAllowed().then(
          (allowed) => {
            if (!allowed) this.body.end()
          },
          () => undefined,
        )
      },
      end: () => {
        this.body.end()
      },
    })
    if (this.#closed) this.#subscription.leave()
  }

  /**
   * The first messages: a fresh stream (or one told to reset) gets the id of where the log stands, so that even a
   * client that has seen no event yet can resume; a resumed one gets what it missed, then the held-back events.
   */
  async begin(db: Db, resume: Position | undefined, reset: boolean): Promise<void> {
    const subscription = this.#subscription
    if (subscription === undefined) throw new Error('join the feed first')
    const now = subscription.position()
    const here = idOf(this.organizationId, { seq: now.high, floor: now.floor })
    this.#write(sseMessage({ retryMs: RETRY_MS }))
    if (resume === undefined) {
      this.#write(sseMessage({ id: here }))
    } else if (reset) {
      const reason = 'Events after the given id are no longer kept: read the current state again.'
      this.#write(sseMessage({ event: 'reset', id: here, data: JSON.stringify({ reason }) }))
    } else {
      await this.#catchUp(db, resume, subscription)
    }
    const held = this.#held ?? []
    this.#held = undefined
    for (const delivery of held) this.#sendLive(delivery.rows, delivery.floor)
  }

  /** Every event after the resumed position's floor, in `seq` order, read in batches as the client takes them. */
  async #catchUp(db: Db, resume: Position, subscription: Subscription): Promise<void> {
    let after = resume.floor
    for (;;) {
      // Read before the rows: everything up to the feed's floor had committed by then, so the rows hold it.
      const settled = subscription.position().floor
      const rows = await db
        .selectFrom('event')
        .selectAll()
        .where('organization_id', '=', this.organizationId)
        .where('seq', '>', after)
        .where('object_type', '!=', AUDIT_OBJECT_TYPE)
        .orderBy('seq')
        .limit(CATCH_UP_BATCH)
        .execute()
      for (const row of rows) {
        if (this.#closed) return
        // Only what the feed may still hand out needs remembering.
        if (row.seq > settled) this.#sent.add(row.seq)
        const floor = Math.max(resume.floor, Math.min(row.seq, settled))
        if (!this.#write(this.#eventText(row, floor))) await this.#drained()
      }
      const last = rows.at(-1)
      if (last === undefined || rows.length < CATCH_UP_BATCH) return
      after = last.seq
    }
  }

  #sendLive(rows: readonly EventRow[], floor: number): void {
    // An event's id may not claim the events after it in the same delivery: they have not been sent yet.
    for (const row of rows) if (!this.#sent.has(row.seq)) this.#write(this.#eventText(row, Math.min(floor, row.seq)))
    for (const seq of this.#sent) if (seq <= floor) this.#sent.delete(seq)
  }

  #eventText(row: EventRow, floor: number): string {
    return sseMessage({
      id: idOf(this.organizationId, { seq: row.seq, floor }),
      data: JSON.stringify(eventView(row)),
    })
  }

  /** Writes unless closed; a client that stopped reading is cut off. Answers false when it should be waited for. */
  #write(text: string): boolean {
    if (this.#closed) return true
    if (this.body.writableLength > MAX_UNREAD_BYTES) {
      this.body.destroy()
      return true
    }
    return this.body.write(text)
  }

  #drained(): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        this.body.off('drain', done)
        this.body.off('close', done)
        resolve()
      }
      this.body.once('drain', done)
      this.body.once('close', done)
    })
  }

  #close(): void {
    if (this.#closed) return
    this.#closed = true
    metrics.streamClosed()
    this.#subscription?.leave()
    this.onClose()
  }
}

/** Timings a test may shorten. */
export type EventStreamTimings = Partial<Pick<HubOptions, 'pollMs' | 'heartbeatMs' | 'settleMs'>>

export const eventStreamRoutes: FastifyPluginAsyncTypebox<PlatformDeps & { timings?: EventStreamTimings }> = async (
  app,
  { db, dialect, config, auth, timings },
) => {
  const hub = new EventHub(db, {
    ...DEFAULT_HUB_OPTIONS,
    // SQLite has one writer: events commit in `seq` order, and nothing needs re-reading.
    ...(dialect === 'sqlite' ? { settleMs: 0 } : {}),
    ...timings,
    onError: (error) => {
      app.log.error({ err: error }, 'reading the event log for the event stream failed')
    },
  })
  const open = new Set<EventStream>()
  // Before the server stops taking connections: an open stream would otherwise hold the shutdown until its deadline.
  app.addHook('preClose', async () => {
    for (const stream of open) stream.body.end()
    await hub.close()
  })

  app.get(
    '/event/stream/',
    {
      schema: {
        tags: ['events'],
        summary: "The organization's events as server-sent events, for trusted callers",
        description:
          'Each message is one event as `GET /event/{id}/` answers it; its `id` resumes the stream after it (send it ' +
          'back as `Last-Event-ID`, or `last_event_id`). Open to admins, and to any key of the organization sent with ' +
          '`X-Leadline-Stream-Secret` (the `LEADLINE_STREAM_SECRET` the BFF shares). An id older than the event ' +
          'retention starts the stream with an `event: reset` message. Comments every 15 s keep it open.',
        querystring: streamQuery,
      },
    },
    async (request, reply) => {
      const me = caller(request)
      if (!mayStream(request, me, config.streamSecret))
        throw new ForbiddenError('The event stream is for admins, and for services that send X-Leadline-Stream-Secret.')
      const resume = resumeFrom(request, request.query.last_event_id, me.organizationId)
      const reset = resume !== undefined && !(await stillKept(db, me.organizationId, resume))
      const key = presentedKey(request)
      const stillAllowed = async () => {
        const owner = key === undefined ? undefined : await auth.verify(key)
        return owner !== undefined && mayStream(request, owner, config.streamSecret)
      }
      const stream = new EventStream(me.organizationId, stillAllowed, () => open.delete(stream))
      open.add(stream)
      try {
        await stream.join(hub)
      } catch (error) {
        stream.body.destroy()
        throw error
      }
      // Sent before catch-up starts: catch-up writes only as fast as the client reads.
      void reply
        .header('content-type', 'text/event-stream; charset=utf-8')
        .header('cache-control', 'no-store')
        .header('x-accel-buffering', 'no')
        // Once a stream ends, so does its connection: it was never going to carry another request soon.
        .header('connection', 'close')
        .send(stream.body)
      stream.begin(db, resume, reset).catch((error: unknown) => {
        request.log.error({ err: error }, 'catching up the event stream failed')
        stream.body.destroy()
      })
      return reply
    },
  )
}
