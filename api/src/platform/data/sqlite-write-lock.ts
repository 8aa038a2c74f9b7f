import {
  CompiledQuery,
  SqliteDialect,
  type DatabaseConnection,
  type Driver,
  type QueryResult,
  type SqliteDialectConfig,
} from 'kysely'

// One writer at a time between the api's SQLite connection and the import thread's (decision 0053). SQLite lets one
// connection write at a time, and a connection that waits for another does so inside a synchronous call: the api's
// event loop would stop for as long as an import's batch holds the database, and its busy handler, polling, could
// miss every gap between batches until its timeout and fail the request. Both sides take this lock instead, kept in
// memory the two threads share: the api waits for it without blocking its event loop, and the import thread never
// takes it while the api is waiting, so the api's writes go in between two batches. Reads take no lock: in WAL mode
// they see the last commit and never wait for a writer.

/** Who holds the lock: nobody, the api's connection, or the import thread's. */
const FREE = 0
export type WriteLockParty = 'api' | 'import'
const PARTY: Record<WriteLockParty, number> = { api: 1, import: 2 }
/** Slots of the shared array: who holds the lock, and whether the api waits for it. */
const HOLDER = 0
const API_WAITING = 1
/** How long one wait lasts before the lock is looked at again (a notify wakes it sooner). */
const WAIT_MS = 50

/** Node 20 has `Atomics.waitAsync`; TypeScript types it from lib ES2024, above the project's ES2023. */
const waitAsync = (
  Atomics as unknown as {
    waitAsync: (
      array: Int32Array,
      index: number,
      value: number,
      timeoutMs: number,
    ) => { async: false; value: string } | { async: true; value: Promise<string> }
  }
).waitAsync

/** The memory the two threads share: made by the api, given to the import thread in its `workerData`. */
export function createWriteLockBuffer(): SharedArrayBuffer {
  return new SharedArrayBuffer(2 * Int32Array.BYTES_PER_ELEMENT)
}

export interface WriteLock {
  acquire(): Promise<void>
  release(): void
  /** Frees the lock if `party` holds it: the import thread died holding it (its transaction rolled back with it). */
  releaseIfHeldBy(party: WriteLockParty): void
}

export function writeLock(buffer: SharedArrayBuffer, party: WriteLockParty): WriteLock {
  const slots = new Int32Array(buffer)
  const me = PARTY[party]
  const free = () => {
    Atomics.store(slots, HOLDER, FREE)
    Atomics.notify(slots, HOLDER)
  }
  return {
    async acquire() {
      if (party === 'api') Atomics.add(slots, API_WAITING, 1)
      try {
        for (;;) {
          const yielding = party === 'import' && Atomics.load(slots, API_WAITING) > 0
          if (!yielding && Atomics.compareExchange(slots, HOLDER, FREE, me) === FREE) return
          const holder = Atomics.load(slots, HOLDER)
          // Wait until the holder changes (or a while, when yielding to the api with the lock free).
          const waited = waitAsync(slots, HOLDER, holder, WAIT_MS)
          if (waited.async) await waited.value
        }
      } finally {
        if (party === 'api') Atomics.sub(slots, API_WAITING, 1)
      }
    },
    release() {
      if (Atomics.load(slots, HOLDER) === me) free()
    },
    releaseIfHeldBy(holder) {
      if (Atomics.compareExchange(slots, HOLDER, PARTY[holder], FREE) === PARTY[holder]) Atomics.notify(slots, HOLDER)
    },
  }
}

/** Whether a statement writes, by SQLite's own reading of it (better-sqlite3's `readonly`, not whether it returns rows). */
export type IsWrite = (sql: string) => boolean

/**
 * Kysely's SQLite dialect with the write lock taken around every transaction and every statement that writes outside
 * one. Kysely keeps the one connection to one query or transaction at a time; this adds the other thread.
 */
export class LockedSqliteDialect extends SqliteDialect {
  readonly #lock: WriteLock
  readonly #isWrite: IsWrite

  constructor(config: SqliteDialectConfig, lock: WriteLock, isWrite: IsWrite) {
    super(config)
    this.#lock = lock
    this.#isWrite = isWrite
  }

  override createDriver(): Driver {
    return new LockedDriver(super.createDriver(), this.#lock, this.#isWrite)
  }
}

class LockedDriver implements Driver {
  readonly #inner: Driver
  readonly #lock: WriteLock
  readonly #isWrite: IsWrite
  #inTransaction = false
  #connection: { inner: DatabaseConnection; wrapped: DatabaseConnection } | undefined

  constructor(inner: Driver, lock: WriteLock, isWrite: IsWrite) {
    this.#inner = inner
    this.#lock = lock
    this.#isWrite = isWrite
  }

  init(): Promise<void> {
    return this.#inner.init()
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    const inner = await this.#inner.acquireConnection()
    // SQLite's driver has one connection: one wrapper stands for it.
    if (this.#connection?.inner !== inner) {
      this.#connection = {
        inner,
        wrapped: {
          executeQuery: async <R>(query: CompiledQuery): Promise<QueryResult<R>> => {
            if (this.#inTransaction || !this.#isWrite(query.sql)) return inner.executeQuery<R>(query)
            await this.#lock.acquire()
            try {
              return await inner.executeQuery<R>(query)
            } finally {
              this.#lock.release()
            }
          },
          streamQuery: <R>(query: CompiledQuery, chunkSize?: number) => inner.streamQuery<R>(query, chunkSize),
        },
      }
    }
    return this.#connection.wrapped
  }

  async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await this.#lock.acquire()
    try {
      // IMMEDIATE: SQLite's write lock at once, waited for (busy_timeout) if a writer outside this lock holds it (a
      // `leadline` command on the same file). A deferred transaction that read first would instead fail at its first
      // write, at once, whenever another connection wrote in between.
      await this.#innerOf(connection).executeQuery(CompiledQuery.raw('begin immediate'))
      this.#inTransaction = true
    } catch (error) {
      this.#lock.release()
      throw error
    }
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    try {
      await this.#inner.commitTransaction(this.#innerOf(connection))
    } finally {
      this.#ended()
    }
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    try {
      await this.#inner.rollbackTransaction(this.#innerOf(connection))
    } finally {
      this.#ended()
    }
  }

  async savepoint(...args: Parameters<NonNullable<Driver['savepoint']>>): Promise<void> {
    const [connection, ...rest] = args
    await this.#inner.savepoint?.(this.#innerOf(connection), ...rest)
  }

  async rollbackToSavepoint(...args: Parameters<NonNullable<Driver['rollbackToSavepoint']>>): Promise<void> {
    const [connection, ...rest] = args
    await this.#inner.rollbackToSavepoint?.(this.#innerOf(connection), ...rest)
  }

  async releaseSavepoint(...args: Parameters<NonNullable<Driver['releaseSavepoint']>>): Promise<void> {
    const [connection, ...rest] = args
    await this.#inner.releaseSavepoint?.(this.#innerOf(connection), ...rest)
  }

  releaseConnection(connection: DatabaseConnection): Promise<void> {
    return this.#inner.releaseConnection(this.#innerOf(connection))
  }

  destroy(): Promise<void> {
    return this.#inner.destroy()
  }

  #ended(): void {
    this.#inTransaction = false
    this.#lock.release()
  }

  /** The driver's own connection behind the wrapper Kysely was given. */
  #innerOf(connection: DatabaseConnection): DatabaseConnection {
    return connection === this.#connection?.wrapped ? this.#connection.inner : connection
  }
}
