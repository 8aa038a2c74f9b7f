import type { Task } from '@leadline/shared/task-schema'
import type { Db } from '../../platform/data/database.js'
import type { EventInput } from '../../integrations/events/event-repo.js'
import { organizationMetaIn, type OrganizationMeta } from '../organizations/organization-meta.js'
import { taskViews, type TaskRow } from './task-repo.js'

const TASKS_PER_STATEMENT = 500

/** A task's event: its object type names its type (`task.lead`, `task.opportunity_due`…), as Close's do. */
export function taskEvent(task: Task, action: EventInput['action']): EventInput {
  return { objectType: `task.${task._type}`, objectId: task.id, action, leadId: task.lead_id, data: task }
}

/**
 * The events that take tasks from `before` to `after` (their views by id): `created` for a new one, `deleted` for
 * one gone, `completed` for one completed by the change, else `updated` (which writes nothing if nothing changed).
 */
export function taskChangeEvents(before: Map<string, Task>, after: Map<string, Task>): EventInput[] {
  const events: EventInput[] = []
  for (const [id, previous] of before) {
    const data = after.get(id)
    if (data === undefined) events.push(taskEvent(previous, 'deleted'))
    else
      events.push({ ...taskEvent(data, data.is_complete && !previous.is_complete ? 'completed' : 'updated'), previous })
  }
  for (const [id, data] of after) if (!before.has(id)) events.push(taskEvent(data, 'created'))
  return events
}

/**
 * The `opportunity_due` tasks of the given opportunities (or of every opportunity in a status) as `tx` sees them,
 * by id: taken before and after a change, `taskChangeEvents` tells what happened to them.
 */
export async function dueTaskViews(
  tx: Db,
  organization: OrganizationMeta,
  of: { opportunityIds: string[] } | { statusId: string },
  caller: { offsetHours: number; now: Date },
): Promise<Map<string, Task>> {
  const organizationId = organization.organization.id
  const due = tx
    .selectFrom('task')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('type', '=', 'opportunity_due')
  const rows: TaskRow[] = []
  if ('statusId' in of) {
    const inStatus = tx
      .selectFrom('opportunity')
      .select('opportunity.id')
      .where('opportunity.organization_id', '=', organizationId)
      .where('opportunity.status_id', '=', of.statusId)
    rows.push(...(await due.where('object_id', 'in', inStatus).execute()))
  } else {
    for (let at = 0; at < of.opportunityIds.length; at += TASKS_PER_STATEMENT) {
      rows.push(
        ...(await due.where('object_id', 'in', of.opportunityIds.slice(at, at + TASKS_PER_STATEMENT)).execute()),
      )
    }
  }
  const views = await taskViews(tx, organization, rows, caller)
  return new Map(views.map((view) => [view.id, view]))
}

/**
 * The due tasks of every opportunity in the given statuses, built with the metadata as `tx` sees it: taken before and
 * after a status's type changes (which completes or reopens them), `taskChangeEvents` tells what happened.
 */
export async function dueTasksOfStatuses(
  tx: Db,
  organizationId: string,
  statusIds: readonly string[],
  caller: { offsetHours: number; now: Date },
): Promise<Map<string, Task>> {
  const tasks = new Map<string, Task>()
  if (statusIds.length === 0) return tasks
  const organization = await organizationMetaIn(tx, organizationId)
  if (organization === undefined) return tasks
  for (const statusId of statusIds) {
    for (const [id, task] of await dueTaskViews(tx, organization, { statusId }, caller)) tasks.set(id, task)
  }
  return tasks
}
