import { sql } from 'kysely'
import type { Db, Dialect } from '../../platform/data/database.js'

// The feed of lead changes (migration 0045, decision 0061): where an organization's leads stand now, and which leads
// changed or went since a position read before. A reader that takes a position, then reads leads, and later asks
// for the changes since that position, misses none: whatever it read after the position and changed again is listed
// again, which costs a second read and nothing else.

/** A position in an organization's changes: SQLite's clock value, Postgres's snapshot (as text). */
export type ChangePosition = { dialect: 'sqlite'; seq: number } | { dialect: 'postgres'; snapshot: string }

export interface LeadChanges {
  position: ChangePosition
  /** Leads written since (created or changed); each may have gone by the time it is read. */
  changed: string[]
  /** Leads deleted since. */
  gone: string[]
}

/** Where the organization's changes stand now. */
export async function leadChangePosition(db: Db, dialect: Dialect, organizationId: string): Promise<ChangePosition> {
  if (dialect === 'postgres') {
    const { rows } = await sql<{ snapshot: string }>`select pg_current_snapshot()::text as snapshot`.execute(db)
    return { dialect, snapshot: rows[0]?.snapshot ?? '' }
  }
  const { rows } = await sql<{ seq: number | null }>`select max(
      coalesce((select max(change_seq) from lead where organization_id = ${organizationId}), 0),
      coalesce((select max(change_seq) from lead_tombstone where organization_id = ${organizationId}), 0)) as seq`.execute(
    db,
  )
  return { dialect, seq: rows[0]?.seq ?? 0 }
}

/**
 * The leads written and deleted since `since`, and the position after them: one statement, so one snapshot on
 * either database (on Postgres, the snapshot it reports is the one it read under).
 */
export async function leadChangesSince(db: Db, organizationId: string, since: ChangePosition): Promise<LeadChanges> {
  const changed: string[] = []
  const gone: string[] = []
  if (since.dialect === 'sqlite') {
    const { rows } = await sql<{ lead_id: string; seq: number; gone: number }>`
      select id as lead_id, change_seq as seq, 0 as gone from lead
        where organization_id = ${organizationId} and change_seq > ${since.seq}
      union all
      select lead_id, change_seq as seq, 1 as gone from lead_tombstone
        where organization_id = ${organizationId} and change_seq > ${since.seq}`.execute(db)
    let seq = since.seq
    for (const row of rows) {
      ;(row.gone === 1 ? gone : changed).push(row.lead_id)
      if (row.seq > seq) seq = row.seq
    }
    return { position: { dialect: 'sqlite', seq }, changed, gone }
  }
  // Written by a transaction the earlier snapshot did not see: at or above its xmin, and not visible in it.
  const before = since.snapshot
  const { rows } = await sql<{ kind: 'snapshot' | 'lead' | 'gone'; value: string }>`
    select 'snapshot' as kind, pg_current_snapshot()::text as value
    union all
    select 'lead', id from lead where organization_id = ${organizationId}
      and change_xid >= pg_snapshot_xmin(${before}::pg_snapshot)
      and not pg_visible_in_snapshot(change_xid, ${before}::pg_snapshot)
    union all
    select 'gone', lead_id from lead_tombstone where organization_id = ${organizationId}
      and change_xid >= pg_snapshot_xmin(${before}::pg_snapshot)
      and not pg_visible_in_snapshot(change_xid, ${before}::pg_snapshot)`.execute(db)
  let snapshot = before
  for (const row of rows) {
    if (row.kind === 'snapshot') snapshot = row.value
    else (row.kind === 'gone' ? gone : changed).push(row.value)
  }
  return { position: { dialect: 'postgres', snapshot }, changed, gone }
}
