// What both session databases hold, and the statements a store asks of them (session.ts has the logic).

export interface SessionRow {
  id_hash: string
  user_id: string
  first_name: string
  last_name: string
  email: string
  display_name: string
  organization_id: string
  organization_name: string
  role: string
  time_zone: string
  sealed_key: string
  created_at: number
  last_seen: number
}

/** Who a session's person is, as `updateProfile` writes it. */
export type ProfileColumns = Pick<
  SessionRow,
  'first_name' | 'last_name' | 'email' | 'display_name' | 'organization_name' | 'role' | 'time_zone'
>

/** Bounds of the failed sign-ins kept: see `SessionStore.recordSignInFailure`. */
export interface FailureBounds {
  keep: number
  sinceMs: number
  maxRows: number
}

/**
 * The rows behind a session store, in SQLite (session-sqlite.ts) or Postgres (session-postgres.ts): each method is
 * one statement, or one transaction, and knows nothing of expiry or keys.
 */
export interface SessionRows {
  count(): Promise<number>
  /** Rejects when the database does not answer. */
  ping(): Promise<void>
  insert(row: SessionRow): Promise<void>
  select(idHash: string): Promise<SessionRow | undefined>
  /** Sets `last_seen`, never backwards (another process may have written a later time). */
  touch(idHash: string, lastSeen: number): Promise<void>
  setTimeZone(idHash: string, timeZone: string): Promise<void>
  updateProfile(idHash: string, profile: ProfileColumns): Promise<void>
  delete(idHash: string): Promise<void>
  deleteMember(organizationId: string, userId: string): Promise<number>
  setMemberRole(organizationId: string, userId: string, role: string): Promise<void>
  purge(idleBefore: number, createdBefore: number): Promise<void>
  failures(address: string, sinceMs: number, limit: number): Promise<number[]>
  failureAddresses(): Promise<number>
  recordFailure(address: string, atMs: number, bounds: FailureBounds): Promise<void>
  purgeFailures(sinceMs: number): Promise<void>
  close(): Promise<void>
}

const ROW_TEXT_FIELDS = [
  'id_hash',
  'user_id',
  'first_name',
  'last_name',
  'email',
  'display_name',
  'organization_id',
  'organization_name',
  'role',
  'time_zone',
  'sealed_key',
] as const

export function isSessionRow(value: unknown): value is SessionRow {
  if (typeof value !== 'object' || value === null) return false
  const record: Record<string, unknown> = { ...value }
  return (
    ROW_TEXT_FIELDS.every((field) => typeof record[field] === 'string') &&
    typeof record.created_at === 'number' &&
    typeof record.last_seen === 'number'
  )
}

/** One statement of the store as `/metrics` counts it: the method's name, and whether it answered. */
export type RowsObserver = (operation: keyof SessionRows, result: 'ok' | 'error', seconds: number) => void

/** The same rows, each call timed for `observe` (only where metrics are kept). */
export function timedRows(rows: SessionRows, observe: RowsObserver): SessionRows {
  const timed = <K extends keyof SessionRows>(operation: K): SessionRows[K] => {
    const method = rows[operation] as (...args: unknown[]) => Promise<unknown>
    const wrapped = async (...args: unknown[]) => {
      const started = process.hrtime.bigint()
      const seconds = () => Number(process.hrtime.bigint() - started) / 1e9
      try {
        const answer = await method(...args)
        observe(operation, 'ok', seconds())
        return answer
      } catch (error) {
        observe(operation, 'error', seconds())
        throw error
      }
    }
    return wrapped as SessionRows[K]
  }
  const names = Object.keys(rows) as (keyof SessionRows)[]
  return Object.fromEntries(names.map((name) => [name, timed(name)])) as unknown as SessionRows
}
