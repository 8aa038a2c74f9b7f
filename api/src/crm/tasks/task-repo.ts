import { formatOpportunityValue, type ValuePeriod } from '@leadline/shared/money'
import { taskViewAt } from '@leadline/shared/task-dates'
import { isTaskType, TASK_OBJECT_TYPES, TASK_TYPE_FIELDS, type Task, type TaskType } from '@leadline/shared/task-schema'
import type { Insertable, Selectable, Updateable } from 'kysely'
import type { Db, TaskTable } from '../../platform/data/database.js'
import type { OrganizationMeta } from '../organizations/organization-meta.js'
import { newId } from '../../platform/security/ids.js'
import { relatedNames } from '../users/owner-names.js'
import { parseJsonObject } from '../../platform/http/raw-json.js'
import { findInOrganization } from '../../platform/data/find-or-404.js'
import { createdStamps } from '../../platform/data/stamps.js'

export type TaskRow = Selectable<TaskTable>

/** `lock` takes a row lock until the transaction ends (Postgres only: SQLite has no FOR UPDATE). */
export async function findTask(db: Db, organizationId: string, id: string, options: { lock?: boolean } = {}) {
  return findInOrganization(db, 'task', organizationId, id, options)
}

/** Changes some columns of a task, stamping who changed it (null: the system) and when. */
export async function updateTask(
  db: Db,
  organizationId: string,
  id: string,
  changes: Updateable<TaskTable>,
  by: { userId: string | null; now: string },
): Promise<void> {
  await db
    .updateTable('task')
    .set({ ...changes, updated_by: by.userId, date_updated: by.now })
    .where('organization_id', '=', organizationId)
    .where('id', '=', id)
    .execute()
}

/** The open tasks of some leads, in no particular order: a lead orders them in its caller's zone (lead-view.ts). */
export async function openTasksOfLeads(db: Db, organizationId: string, leadIds: string[]): Promise<TaskRow[]> {
  if (leadIds.length === 0) return []
  return db
    .selectFrom('task')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('lead_id', 'in', leadIds)
    .where('is_complete', '=', 0)
    .execute()
}

export interface NewTask {
  organizationId: string
  leadId: string
  type: TaskType
  assignedTo: string | null
  contactId: string | null
  text?: string
  /** Date-only or a wire timestamp; null for a dateless task, which then carries `today`. */
  date: string | null
  today: string
  isComplete?: boolean
  objectId?: string | null
  /** The fields of the task's type (TASK_TYPE_FIELDS), as its view shows them. */
  data?: Record<string, unknown>
  userId: string | null
  now: string
}

/** The stored form of a task's date: its wire text, whether it has a time, whether it is dateless. */
export function dateColumns(date: string | null, today: string) {
  return {
    date: date ?? today,
    has_time: date !== null && date.includes('T') ? 1 : 0,
    is_dateless: date === null ? 1 : 0,
  }
}

/** The row of a new task, its id made here (several go in one insert when the system makes many at once). */
export function newTaskRow(input: NewTask): Insertable<TaskTable> {
  const complete = input.isComplete === true
  return {
    id: newId(input.type === 'lead' ? 'task' : 'notification'),
    organization_id: input.organizationId,
    lead_id: input.leadId,
    type: input.type,
    assigned_to: input.assignedTo,
    contact_id: input.contactId,
    text: input.text ?? '',
    ...dateColumns(input.date, input.today),
    is_complete: complete ? 1 : 0,
    date_completed: complete ? input.now : null,
    completion_id: null,
    object_type: TASK_OBJECT_TYPES[input.type],
    object_id: input.objectId ?? null,
    data: JSON.stringify(input.data ?? {}),
    ...createdStamps(input.userId, input.now),
  }
}

/** Inserts a task of any type (the system's types come from opportunities, calls, emails and texts). */
export async function insertTask(db: Db, input: NewTask): Promise<string> {
  const row = newTaskRow(input)
  await db.insertInto('task').values(row).execute()
  return row.id
}

interface DueOpportunity {
  status_id: string
  value: number | string | null
  value_period: ValuePeriod
  value_currency: string
  note: string
}

/** The fields a task of this type shows besides the common ones. */
function typeFields(
  row: TaskRow,
  opportunities: Map<string, DueOpportunity>,
  meta: OrganizationMeta,
): Record<string, unknown> {
  const type: string = row.type
  if (type === 'lead') return { text: row.text }
  if (type === 'opportunity_due') {
    const opportunity = row.object_id === null ? undefined : opportunities.get(row.object_id)
    const value = opportunity?.value === undefined || opportunity.value === null ? null : Number(opportunity.value)
    const status = opportunity === undefined ? undefined : meta.opportunityStatuses.get(opportunity.status_id)
    return {
      opportunity_value: value,
      opportunity_value_currency: opportunity?.value_currency ?? null,
      opportunity_value_formatted:
        opportunity === undefined
          ? null
          : formatOpportunityValue(value, opportunity.value_currency, opportunity.value_period),
      opportunity_value_period: opportunity?.value_period ?? null,
      opportunity_note: opportunity?.note ?? null,
      // Not in Close's table: the inbox shows where the deal stands beside what it is worth.
      opportunity_status_id: status === undefined ? null : (opportunity?.status_id ?? null),
      opportunity_status_label: status?.label ?? null,
      opportunity_status_type: status?.type ?? null,
    }
  }
  const data = parseJsonObject(row.data)
  const fields: Record<string, unknown> = {}
  for (const field of isTaskType(type) ? TASK_TYPE_FIELDS[type] : []) {
    fields[field] =
      field === 'text' ? row.text : (data[field] ?? (field === 'emails' || field === 'attachments' ? [] : null))
  }
  return fields
}

/**
 * The wire form of tasks for a caller at `offsetHours` at `now` (each task's `view` is where it is for them): member
 * names from the organization's metadata; lead, contact and due opportunities read once for all the rows. `leadNames`
 * saves reading the names of leads the caller already holds.
 */
export async function taskViews(
  db: Db,
  meta: OrganizationMeta,
  rows: TaskRow[],
  caller: { offsetHours: number; now: Date },
  leadNames?: Map<string, string | null>,
): Promise<Task[]> {
  if (rows.length === 0) return []
  const organizationId = meta.organization.id
  const opportunityIds = [
    ...new Set(rows.flatMap((r) => (r.type === 'opportunity_due' && r.object_id !== null ? [r.object_id] : []))),
  ]
  const [names, opportunities] = await Promise.all([
    relatedNames(
      db,
      meta,
      {
        leads: rows.map((r) => r.lead_id),
        contacts: rows.map((r) => r.contact_id),
        users: rows.flatMap((r) => [r.assigned_to, r.created_by, r.updated_by]),
      },
      leadNames,
    ),
    opportunityIds.length === 0
      ? []
      : db
          .selectFrom('opportunity')
          .select(['id', 'status_id', 'value', 'value_period', 'value_currency', 'note'])
          .where('organization_id', '=', organizationId)
          .where('id', 'in', opportunityIds)
          .execute(),
  ])
  const dueOpportunities = new Map(opportunities.map((o) => [o.id, o as DueOpportunity]))
  const name = (id: string | null) => (id === null ? null : (names.users.get(id) ?? null))
  return rows.map((row): Task => {
    const isComplete = row.is_complete === 1
    const isDateless = row.is_dateless === 1
    // A completed lead task points at the TaskCompleted its completion recorded, as Close's does.
    const completed = row.type === 'lead' && isComplete && row.completion_id !== null
    return {
      id: row.id,
      _type: row.type,
      view: taskViewAt(
        { is_complete: isComplete, is_dateless: isDateless, date: row.date },
        caller.offsetHours,
        caller.now,
      ),
      organization_id: row.organization_id,
      lead_id: row.lead_id,
      lead_name: names.leads.get(row.lead_id) ?? null,
      contact_id: row.contact_id,
      contact_name: row.contact_id === null ? null : (names.contacts.get(row.contact_id) ?? null),
      assigned_to: row.assigned_to,
      assigned_to_name: name(row.assigned_to),
      date: row.date,
      due_date: isDateless ? null : row.date,
      is_dateless: isDateless,
      is_complete: isComplete,
      object_type: completed ? 'taskcompleted' : row.object_type,
      object_id: completed ? row.completion_id : row.object_id,
      ...typeFields(row, dueOpportunities, meta),
      created_by: row.created_by,
      created_by_name: name(row.created_by),
      updated_by: row.updated_by,
      updated_by_name: name(row.updated_by),
      date_created: row.date_created,
      date_updated: row.date_updated,
      // Not in Close's task: when it was completed (null while open), for the archive's order and headings.
      date_completed: row.date_completed,
    }
  })
}
