import { performance } from 'node:perf_hooks'
import type { Selectable } from 'kysely'
import type { Db, EventTable } from '../../platform/data/database.js'
import { AUDIT_OBJECT_TYPE } from './audit-repo.js'

// The shared reader behind the event stream (decision 0022): one feed per organization with open streams in this
// process, polling the event table by `seq` and handing each new event to every stream of the organization.

export type EventRow = Selectable<EventTable>

export interface HubOptions {
  /** How often a feed reads the table. */
  pollMs: number
  /** How often each stream gets a comment, so that idle connections (and proxies) stay open. */
  heartbeatMs: number
  /**
   * How long a transaction may take between taking an event's `seq` and committing it, and still be delivered:
   * Postgres commits out of `seq` order, so a feed re-reads this far back and sends what it has not sent yet.
   * 0 where commits come in `seq` order (SQLite has one writer at a time).
   */
  settleMs: number
  onError: (error: unknown) => void
}

export const DEFAULT_HUB_OPTIONS = { pollMs: 300, heartbeatMs: 15_000, settleMs: 10_000 } as const

/** What a feed tells one stream. */
export interface FeedListener {
  /**
   * New events in `seq` order (a late commit can be lower than one sent before). `floor`: every event of the
   * organization up to it has been handed out, by this feed or before the stream joined it.
   */
  events(rows: readonly EventRow[], floor: number): void
  heartbeat(): void
  /** The process is shutting down. */
  end(): void
}

/** The newest events a new feed takes as already seen: a transaction still open below them is not waited for. */
const START_WINDOW = 200
/** Rows fetched by one query (the ids go into an IN list). */
const FETCH_CHUNK = 500
/** After a failed read, the next one waits this long, so a database outage is not hammered (nor logged) 3 times a second. */
const RETRY_AFTER_ERROR_MS = 5000

class OrgFeed {
  readonly listeners = new Set<FeedListener>()
  /** The highest `seq` seen; 0 before the organization's first event. */
  high = 0
  /** Every event up to this `seq` is settled: committed and handed out (or there before the feed started). */
  floor = 0
  readonly ready: Promise<void>
  /** The `seq`s above the floor already handed out. */
  readonly #known = new Set<number>()
  /** The high water of each poll in the last settle window: the oldest one past it becomes the floor. */
  readonly #marks: { at: number; high: number }[] = []
  #timer: NodeJS.Timeout | undefined
  #heartbeat: NodeJS.Timeout | undefined
  #polling: Promise<void> | undefined
  #stopped = false

  constructor(
    private readonly db: Db,
    private readonly organizationId: string,
    private readonly options: HubOptions,
  ) {
    this.ready = this.#start()
  }

  async #start(): Promise<void> {
    const rows = await this.db
      .selectFrom('event')
      .select('seq')
      .where('organization_id', '=', this.organizationId)
      .orderBy('seq', 'desc')
      .limit(START_WINDOW)
      .execute()
    this.high = rows[0]?.seq ?? 0
    // Without a settle window (SQLite commits in seq order) everything there is settled already.
    if (this.options.settleMs === 0) this.floor = this.high
    else this.floor = rows.length < START_WINDOW ? 0 : (rows.at(-1)?.seq ?? 0)
    for (const row of rows) if (row.seq > this.floor) this.#known.add(row.seq)
    this.#marks.push({ at: performance.now(), high: this.high })
    if (this.#stopped) return
    this.#schedule(this.options.pollMs)
    this.#heartbeat = setInterval(() => {
      for (const listener of this.listeners) listener.heartbeat()
    }, this.options.heartbeatMs)
    this.#heartbeat.unref()
  }

  #schedule(ms: number): void {
    if (this.#stopped) return
    this.#timer = setTimeout(() => {
      this.#polling = this.#poll().then(
        () => {
          this.#schedule(this.options.pollMs)
        },
        (error: unknown) => {
          this.options.onError(error)
          this.#schedule(RETRY_AFTER_ERROR_MS)
        },
      )
    }, ms)
    this.#timer.unref()
  }

  /**
   * Reads the `seq`s above the floor (an index-only read of `(organization_id, seq)`), fetches the rows of those not
   * handed out yet, and moves the floor to the high water of the poll one settle window ago.
   */
  async #poll(): Promise<void> {
    const visible = await this.db
      .selectFrom('event')
      .select('seq')
      .where('organization_id', '=', this.organizationId)
      .where('seq', '>', this.floor)
      .orderBy('seq')
      .execute()
    const fresh = visible.map((row) => row.seq).filter((seq) => !this.#known.has(seq))
    const rows: EventRow[] = []
    for (let i = 0; i < fresh.length; i += FETCH_CHUNK) {
      rows.push(
        ...(await this.db
          .selectFrom('event')
          .selectAll()
          .where('organization_id', '=', this.organizationId)
          .where('seq', 'in', fresh.slice(i, i + FETCH_CHUNK))
          // Audit entries are admins' to read through /audit_log/ alone (decision 0073).
          .where('object_type', '!=', AUDIT_OBJECT_TYPE)
          .orderBy('seq')
          .execute()),
      )
    }
    if (this.#stopped) return
    for (const row of rows) {
      this.#known.add(row.seq)
      if (row.seq > this.high) this.high = row.seq
    }
    this.#advanceFloor()
    if (rows.length > 0) for (const listener of this.listeners) listener.events(rows, this.floor)
  }

  #advanceFloor(): void {
    const now = performance.now()
    const settled = now - this.options.settleMs
    this.#marks.push({ at: now, high: this.high })
    while (this.#marks.length > 1 && (this.#marks[1]?.at ?? now) <= settled) this.#marks.shift()
    const oldest = this.#marks[0]
    if (oldest === undefined || oldest.at > settled || oldest.high <= this.floor) return
    this.floor = oldest.high
    for (const seq of this.#known) if (seq <= this.floor) this.#known.delete(seq)
  }

  /** Stops polling; resolves once a read under way is over (the database may close after it). */
  async stop(): Promise<void> {
    this.#stopped = true
    clearTimeout(this.#timer)
    clearInterval(this.#heartbeat)
    await this.ready.catch(() => undefined)
    await this.#polling
  }
}

/** Where a feed stood when a stream joined it: the stream starts from here. */
export interface FeedPosition {
  high: number
  floor: number
}

export interface Subscription {
  /** The feed's position now: its high water and floor. */
  position(): FeedPosition
  /** Leaves the feed; the last stream of an organization to leave stops its feed. */
  leave(): void
}

/** The feeds of one process, by organization. */
export class EventHub {
  readonly #feeds = new Map<string, OrgFeed>()
  readonly #stopping = new Set<Promise<void>>()
  #closed = false

  constructor(
    private readonly db: Db,
    private readonly options: HubOptions,
  ) {}

  /**
   * Adds a listener to the organization's feed (starting one if it has none), once the feed knows where the log
   * stands. From the moment this resolves, every new event of the organization reaches the listener.
   */
  async join(organizationId: string, listener: FeedListener): Promise<Subscription> {
    if (this.#closed) throw new Error('the event hub is closed')
    let feed = this.#feeds.get(organizationId)
    if (feed === undefined) {
      feed = new OrgFeed(this.db, organizationId, this.options)
      this.#feeds.set(organizationId, feed)
    }
    const joined = feed
    joined.listeners.add(listener)
    try {
      await joined.ready
    } catch (error) {
      this.#leave(organizationId, joined, listener)
      throw error
    }
    return {
      position: () => ({ high: joined.high, floor: joined.floor }),
      leave: () => {
        this.#leave(organizationId, joined, listener)
      },
    }
  }

  get size(): number {
    return this.#feeds.size
  }

  #leave(organizationId: string, feed: OrgFeed, listener: FeedListener): void {
    feed.listeners.delete(listener)
    if (feed.listeners.size > 0 || this.#feeds.get(organizationId) !== feed) return
    this.#feeds.delete(organizationId)
    const stopped = feed.stop()
    this.#stopping.add(stopped)
    void stopped.finally(() => this.#stopping.delete(stopped))
  }

  /** Ends every stream (their connections close) and stops the feeds; resolves once no read is under way. */
  async close(): Promise<void> {
    this.#closed = true
    const feeds = [...this.#feeds.values()]
    this.#feeds.clear()
    for (const feed of feeds) for (const listener of feed.listeners) listener.end()
    await Promise.all([...feeds.map((feed) => feed.stop()), ...this.#stopping])
  }
}
