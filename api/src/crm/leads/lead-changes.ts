import { sql } from 'kysely'
import type { Db, Dialect } from '../../platform/data/database.js'

// The feed of lead changes (migration 0045, decision 0061): where an organization's leads stand now, and which leads
// changed or went since a position read before. A reader that takes a position, then reads leads, and later asks
// for the changes since that position, misses none: whatever it read after the position and changed again is listed
// again, which costs a second read and nothing else.

/**
 * A position in an organization's changes: SQLite's clock values (the leads' and, migration 0048, their
 * activities'), Postgres's snapshot (as text).
 */
export type ChangePosition =
  { dialect: 'sqlite'; seq: number; activitySeq: number } | { dialect: 'postgres'; snapshot: string }

export interface LeadChanges {
  position: ChangePosition
  /** Leads written since (created or changed); each may have gone by the time it is read. */
  changed: string[]
  /** Leads deleted since. */
  gone: string[]
  /** Leads whose activities changed since (migration 0048): added, deleted, moved, or redated. */
  active: string[]
  /**
   * False when tombstones newer than `since` were pruned (`pruneLeadTombstones`): some deletions since may be missing,
   * and the reader must read the organization anew.
   */
  complete: boolean
}

/** Where the organization's changes stand now. */
export async function leadChangePosition(db: Db, dialect: Dialect, organizationId: string): Promise<ChangePosition> {
  if (dialect === 'postgres') {
    const { rows } = await sql<{ snapshot: string }>`select pg_current_snapshot()::text as snapshot`.execute(db)
    return { dialect, snapshot: rows[0]?.snapshot ?? '' }
  }
  const { rows } = await sql<{ seq: number | null; activity_seq: number | null }>`select max(
      coalesce((select max(change_seq) from lead where organization_id = ${organizationId}), 0),
      coalesce((select max(change_seq) from lead_tombstone where organization_id = ${organizationId}), 0)) as seq,
    coalesce((select max(change_seq) from lead_activity_change where organization_id = ${organizationId}), 0)
      as activity_seq`.execute(db)
  return { dialect, seq: rows[0]?.seq ?? 0, activitySeq: rows[0]?.activity_seq ?? 0 }
}

/**
 * The leads written and deleted since `since`, and the position after them: one statement, so one snapshot on
 * either database (on Postgres, the snapshot it reports is the one it read under).
 */
export async function leadChangesSince(db: Db, organizationId: string, since: ChangePosition): Promise<LeadChanges> {
  const changed: string[] = []
  const gone: string[] = []
  const active: string[] = []
  if (since.dialect === 'sqlite') {
    const { rows } = await sql<{ lead_id: string; seq: number; gone: number }>`
      select id as lead_id, change_seq as seq, 0 as gone from lead
        where organization_id = ${organizationId} and change_seq > ${since.seq}
      union all
      select lead_id, change_seq as seq, 1 as gone from lead_tombstone
        where organization_id = ${organizationId} and change_seq > ${since.seq}
      union all
      select '', change_seq, 2 from lead_tombstone_pruned
        where organization_id = ${organizationId} and change_seq > ${since.seq}
      union all
      select lead_id, change_seq, 3 from lead_activity_change
        where organization_id = ${organizationId} and change_seq > ${since.activitySeq}`.execute(db)
    let seq = since.seq
    let activitySeq = since.activitySeq
    let complete = true
    for (const row of rows) {
      if (row.gone === 3) {
        active.push(row.lead_id)
        if (row.seq > activitySeq) activitySeq = row.seq
        continue
      }
      if (row.gone === 2) complete = false
      else (row.gone === 1 ? gone : changed).push(row.lead_id)
      if (row.seq > seq) seq = row.seq
    }
    return { position: { dialect: 'sqlite', seq, activitySeq }, changed, gone, active, complete }
  }
  // Written by a transaction the earlier snapshot did not see: at or above its xmin, and not visible in it.
  const before = since.snapshot
  const { rows } = await sql<{ kind: 'snapshot' | 'lead' | 'gone' | 'pruned' | 'active'; value: string }>`
    select 'snapshot' as kind, pg_current_snapshot()::text as value
    union all
    select 'lead', id from lead where organization_id = ${organizationId}
      and change_xid >= pg_snapshot_xmin(${before}::pg_snapshot)
      and not pg_visible_in_snapshot(change_xid, ${before}::pg_snapshot)
    union all
    select 'gone', lead_id from lead_tombstone where organization_id = ${organizationId}
      and change_xid >= pg_snapshot_xmin(${before}::pg_snapshot)
      and not pg_visible_in_snapshot(change_xid, ${before}::pg_snapshot)
    union all
    select 'pruned', '' from lead_tombstone_pruned where organization_id = ${organizationId}
      and change_xid >= pg_snapshot_xmin(${before}::pg_snapshot)
    union all
    select 'active', lead_id from lead_activity_change where organization_id = ${organizationId}
      and change_xid >= pg_snapshot_xmin(${before}::pg_snapshot)
      and not pg_visible_in_snapshot(change_xid, ${before}::pg_snapshot)`.execute(db)
  let snapshot = before
  let complete = true
  for (const row of rows) {
    if (row.kind === 'snapshot') snapshot = row.value
    else if (row.kind === 'pruned') complete = false
    else (row.kind === 'gone' ? gone : row.kind === 'active' ? active : changed).push(row.value)
  }
  return { position: { dialect: 'postgres', snapshot }, changed, gone, active, complete }
}

/** How long a deleted lead's tombstone is kept: an index that has not caught up for longer is built anew. */
export const TOMBSTONE_RETENTION_DAYS = 1
const DAY_MS = 86_400_000

/**
 * Deletes the tombstones of leads deleted over `days` days ago, in every organization, but for each organization's
 * newest (the SQLite clock reads it), and records how far each organization's were pruned; answers how many went.
 * Also deletes the activity marks (migration 0048) of leads that are gone.
 * One transaction: a reader sees the tombstones or the watermark that stands for them.
 */
export async function pruneLeadTombstones(db: Db, dialect: Dialect, now: Date, days: number): Promise<number> {
  const before = new Date(now.getTime() - days * DAY_MS)
  // SQLite's clock values, or Postgres's transactions; SQLite's date_deleted is strftime's '%Y-%m-%dT%H:%M:%fZ',
  // toISOString's form, and Postgres's a timestamptz.
  const column = sql.raw(dialect === 'sqlite' ? 'change_seq' : 'change_xid')
  const larger = sql.raw(dialect === 'sqlite' ? 'max' : 'greatest')
  const cutoff = dialect === 'sqlite' ? sql`${before.toISOString()}` : sql`${before.toISOString()}::timestamptz`
  return db.transaction().execute(async (tx) => {
    await sql`insert into lead_tombstone_pruned (organization_id, ${column})
      select organization_id, max(${column}) from lead_tombstone t
        where date_deleted < ${cutoff} and ${column} <
          (select max(${column}) from lead_tombstone newest where newest.organization_id = t.organization_id)
        group by organization_id
      on conflict (organization_id) do update
        set ${column} = ${larger}(lead_tombstone_pruned.${column}, excluded.${column})`.execute(tx)
    const result = await sql`delete from lead_tombstone where ${column} <=
      (select p.${column} from lead_tombstone_pruned p where p.organization_id = lead_tombstone.organization_id)`.execute(
      tx,
    )
    // The marks of deleted leads' activities (their tombstones tell a reader they went), but for each organization's
    // newest, which SQLite's activity clock reads.
    await sql`delete from lead_activity_change
      where not exists (select 1 from lead where lead.id = lead_activity_change.lead_id)
        and ${column} < (select max(newest.${column}) from lead_activity_change newest
          where newest.organization_id = lead_activity_change.organization_id)`.execute(tx)
    return Number(result.numAffectedRows ?? 0)
  })
}
