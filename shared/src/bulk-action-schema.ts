import { Type, type Static } from '@sinclair/typebox'
import { timestampSchema } from './list.js'
import { BULK_ACTION_STATUSES } from './bulk-action-statuses.js'

export { BULK_ACTION_BUSY_STATUSES, BULK_ACTION_STATUSES, type BulkActionStatus } from './bulk-action-statuses.js'

// Bulk actions on leads (issue 33, decision 0057): Close's `/bulk_action/edit/` and `/bulk_action/delete/`, each a
// background job over the leads a search (or a list of ids) chooses, with its state and progress; an edit can be
// undone (a Leadline addition).

/** The edits Leadline makes of Close's: a lead status, or a lead custom field set or cleared. */
export const BULK_EDIT_TYPES = ['set_lead_status', 'set_custom_field', 'clear_custom_field'] as const
export type BulkEditType = (typeof BULK_EDIT_TYPES)[number]
export const CUSTOM_FIELD_OPERATIONS = ['replace', 'add', 'remove'] as const
export type CustomFieldOperation = (typeof CUSTOM_FIELD_OPERATIONS)[number]

/** The most leads a bulk action takes by id (`lead_ids`); a search has no such bound. */
export const BULK_LEAD_IDS_MAX = 10_000

const nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()])

const common = {
  id: Type.String(),
  organization_id: Type.String(),
  created_by: nullable(Type.String()),
  updated_by: nullable(Type.String()),
  status: Type.Union(BULK_ACTION_STATUSES.map((s) => Type.Literal(s))),
  query: nullable(Type.String({ description: 'The lead search language; null when the leads were named by id.' })),
  s_query: Type.Record(Type.String(), Type.Unknown(), { description: 'Close’s structured query, as it was sent.' }),
  sort: Type.Array(Type.Record(Type.String(), Type.Unknown()), { description: 'Always empty: the order is by id.' }),
  results_limit: nullable(Type.Integer()),
  send_done_email: Type.Boolean({ description: 'Kept as sent; Leadline sends no email when a job is done.' }),
  n_leads: nullable(Type.Integer({ description: 'The leads chosen, once the job has read them.' })),
  n_leads_processed: Type.Integer(),
  n_objects: nullable(Type.Integer()),
  n_objects_processed: Type.Integer(),
  error: nullable(Type.String({ description: 'Why the job failed (Leadline).' })),
  date_created: timestampSchema,
  date_updated: timestampSchema,
}

/** A bulk edit as `/bulk_action/edit/` answers it (Close's shape, with Leadline's additions). */
export const bulkEditSchema = Type.Object({
  ...common,
  type: Type.Union(BULK_EDIT_TYPES.map((t) => Type.Literal(t))),
  lead_status_id: nullable(Type.String()),
  custom_field_id: nullable(Type.String()),
  custom_field_name: nullable(Type.String()),
  custom_field_value: nullable(Type.String({ description: 'The value set, as text (the first, for several).' })),
  custom_field_values: nullable(Type.Array(Type.Unknown())),
  custom_field_operation: nullable(Type.Union(CUSTOM_FIELD_OPERATIONS.map((o) => Type.Literal(o)))),
  n_leads_changed: Type.Integer({ description: 'Leads the edit changed (a lead already so is left alone).' }),
  n_leads_undone: Type.Integer({ description: 'Leads an undo put back.' }),
})
export type BulkEdit = Static<typeof bulkEditSchema>

/** A bulk delete as `/bulk_action/delete/` answers it (Close's shape). */
export const bulkDeleteSchema = Type.Object({
  ...common,
  bulk_object_type: Type.Literal('lead'),
})
export type BulkDelete = Static<typeof bulkDeleteSchema>
