import { closeSync, mkdirSync, openSync } from 'node:fs'
import { dirname } from 'node:path'
import Database from 'better-sqlite3'
import {
  isSessionRow,
  type FailureBounds,
  type ProfileColumns,
  type SessionRow,
  type SessionRows,
} from './session-rows.js'

// Sessions in one SQLite file (WAL mode) that every BFF process on one data folder shares: the single-machine default.

// Another process may hold the write lock for a moment (a sign-in, a purge); wait rather than fail the request.
const BUSY_TIMEOUT_MS = 5000
const SCHEMA_VERSION = 3

/** The rows in `file`, or in this process's memory when it is undefined. */
export function openSqliteRows(file: string | undefined): SessionRows {
  const db = openDatabase(file)
  const statements = prepare(db)
  const numberOf = (row: unknown) =>
    typeof row === 'object' && row !== null && 'n' in row && typeof row.n === 'number' ? row.n : 0
  // better-sqlite3 answers at once: each method resolves with what the statement gave.
  return {
    count: async () => numberOf(statements.count.get()),
    ping: async () => {
      statements.ping.get()
    },
    insert: async (row: SessionRow) => {
      statements.insert.run(row)
    },
    select: async (idHash: string) => {
      const row = statements.select.get(idHash)
      return isSessionRow(row) ? row : undefined
    },
    touch: async (idHash: string, lastSeen: number) => {
      statements.touch.run({ id_hash: idHash, last_seen: lastSeen })
    },
    setTimeZone: async (idHash: string, timeZone: string) => {
      statements.setTimeZone.run({ id_hash: idHash, time_zone: timeZone })
    },
    updateProfile: async (idHash: string, profile: ProfileColumns) => {
      statements.updateProfile.run({ id_hash: idHash, ...profile })
    },
    delete: async (idHash: string) => {
      statements.delete.run(idHash)
    },
    deleteMember: async (organizationId: string, userId: string) =>
      statements.deleteMember.run({ organization_id: organizationId, user_id: userId }).changes,
    setMemberRole: async (organizationId: string, userId: string, role: string) => {
      statements.setMemberRole.run({ organization_id: organizationId, user_id: userId, role })
    },
    purge: async (idleBefore: number, createdBefore: number) => {
      statements.purge.run({ idle_before: idleBefore, created_before: createdBefore })
    },
    failures: async (address: string, sinceMs: number, limit: number) =>
      statements.failures
        .all({ address, since: sinceMs, limit })
        .flatMap((row) =>
          typeof row === 'object' && row !== null && 'failed_at' in row && typeof row.failed_at === 'number'
            ? [row.failed_at]
            : [],
        ),
    failureAddresses: async () => numberOf(statements.failureAddresses.get()),
    recordFailure: async (address: string, atMs: number, bounds: FailureBounds) => {
      db.transaction(() => {
        statements.insertFailure.run({ address, failed_at: atMs })
        statements.trimAddress.run({ address, keep: bounds.keep })
        statements.purgeFailures.run(bounds.sinceMs)
        statements.trimAll.run(bounds.maxRows)
      }).immediate()
    },
    purgeFailures: async (sinceMs: number) => {
      statements.purgeFailures.run(sinceMs)
    },
    close: async () => {
      if (db.open) db.close()
    },
  }
}

/**
 * Runs `step` again while SQLite answers busy, for up to the busy timeout. Two processes opening one new file at once
 * (two BFFs on one data folder, started together) can get SQLITE_BUSY at once from the switch to WAL or the schema's
 * transaction, without SQLite's busy handler being called (it will not wait where waiting could deadlock).
 */
function whileBusy<T>(step: () => T): T {
  const until = Date.now() + BUSY_TIMEOUT_MS
  const pause = new Int32Array(new SharedArrayBuffer(4))
  for (;;) {
    try {
      return step()
    } catch (error) {
      const busy = error instanceof Database.SqliteError && error.code.startsWith('SQLITE_BUSY')
      if (!busy || Date.now() >= until) throw error
      // Start-up only, before the process serves anything: a short synchronous sleep.
      Atomics.wait(pause, 0, 0, 25)
    }
  }
}

function openDatabase(file: string | undefined): Database.Database {
  if (file !== undefined) {
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 })
    // Created 0600 before SQLite opens it; SQLite gives its -wal and -shm files the same permissions.
    closeSync(openSync(file, 'a', 0o600))
  }
  const db = new Database(file ?? ':memory:')
  try {
    db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`)
    if (file !== undefined) {
      whileBusy(() => db.pragma('journal_mode = WAL'))
      // A sign-out lost to a power cut would bring the session back; a sync per commit is cheap at this rate.
      db.pragma('synchronous = FULL')
    }
    const migrate = db.transaction(() => {
      const version = db.pragma('user_version', { simple: true })
      if (version === SCHEMA_VERSION) return
      if (version !== 0 && version !== 1 && version !== 2)
        throw new Error(
          `${file ?? 'the session store'} has session schema ${String(version)}; this BFF knows ${SCHEMA_VERSION}`,
        )
      db.exec(`
        CREATE TABLE IF NOT EXISTS session (
          id_hash TEXT PRIMARY KEY,
          user_id TEXT NOT NULL,
          first_name TEXT NOT NULL,
          last_name TEXT NOT NULL,
          email TEXT NOT NULL,
          display_name TEXT NOT NULL,
          organization_id TEXT NOT NULL,
          organization_name TEXT NOT NULL,
          role TEXT NOT NULL,
          time_zone TEXT NOT NULL,
          sealed_key TEXT NOT NULL,
          created_at INTEGER NOT NULL,
          last_seen INTEGER NOT NULL
        ) STRICT;
        CREATE INDEX IF NOT EXISTS session_last_seen ON session (last_seen);
        CREATE INDEX IF NOT EXISTS session_created_at ON session (created_at);
        CREATE INDEX IF NOT EXISTS session_member ON session (organization_id, user_id);
        CREATE TABLE IF NOT EXISTS sign_in_failure (
          address TEXT NOT NULL,
          failed_at INTEGER NOT NULL
        ) STRICT;
        CREATE INDEX IF NOT EXISTS sign_in_failure_address ON sign_in_failure (address, failed_at);
        CREATE INDEX IF NOT EXISTS sign_in_failure_failed_at ON sign_in_failure (failed_at);
      `)
      db.pragma(`user_version = ${SCHEMA_VERSION}`)
    })
    whileBusy(() => {
      migrate.immediate()
    })
  } catch (error) {
    db.close()
    throw error
  }
  return db
}

function prepare(db: Database.Database) {
  return {
    count: db.prepare('SELECT count(*) AS n FROM session'),
    ping: db.prepare('SELECT 1'),
    select: db.prepare('SELECT * FROM session WHERE id_hash = ?'),
    insert: db.prepare(
      `INSERT INTO session (id_hash, user_id, first_name, last_name, email, display_name, organization_id,
         organization_name, role, time_zone, sealed_key, created_at, last_seen)
       VALUES (@id_hash, @user_id, @first_name, @last_name, @email, @display_name, @organization_id,
         @organization_name, @role, @time_zone, @sealed_key, @created_at, @last_seen)`,
    ),
    touch: db.prepare('UPDATE session SET last_seen = max(last_seen, @last_seen) WHERE id_hash = @id_hash'),
    setTimeZone: db.prepare('UPDATE session SET time_zone = @time_zone WHERE id_hash = @id_hash'),
    updateProfile: db.prepare(
      `UPDATE session SET first_name = @first_name, last_name = @last_name, email = @email,
         display_name = @display_name, organization_name = @organization_name, role = @role, time_zone = @time_zone
       WHERE id_hash = @id_hash`,
    ),
    delete: db.prepare('DELETE FROM session WHERE id_hash = ?'),
    deleteMember: db.prepare('DELETE FROM session WHERE organization_id = @organization_id AND user_id = @user_id'),
    setMemberRole: db.prepare(
      'UPDATE session SET role = @role WHERE organization_id = @organization_id AND user_id = @user_id',
    ),
    purge: db.prepare('DELETE FROM session WHERE last_seen < @idle_before OR created_at < @created_before'),
    failures: db.prepare(
      `SELECT failed_at FROM sign_in_failure WHERE address = @address AND failed_at > @since
       ORDER BY failed_at DESC LIMIT @limit`,
    ),
    failureAddresses: db.prepare('SELECT count(DISTINCT address) AS n FROM sign_in_failure'),
    insertFailure: db.prepare('INSERT INTO sign_in_failure (address, failed_at) VALUES (@address, @failed_at)'),
    trimAddress: db.prepare(
      `DELETE FROM sign_in_failure WHERE address = @address AND rowid NOT IN
         (SELECT rowid FROM sign_in_failure WHERE address = @address ORDER BY failed_at DESC LIMIT @keep)`,
    ),
    purgeFailures: db.prepare('DELETE FROM sign_in_failure WHERE failed_at <= ?'),
    // Row ids grow with each insert, so this keeps the newest rows, by the index alone rather than a count.
    trimAll: db.prepare('DELETE FROM sign_in_failure WHERE rowid <= (SELECT max(rowid) FROM sign_in_failure) - ?'),
  }
}
