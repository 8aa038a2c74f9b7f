import { hostname } from 'node:os'
import { sql, type Kysely } from 'kysely'
import type { Db, Dialect, HotReader } from './database.js'
import { formatTimestamp, type Clock } from './time.js'
import { randomBase62 } from '../security/ids.js'
import { wakeableSleep } from './wakeable-sleep.js'

// Jobs a worker in each api process claims under a lease (exports, decision 0052; imports, decision 0053; bulk actions,
// decision 0057), as the outbox dispatcher claims deliveries: `lease_owner` and `lease_until` on the job's row,
// `FOR UPDATE SKIP LOCKED` on Postgres, one writer on SQLite. Every step of the work renews the lease in the transaction that writes it; a
// renewal that finds the lease taken (it ran out and another claim holds it) stops the work, writing nothing more.

/** The tables of leased jobs, and the columns of theirs the lease uses. */
type LeasedTable = 'data_export' | 'data_import' | 'bulk_action'
interface LeaseColumns {
  id: string
  status: string
  attempts: number
  lease_owner: string | null
  lease_until: string | null
  date_created: string
  date_updated: string
}
type LeaseDb = Kysely<Record<LeasedTable, LeaseColumns>>

/** The claim was taken over (its lease ran out and another claim holds it). */
export class LeaseLost extends Error {}
/** The worker is stopping: the job under way gives its lease back. */
export class Stopping extends Error {}

/** A job as one claim holds it; `until` moves on with each renewal. */
export interface Lease {
  id: string
  until: string
}

export interface LeaseKeeperOptions {
  db: Db
  dialect: Dialect
  clock: Clock
  table: LeasedTable
  leaseMs: number
  owner?: string
  /** True once the worker is stopping: the next renewal throws Stopping. */
  stopping: () => boolean
}

/** A unique name for this process's worker: host, pid and a random part. */
export function workerName(): string {
  return `${hostname()}:${String(process.pid)}:${randomBase62(8)}`.slice(-64)
}

export function createLeaseKeeper(options: LeaseKeeperOptions) {
  const { dialect, clock, table, leaseMs } = options
  const owner = options.owner ?? workerName()
  // Both tables have the lease's columns; the query is written once for either.
  const leased = (db: Db) => db as unknown as LeaseDb
  const leaseEnd = () => formatTimestamp(new Date(clock.now().getTime() + leaseMs))

  return {
    owner,

    /**
     * Claims the oldest job in one of `due` whose lease is free or ran out (moving it to `status`, if given);
     * answers its lease, or undefined when there is none.
     */
    async claim(due: readonly string[], status?: string): Promise<Lease | undefined> {
      const db = leased(options.db)
      const at = formatTimestamp(clock.now())
      let next = db
        .selectFrom(table)
        .select('id')
        .where('status', 'in', due)
        .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<=', at)]))
        .orderBy('date_created')
        .limit(1)
      // An idle poll only reads: on SQLite an update takes the write lock even when it changes nothing.
      if ((await next.executeTakeFirst()) === undefined) return undefined
      if (dialect === 'postgres') next = next.forUpdate().skipLocked()
      const until = leaseEnd()
      const claimed = await db
        .updateTable(table)
        .set({
          ...(status === undefined ? {} : { status }),
          lease_owner: owner,
          lease_until: until,
          attempts: sql<number>`attempts + 1`,
          date_updated: at,
        })
        .where('id', 'in', next.clearSelect().select('id'))
        .returning('id')
        .executeTakeFirst()
      return claimed === undefined ? undefined : { id: claimed.id, until }
    },

    /** Renews the lease in `tx` (and moves the job to `status`, if given); throws LeaseLost, or Stopping. */
    async renew(tx: Db, lease: Lease, status?: string): Promise<void> {
      if (options.stopping()) throw new Stopping()
      const until = leaseEnd()
      const renewed = await leased(tx)
        .updateTable(table)
        .set({
          lease_until: until,
          ...(status === undefined ? {} : { status }),
          date_updated: formatTimestamp(clock.now()),
        })
        .where('id', '=', lease.id)
        .where('lease_owner', '=', owner)
        .where('lease_until', '=', lease.until)
        .executeTakeFirst()
      if (Number(renewed.numUpdatedRows) === 0) throw new LeaseLost()
      lease.until = until
    },

    /** Ends the claim in `tx`, the job moved to `status`; throws LeaseLost when it is no longer held. */
    async settle(tx: Db, lease: Lease, status: string): Promise<void> {
      const settled = await leased(tx)
        .updateTable(table)
        .set({ status, lease_owner: null, lease_until: null, date_updated: formatTimestamp(clock.now()) })
        .where('id', '=', lease.id)
        .where('lease_owner', '=', owner)
        .where('lease_until', '=', lease.until)
        .executeTakeFirst()
      if (Number(settled.numUpdatedRows) === 0) throw new LeaseLost()
    },

    /** Gives a stopped job's lease back, so the next claim takes it up at once. */
    async release(lease: Lease): Promise<void> {
      await leased(options.db)
        .updateTable(table)
        .set({ lease_until: null, date_updated: formatTimestamp(clock.now()) })
        .where('id', '=', lease.id)
        .where('lease_owner', '=', owner)
        .where('lease_until', '=', lease.until)
        .execute()
    },
  }
}
export type LeaseKeeper = ReturnType<typeof createLeaseKeeper>

/**
 * Gives back every lease `owner` holds in `table`, so that the next claim takes its jobs up at once rather than when
 * their leases run out: for a worker known to be gone (a worker thread that died), never for one that may still run.
 */
export async function releaseLeasesOf(db: Db, clock: Clock, table: LeasedTable, owner: string): Promise<number> {
  const released = await (db as unknown as LeaseDb)
    .updateTable(table)
    .set({ lease_until: null, date_updated: formatTimestamp(clock.now()) })
    .where('lease_owner', '=', owner)
    .where('lease_until', 'is not', null)
    .executeTakeFirst()
  return Number(released.numUpdatedRows)
}

/**
 * A worker's background loop: `drain` does every job that can be claimed, then the loop sleeps `pollMs` or until
 * `wake` (a job was asked for in this process). `stop` ends it once the drain under way has stopped.
 */
export function createJobLoop(options: {
  drain: () => Promise<unknown>
  pollMs: number
  report: (error: unknown, what: string) => void
  what: string
}) {
  const { sleep, signal } = wakeableSleep()
  let running = false
  let stopping = false
  let loop: Promise<void> | undefined

  async function background(): Promise<void> {
    while (running) {
      try {
        await options.drain()
      } catch (error) {
        options.report(error, options.what)
      }
      await sleep(options.pollMs)
    }
  }

  return {
    wake: signal,
    stopping: () => stopping,
    start(): void {
      if (running) return
      running = true
      stopping = false
      loop = background()
    },
    async stop(): Promise<void> {
      running = false
      stopping = true
      signal()
      await loop
    },
  }
}

/** What every leased-job worker takes: the database, a clock, and how it leases, polls and batches. */
export interface JobWorkerOptions {
  db: Db
  dialect: Dialect
  reader: HotReader
  clock: Clock
  appUrl: string
  owner?: string
  leaseMs?: number
  pollMs?: number
  batchSize?: number
  onError?: (error: unknown, what: string) => void
}

/** A leased-job worker: each api process runs one for every kind of job. */
export interface JobWorker {
  readonly owner: string
  /** Does every job that can be claimed, one after another; answers how many it finished or failed. */
  drain(): Promise<number>
  /** Does jobs in the background as they are asked for, until stopped. */
  start(): void
  /** Stops: the job under way gives its lease back, to be taken up at once by the next worker that claims it. */
  stop(): Promise<void>
}

/**
 * A process's wake-up call for the workers of one kind of job: `requested()` wakes every started worker of the
 * process at once, rather than at its next poll; `worker` gives a worker its face, listening while started.
 */
export function jobRequests() {
  const listeners = new Set<() => void>()
  return {
    requested(): void {
      for (const listener of listeners) listener()
    },
    /** Calls `listener` at each request until the answered function is called (a worker on another thread). */
    listen(listener: () => void): () => void {
      listeners.add(listener)
      return () => {
        listeners.delete(listener)
      }
    },
    worker(owner: string, drain: () => Promise<number>, loop: ReturnType<typeof createJobLoop>): JobWorker {
      return {
        owner,
        drain,
        start() {
          listeners.add(loop.wake)
          loop.start()
        },
        async stop() {
          listeners.delete(loop.wake)
          await loop.stop()
        },
      }
    },
  }
}
