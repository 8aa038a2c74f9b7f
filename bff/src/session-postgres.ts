import pg from 'pg'
import {
  isSessionRow,
  type FailureBounds,
  type ProfileColumns,
  type SessionRow,
  type SessionRows,
} from './session-rows.js'

// Sessions in Postgres (`LEADLINE_BFF_SESSION_URL`), for BFF processes on several machines: the same rows as the
// SQLite file, in their own schema, so the URL may name the api's database or one of their own (decision 0075).

const SCHEMA = 'leadline_bff'
const SCHEMA_VERSION = 1
/** Connections per BFF process: a proxied request holds one for a single indexed read. */
const POOL_SIZE = 10
/** A statement that takes longer fails the request rather than holding it: the store is a few indexed rows. */
const STATEMENT_TIMEOUT_MS = 5000
const CONNECT_TIMEOUT_MS = 5000
/** Makes the tables once, even when several BFF processes start together. */
const SCHEMA_LOCK = 7_214_650_331

const SESSION_COLUMNS =
  'id_hash, user_id, first_name, last_name, email, display_name, organization_id, organization_name, role, ' +
  'time_zone, sealed_key, created_at, last_seen'
// Epoch milliseconds are bigint columns, which pg gives as text; as doubles they are exact for 285,000 years.
const SELECTED_COLUMNS = SESSION_COLUMNS.replace(
  'created_at, last_seen',
  'created_at::float8 AS created_at, last_seen::float8 AS last_seen',
)

/** Named statements: each connection prepares one once, then sends only its name and values. */
const SQL = {
  count: `SELECT count(*)::int AS n FROM ${SCHEMA}.session`,
  select: `SELECT ${SELECTED_COLUMNS} FROM ${SCHEMA}.session WHERE id_hash = $1`,
  insert: `INSERT INTO ${SCHEMA}.session (${SESSION_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`,
  touch: `UPDATE ${SCHEMA}.session SET last_seen = greatest(last_seen, $2) WHERE id_hash = $1`,
  setTimeZone: `UPDATE ${SCHEMA}.session SET time_zone = $2 WHERE id_hash = $1`,
  updateProfile: `UPDATE ${SCHEMA}.session SET first_name = $2, last_name = $3, email = $4, display_name = $5,
    organization_name = $6, role = $7, time_zone = $8 WHERE id_hash = $1`,
  delete: `DELETE FROM ${SCHEMA}.session WHERE id_hash = $1`,
  deleteMember: `DELETE FROM ${SCHEMA}.session WHERE organization_id = $1 AND user_id = $2`,
  setMemberRole: `UPDATE ${SCHEMA}.session SET role = $3 WHERE organization_id = $1 AND user_id = $2`,
  purge: `DELETE FROM ${SCHEMA}.session WHERE last_seen < $1 OR created_at < $2`,
  failures: `SELECT failed_at::float8 AS failed_at FROM ${SCHEMA}.sign_in_failure WHERE address = $1 AND failed_at > $2
    ORDER BY failed_at DESC LIMIT $3`,
  failureAddresses: `SELECT count(DISTINCT address)::int AS n FROM ${SCHEMA}.sign_in_failure`,
  insertFailure: `INSERT INTO ${SCHEMA}.sign_in_failure (address, failed_at) VALUES ($1, $2)`,
  trimAddress: `DELETE FROM ${SCHEMA}.sign_in_failure WHERE address = $1 AND id NOT IN
    (SELECT id FROM ${SCHEMA}.sign_in_failure WHERE address = $1 ORDER BY failed_at DESC, id DESC LIMIT $2)`,
  purgeFailures: `DELETE FROM ${SCHEMA}.sign_in_failure WHERE failed_at <= $1`,
  // Ids grow with each insert, so this keeps the newest rows, by the primary key alone rather than a count.
  trimAll: `DELETE FROM ${SCHEMA}.sign_in_failure WHERE id <= (SELECT max(id) FROM ${SCHEMA}.sign_in_failure) - $1`,
} as const

type StatementName = keyof typeof SQL

const SCHEMA_DDL = `
  CREATE SCHEMA IF NOT EXISTS ${SCHEMA};
  CREATE TABLE IF NOT EXISTS ${SCHEMA}.schema_version (version integer NOT NULL);
  CREATE TABLE IF NOT EXISTS ${SCHEMA}.session (
    id_hash text PRIMARY KEY,
    user_id text NOT NULL,
    first_name text NOT NULL,
    last_name text NOT NULL,
    email text NOT NULL,
    display_name text NOT NULL,
    organization_id text NOT NULL,
    organization_name text NOT NULL,
    role text NOT NULL,
    time_zone text NOT NULL,
    sealed_key text NOT NULL,
    created_at bigint NOT NULL,
    last_seen bigint NOT NULL
  );
  CREATE INDEX IF NOT EXISTS session_last_seen ON ${SCHEMA}.session (last_seen);
  CREATE INDEX IF NOT EXISTS session_created_at ON ${SCHEMA}.session (created_at);
  CREATE INDEX IF NOT EXISTS session_member ON ${SCHEMA}.session (organization_id, user_id);
  CREATE TABLE IF NOT EXISTS ${SCHEMA}.sign_in_failure (
    id bigserial PRIMARY KEY,
    address text NOT NULL,
    failed_at bigint NOT NULL
  );
  CREATE INDEX IF NOT EXISTS sign_in_failure_address ON ${SCHEMA}.sign_in_failure (address, failed_at);
  CREATE INDEX IF NOT EXISTS sign_in_failure_failed_at ON ${SCHEMA}.sign_in_failure (failed_at);
`

/** Connects, makes or checks the schema, and answers the rows; rejects with a clear message when it cannot. */
export async function openPostgresRows(url: string): Promise<SessionRows> {
  const pool = new pg.Pool({
    connectionString: url,
    max: POOL_SIZE,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    statement_timeout: STATEMENT_TIMEOUT_MS,
    idleTimeoutMillis: 30_000,
  })
  // A connection that breaks while idle is dropped from the pool; the next query opens another, and `/readyz` says
  // when none can be opened. Without a listener the error would end the process.
  pool.on('error', () => undefined)
  try {
    await migrate(pool)
  } catch (error) {
    await pool.end()
    throw new Error(`the session database (LEADLINE_BFF_SESSION_URL) cannot be used: ${messageOf(error)}`)
  }
  return rowsOf(pool)
}

async function migrate(pool: pg.Pool): Promise<void> {
  const client = await pool.connect()
  try {
    await client.query('BEGIN')
    await client.query('SELECT pg_advisory_xact_lock($1)', [SCHEMA_LOCK])
    await client.query(SCHEMA_DDL)
    const { rows } = await client.query<{ version: number }>(`SELECT version FROM ${SCHEMA}.schema_version`)
    const version = rows[0]?.version
    if (version !== undefined && version > SCHEMA_VERSION)
      throw new Error(`it has session schema ${String(version)}; this BFF knows ${String(SCHEMA_VERSION)}`)
    if (version === undefined)
      await client.query(`INSERT INTO ${SCHEMA}.schema_version (version) VALUES ($1)`, [SCHEMA_VERSION])
    await client.query('COMMIT')
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined)
    throw error
  } finally {
    client.release()
  }
}

function rowsOf(pool: pg.Pool): SessionRows {
  const run = (queryable: pg.Pool | pg.PoolClient, name: StatementName, values: unknown[] = []) =>
    queryable.query<Record<string, unknown>>({ name: `leadline_bff_${name}`, text: SQL[name], values })
  const numberOf = (result: pg.QueryResult<Record<string, unknown>>) => {
    const n = result.rows[0]?.n
    return typeof n === 'number' ? n : 0
  }
  return {
    count: async () => numberOf(await run(pool, 'count')),
    ping: async () => {
      await pool.query('SELECT 1')
    },
    insert: async (row: SessionRow) => {
      await run(pool, 'insert', [
        row.id_hash,
        row.user_id,
        row.first_name,
        row.last_name,
        row.email,
        row.display_name,
        row.organization_id,
        row.organization_name,
        row.role,
        row.time_zone,
        row.sealed_key,
        row.created_at,
        row.last_seen,
      ])
    },
    select: async (idHash: string) => {
      const row: unknown = (await run(pool, 'select', [idHash])).rows[0]
      return isSessionRow(row) ? row : undefined
    },
    touch: async (idHash: string, lastSeen: number) => {
      await run(pool, 'touch', [idHash, lastSeen])
    },
    setTimeZone: async (idHash: string, timeZone: string) => {
      await run(pool, 'setTimeZone', [idHash, timeZone])
    },
    updateProfile: async (idHash: string, profile: ProfileColumns) => {
      await run(pool, 'updateProfile', [
        idHash,
        profile.first_name,
        profile.last_name,
        profile.email,
        profile.display_name,
        profile.organization_name,
        profile.role,
        profile.time_zone,
      ])
    },
    delete: async (idHash: string) => {
      await run(pool, 'delete', [idHash])
    },
    deleteMember: async (organizationId: string, userId: string) =>
      (await run(pool, 'deleteMember', [organizationId, userId])).rowCount ?? 0,
    setMemberRole: async (organizationId: string, userId: string, role: string) => {
      await run(pool, 'setMemberRole', [organizationId, userId, role])
    },
    purge: async (idleBefore: number, createdBefore: number) => {
      await run(pool, 'purge', [idleBefore, createdBefore])
    },
    failures: async (address: string, sinceMs: number, limit: number) =>
      (await run(pool, 'failures', [address, sinceMs, limit])).rows.flatMap((row) =>
        typeof row.failed_at === 'number' ? [row.failed_at] : [],
      ),
    failureAddresses: async () => numberOf(await run(pool, 'failureAddresses')),
    recordFailure: async (address: string, atMs: number, bounds: FailureBounds) => {
      const client = await pool.connect()
      try {
        await client.query('BEGIN')
        await run(client, 'insertFailure', [address, atMs])
        await run(client, 'trimAddress', [address, bounds.keep])
        await run(client, 'purgeFailures', [bounds.sinceMs])
        await run(client, 'trimAll', [bounds.maxRows])
        await client.query('COMMIT')
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined)
        throw error
      } finally {
        client.release()
      }
    },
    purgeFailures: async (sinceMs: number) => {
      await run(pool, 'purgeFailures', [sinceMs])
    },
    close: async () => {
      if (!pool.ended) await pool.end()
    },
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}
