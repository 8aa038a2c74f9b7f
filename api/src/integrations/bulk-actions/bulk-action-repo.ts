import type { Selectable } from 'kysely'
import type { BulkDelete, BulkEdit } from '@leadline/shared/bulk-action-schema'
import type { BulkActionTable, Db } from '../../platform/data/database.js'
import type { KeyOwner } from '../../platform/security/api-key-repo.js'
import { newId } from '../../platform/security/ids.js'
import { formatTimestamp, type Clock } from '../../platform/data/time.js'
import { BULK_ACTION_BUSY_STATUSES } from '@leadline/shared/bulk-action-statuses'
import type { EditParams, Selection } from './bulk-action-input.js'

export type BulkActionRow = Selectable<BulkActionTable>
export type BulkKind = BulkActionTable['kind']

/** The states of a job under way: a purge leaves it alone whatever its age. */
const BULK_BUSY = [...BULK_ACTION_BUSY_STATUSES, 'paused']

/**
 * The bulk actions of one kind a caller may see: a member their own, an admin every one of the organization's.
 * Another organization's, or a colleague's to a member, are not there (a 404, never a 403).
 */
export function visibleBulkActions(db: Db, me: KeyOwner, kind: BulkKind) {
  const mine = db
    .selectFrom('bulk_action')
    .selectAll()
    .where('organization_id', '=', me.organizationId)
    .where('kind', '=', kind)
  return me.role === 'admin' ? mine : mine.where('created_by', '=', me.userId)
}

export async function findVisibleBulkAction(
  db: Db,
  me: KeyOwner,
  kind: BulkKind,
  id: string,
): Promise<BulkActionRow | undefined> {
  return visibleBulkActions(db, me, kind).where('id', '=', id).executeTakeFirst()
}

export async function insertBulkAction(
  db: Db,
  fields: {
    kind: BulkKind
    me: KeyOwner
    selection: Selection
    edit: EditParams | null
    tzOffsetHours: number
    now: string
  },
): Promise<BulkActionRow> {
  const { selection, me, now } = fields
  return db
    .insertInto('bulk_action')
    .values({
      id: newId(fields.kind === 'edit' ? 'bulkEdit' : 'bulkDelete'),
      organization_id: me.organizationId,
      kind: fields.kind,
      type: fields.edit?.type ?? null,
      created_by: me.userId,
      updated_by: me.userId,
      query: selection.query,
      s_query: selection.s_query === null ? null : JSON.stringify(selection.s_query),
      lead_ids: selection.lead_ids === null ? null : JSON.stringify(selection.lead_ids),
      results_limit: selection.results_limit,
      params: JSON.stringify(fields.edit ?? {}),
      tz_offset: fields.tzOffsetHours,
      send_done_email: selection.send_done_email ? 1 : 0,
      status: 'created',
      n_leads: null,
      n_leads_processed: 0,
      n_leads_changed: 0,
      n_leads_undone: 0,
      cursor: 0,
      undo_cursor: '',
      error: null,
      attempts: 0,
      lease_owner: null,
      lease_until: null,
      date_created: now,
      date_updated: now,
    })
    .returningAll()
    .executeTakeFirstOrThrow()
}

function commonView(row: BulkActionRow) {
  return {
    id: row.id,
    organization_id: row.organization_id,
    created_by: row.created_by,
    updated_by: row.updated_by,
    status: row.status as BulkEdit['status'],
    query: row.query,
    s_query: row.s_query === null ? {} : (JSON.parse(row.s_query) as Record<string, unknown>),
    sort: [],
    results_limit: row.results_limit,
    send_done_email: row.send_done_email === 1,
    n_leads: row.n_leads,
    n_leads_processed: row.n_leads_processed,
    n_objects: row.n_leads,
    n_objects_processed: row.n_leads_processed,
    error: row.error,
    date_created: row.date_created,
    date_updated: row.date_updated,
  }
}

export function bulkEditView(row: BulkActionRow): BulkEdit {
  const edit = JSON.parse(row.params) as EditParams
  const values = edit.type === 'set_custom_field' ? edit.values : null
  return {
    ...commonView(row),
    type: edit.type,
    lead_status_id: edit.type === 'set_lead_status' ? edit.lead_status_id : null,
    custom_field_id: edit.type === 'set_lead_status' ? null : edit.custom_field_id,
    custom_field_name: edit.type === 'set_lead_status' ? null : edit.custom_field_name,
    custom_field_value: values === null || values[0] === undefined ? null : String(values[0]),
    custom_field_values: values,
    custom_field_operation: edit.type === 'set_custom_field' ? edit.operation : null,
    n_leads_changed: row.n_leads_changed,
    n_leads_undone: row.n_leads_undone,
  }
}

export function bulkDeleteView(row: BulkActionRow): BulkDelete {
  return { ...commonView(row), bulk_object_type: 'lead' }
}

/**
 * Deletes bulk actions (with their leads and what an edit replaced) made over `days` days ago and no longer under way:
 * an edit that old can no longer be undone. One job a transaction, since a job may name a great many leads.
 */
export async function purgeOldBulkActions(db: Db, clock: Clock, days: number): Promise<number> {
  const before = formatTimestamp(new Date(clock.now().getTime() - days * 86_400_000))
  let deleted = 0
  for (;;) {
    const old = await db
      .selectFrom('bulk_action')
      .select('id')
      .where('date_created', '<', before)
      .where('status', 'not in', BULK_BUSY)
      .limit(1)
      .executeTakeFirst()
    if (old === undefined) return deleted
    await db.transaction().execute(async (tx) => {
      await tx.deleteFrom('bulk_action_change').where('action_id', '=', old.id).execute()
      await tx.deleteFrom('bulk_action_lead').where('action_id', '=', old.id).execute()
      await tx.deleteFrom('bulk_action').where('id', '=', old.id).execute()
    })
    deleted += 1
  }
}
