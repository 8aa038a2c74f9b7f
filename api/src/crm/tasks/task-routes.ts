import { Type } from '@sinclair/typebox'
import { LIST_LIMIT_DEFAULT } from '@leadline/shared/list'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyRequest } from 'fastify'
import { sql } from 'kysely'
import { isTaskType, TASK_TYPES, taskSchema, type Task } from '@leadline/shared/task-schema'
import { activityEvents, newActivityRow } from '../activities/activity-repo.js'
import { checkContactOfLead } from '../contacts/contact-repo.js'
import { DATE_OR_TIMESTAMP, parseDayOrInstant } from '../../platform/data/calendar-dates.js'
import type { ActivityTable, Db } from '../../platform/data/database.js'
import { eventContext, recordEvents } from '../../integrations/events/event-repo.js'
import { taskChangeEvents, taskEvent } from './task-events.js'
import { findLead } from '../leads/lead-repo.js'
import type { OrganizationMeta } from '../organizations/organization-meta.js'
import type { Deps } from '../deps.js'
import { ValidationError } from '../../platform/http/errors.js'
import { crudSchemas } from '../../platform/http/crud-routes.js'
import { fetchPage } from '../../platform/http/list.js'
import { parseFields } from '../../platform/http/fields.js'
import { caller, callerToday } from '../../platform/http/request-context.js'
import { formatTimestamp } from '../../platform/data/time.js'
import { taskConditions, taskFilters, taskListQuery, taskOrder, withinDateWindow } from './task-list.js'
import { dateColumns, findTask, insertTask, taskViews, updateTask, type TaskRow } from './task-repo.js'
import { found } from '../../platform/data/find-or-404.js'

const tags = ['tasks']
const schemas = crudSchemas(tags, taskSchema, { writeFields: false, deleteAnswer: false })
const TEXT_MAX = 10_000
const nullableString = () => Type.Union([Type.String(), Type.Null()])
const dateSchema = Type.Union([Type.String(), Type.Null()], {
  description: 'Date-only (YYYY-MM-DD) or an ISO 8601 timestamp; null for a dateless task.',
})

const createBody = Type.Object(
  {
    _type: Type.Optional(Type.String({ description: 'Only `lead` tasks can be created (the default).' })),
    lead_id: Type.Optional(Type.String()),
    assigned_to: Type.Optional(Type.String({ description: 'A member; default the caller.' })),
    contact_id: Type.Optional(nullableString()),
    text: Type.Optional(Type.String({ maxLength: TEXT_MAX })),
    date: Type.Optional(dateSchema),
    due_date: Type.Optional({ ...dateSchema, description: 'Deprecated: `date`.' }),
    is_complete: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false, description: 'Read-only fields (`id`, `view`, `created_by`, …) are ignored.' },
)
const updateBody = Type.Object(
  {
    assigned_to: Type.Optional(Type.String()),
    contact_id: Type.Optional(nullableString()),
    text: Type.Optional(Type.String({ maxLength: TEXT_MAX, description: 'Only on `lead` tasks.' })),
    date: Type.Optional(dateSchema),
    due_date: Type.Optional({ ...dateSchema, description: 'Deprecated: `date`.' }),
    is_complete: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false, description: 'Only the fields sent change.' },
)
const BULK_FIELDS = ['assigned_to', 'date', 'due_date', 'is_complete'] as const
const bulkBody = Type.Record(Type.String(), Type.Unknown(), {
  description:
    '`assigned_to`, `date` and `is_complete` only; filters may also come under `_params`. Every matched task ' +
    'changes, or none does.',
})

/** A task date from a body: a calendar day or a timestamp (normalized); null stays null. */
function parseTaskDate(value: string | null, field: string, errors: Record<string, string>): string | null | undefined {
  if (value === null) return null
  const parsed = parseDayOrInstant(value.trim())
  if (parsed === undefined) errors[field] = DATE_OR_TIMESTAMP
  return parsed === undefined ? undefined : 'day' in parsed ? parsed.day : parsed.instant
}

/**
 * A dateless task reads as Close's does: `date` its day of creation, `due_date` null, `is_dateless` true. A body
 * carrying exactly that is the task sent back as it was read (a script that changed its text), not a date to set:
 * taken as one, the task would turn overdue. A date set on purpose comes without a null `due_date` beside it.
 */
function isDatelessAsRead(
  task: Pick<TaskRow, 'is_dateless' | 'date'>,
  body: { date?: string | null; due_date?: string | null; is_dateless?: unknown },
): boolean {
  return task.is_dateless === 1 && body.date === task.date && body.due_date === null && body.is_dateless !== false
}

function checkAssignee(meta: OrganizationMeta, value: unknown, errors: Record<string, string>): string | undefined {
  if (typeof value !== 'string') {
    errors.assigned_to = 'Must be a string.'
    return undefined
  }
  if (!meta.memberNames.has(value)) {
    errors.assigned_to = 'Not a member of this organization.'
    return undefined
  }
  return value
}

export interface Completion {
  organizationId: string
  userId: string
  now: string
}

/** How many tasks one statement completes or reopens in a bulk update (well within both databases' limits). */
const TASKS_PER_STATEMENT = 500

/**
 * Marks tasks complete (recording a TaskCompleted on each one's lead) or open again (the TaskCompleted stays), a
 * few statements per 500 tasks. A task that already is so is left alone.
 */
async function setComplete(db: Db, tasks: TaskRow[], complete: boolean, ctx: Completion): Promise<ActivityTable[]> {
  const changing = tasks.filter((task) => (task.is_complete === 1) !== complete)
  const completions: ActivityTable[] = []
  for (let at = 0; at < changing.length; at += TASKS_PER_STATEMENT) {
    const chunk = changing.slice(at, at + TASKS_PER_STATEMENT)
    const ids = chunk.map((task) => task.id)
    const touched = db.updateTable('task').where('organization_id', '=', ctx.organizationId).where('id', 'in', ids)
    if (!complete) {
      await touched
        .set({ is_complete: 0, date_completed: null, updated_by: ctx.userId, date_updated: ctx.now })
        .execute()
      continue
    }
    const activities = chunk.map((task) =>
      newActivityRow({
        organizationId: ctx.organizationId,
        leadId: task.lead_id,
        contactId: task.contact_id,
        userId: ctx.userId,
        type: 'TaskCompleted',
        taskId: task.id,
        data: { task_id: task.id, task_text: task.text },
        now: ctx.now,
      }),
    )
    await db.insertInto('activity').values(activities).execute()
    completions.push(...activities)
    // Each task points at its own TaskCompleted: a CASE over the chunk's ids.
    const completion = sql<string>`case ${sql.ref('id')} ${sql.join(
      activities.map((a) => sql`when ${a.task_id} then ${a.id}`),
      sql` `,
    )} end`
    await touched
      .set({
        is_complete: 1,
        date_completed: ctx.now,
        completion_id: completion,
        updated_by: ctx.userId,
        date_updated: ctx.now,
      })
      .execute()
  }
  return completions
}

export const taskRoutes: FastifyPluginAsyncTypebox<Deps> = async (app, { db, dialect, clock, meta }) => {
  /** The caller, the time once, the completion context and the organization's metadata of a write. */
  async function writeContext(request: FastifyRequest) {
    const me = caller(request)
    const now = clock.now()
    const ctx: Completion = { organizationId: me.organizationId, userId: me.userId, now: formatTimestamp(now) }
    return { me, now, ctx, organization: await meta.require(me.organizationId) }
  }

  function callerAt(request: FastifyRequest, now: Date) {
    return { offsetHours: request.tzOffsetHours, now }
  }

  /** Tasks' API views, by id: an event's data is the object as the API returns it. */
  async function viewsOf(tx: Db, request: FastifyRequest, organization: OrganizationMeta, rows: TaskRow[], now: Date) {
    const views = await taskViews(tx, organization, rows, callerAt(request, now))
    return new Map(views.map((view) => [view.id, view]))
  }

  /** The tasks' views as `tx` sees them now, read again after a change. */
  async function viewsIn(tx: Db, request: FastifyRequest, organization: OrganizationMeta, ids: string[], now: Date) {
    const rows: TaskRow[] = []
    for (let at = 0; at < ids.length; at += TASKS_PER_STATEMENT) {
      const chunk = ids.slice(at, at + TASKS_PER_STATEMENT)
      rows.push(
        ...(await tx
          .selectFrom('task')
          .selectAll()
          .where('organization_id', '=', organization.organization.id)
          .where('id', 'in', chunk)
          .execute()),
      )
    }
    return viewsOf(tx, request, organization, rows, now)
  }

  /**
   * The events of tasks changed in `tx` (`completed` when one was completed by the change, else `updated`); answers
   * the tasks' views after the change.
   */
  async function recordTaskChanges(
    tx: Db,
    request: FastifyRequest,
    organization: OrganizationMeta,
    before: Map<string, Task>,
    now: Date,
    completions: ActivityTable[],
  ): Promise<Map<string, Task>> {
    const after = await viewsIn(tx, request, organization, [...before.keys()], now)
    const events = [...taskChangeEvents(before, after), ...(await activityEvents(tx, completions, 'created'))]
    await recordEvents(tx, eventContext(request, formatTimestamp(now)), events)
    return after
  }

  async function oneView(request: FastifyRequest, id: string) {
    const me = caller(request)
    const row = found(await findTask(db, me.organizationId, id), 'Task')
    const [view] = await taskViews(db, await meta.require(me.organizationId), [row], callerAt(request, clock.now()))
    return view
  }

  /**
   * The tasks the filters select, as a query on `source` (the caller's transaction, for a bulk update); `raw` holds
   * the query string's (or `_params`') values. `filtered` tells whether any filter was given at all.
   */
  function selected(
    request: FastifyRequest,
    organization: OrganizationMeta,
    raw: Record<string, string | undefined>,
    now: Date,
  ) {
    const { conditions, filtered } = taskConditions(raw, {
      meta: organization,
      offsetHours: request.tzOffsetHours,
      now,
    })
    const query = (source: Db) => {
      let q = source.selectFrom('task').selectAll().where('organization_id', '=', organization.organization.id)
      for (const condition of conditions) q = q.where(condition)
      return q
    }
    return { query, filtered }
  }

  app.get(
    '/task/',
    schemas.listBy(
      'List tasks: the inbox, future and archive views in the caller’s time zone (X-TZ-Offset)',
      taskListQuery,
    ),
    async (request) => {
      const me = caller(request)
      const organization = await meta.require(me.organizationId)
      const raw = request.query as Record<string, string | undefined>
      const now = clock.now()
      const { query } = selected(request, organization, raw, now)
      const rows = (request.query._skip ?? 0) + (request.query._limit ?? LIST_LIMIT_DEFAULT)
      const ordered = taskOrder(request.query._order_by, dialect, request.tzOffsetHours).reduce(
        (q, term) => q.orderBy(term),
        withinDateWindow(query(db), request.query._order_by, dialect, rows),
      )
      if (parseFields(request.query._fields)?.every((field) => field === 'id') === true) {
        // Ids alone (the header's inbox count asks for up to 999): the same rows in the same order, no views built.
        // The projection of `_fields` keeps no more of a whole view than this.
        const ids = await fetchPage(ordered.clearSelect().select('task.id'), request.query)
        return { has_more: ids.has_more, data: ids.data as Task[] }
      }
      const page = await fetchPage(ordered, request.query)
      return { has_more: page.has_more, data: await taskViews(db, organization, page.data, callerAt(request, now)) }
    },
  )

  app.get('/task/:id/', schemas.get('One task'), async (request) => oneView(request, request.params.id))

  app.post(
    '/task/',
    schemas.create(
      {
        summary: 'Create a lead task (answers 200)',
        description: 'Other types are made by the system: an opportunity’s due date, calls, emails and texts.',
      },
      createBody,
    ),
    async (request) => {
      const body = request.body
      const { me, now, ctx, organization } = await writeContext(request)
      return db.transaction().execute(async (tx) => {
        const errors: Record<string, string> = {}
        const type = body._type ?? 'lead'
        if (type !== 'lead') {
          errors._type = isTaskType(type)
            ? `Only lead tasks can be created; ${type} tasks are made by the system.`
            : `${JSON.stringify(type)} is not one of ${TASK_TYPES.join(', ')}.`
        }
        // Close's own key, `lead`, for the lead a body names (or fails to).
        const lead = body.lead_id === undefined ? undefined : await findLead(tx, me.organizationId, body.lead_id)
        if (body.lead_id === undefined) errors.lead = 'This field is required.'
        else if (lead === undefined) errors.lead = 'Object does not exist.'
        const assignedTo =
          body.assigned_to === undefined ? me.userId : checkAssignee(organization, body.assigned_to, errors)
        const contactId = body.contact_id ?? null
        await checkContactOfLead(tx, me.organizationId, body.lead_id, contactId, errors)
        const dateField = body.date !== undefined ? 'date' : 'due_date'
        const date = parseTaskDate(body.date ?? body.due_date ?? null, dateField, errors)
        if (Object.keys(errors).length > 0 || lead === undefined) throw new ValidationError(errors)
        const taskId = await insertTask(tx, {
          organizationId: me.organizationId,
          leadId: lead.id,
          type: 'lead',
          assignedTo: assignedTo ?? me.userId,
          contactId,
          text: body.text ?? '',
          date: date ?? null,
          today: callerToday(request, now),
          userId: me.userId,
          now: ctx.now,
        })
        const row = body.is_complete === true ? await findTask(tx, me.organizationId, taskId) : undefined
        const completions = row === undefined ? [] : await setComplete(tx, [row], true, ctx)
        const created = found((await viewsIn(tx, request, organization, [taskId], now)).get(taskId), 'Task')
        await recordEvents(tx, eventContext(request, ctx.now), [
          taskEvent(created, 'created'),
          ...(await activityEvents(tx, completions, 'created')),
        ])
        // The answer is the view the event holds: the task as this transaction made it.
        return created
      })
    },
  )

  app.put(
    '/task/:id/',
    schemas.update(
      'Update a task: `assigned_to`, `date`, `is_complete` on every type; `text` on lead tasks',
      updateBody,
    ),
    async (request) => {
      const body = request.body
      const { me, now, ctx, organization } = await writeContext(request)
      return db.transaction().execute(async (tx) => {
        const task = found(
          await findTask(tx, me.organizationId, request.params.id, { lock: dialect === 'postgres' }),
          'Task',
        )
        const before = await viewsOf(tx, request, organization, [task], now)
        const errors: Record<string, string> = {}
        const changes: Partial<TaskRow> = {}
        if (body.assigned_to !== undefined) {
          const assignee = checkAssignee(organization, body.assigned_to, errors)
          if (assignee !== undefined) changes.assigned_to = assignee
        }
        if (body.text !== undefined) {
          if (task.type === 'lead') changes.text = body.text
          // Another type's text is the system's: sent back as it was read, it is no change.
          else if (body.text !== task.text)
            errors.text = `Only lead tasks have a text to change; this is a ${task.type} task.`
        }
        if (body.contact_id !== undefined) {
          await checkContactOfLead(tx, me.organizationId, task.lead_id, body.contact_id, errors)
          changes.contact_id = body.contact_id
        }
        if ((body.date !== undefined || body.due_date !== undefined) && !isDatelessAsRead(task, body)) {
          const field = body.date !== undefined ? 'date' : 'due_date'
          const date = parseTaskDate(body.date !== undefined ? body.date : (body.due_date ?? null), field, errors)
          if (date !== undefined) Object.assign(changes, dateColumns(date, callerToday(request, now)))
        }
        if (Object.keys(errors).length > 0) throw new ValidationError(errors)
        if (Object.keys(changes).length > 0) await updateTask(tx, me.organizationId, task.id, changes, ctx)
        const completions =
          body.is_complete === undefined ? [] : await setComplete(tx, [{ ...task, ...changes }], body.is_complete, ctx)
        const after = found(
          (await recordTaskChanges(tx, request, organization, before, now, completions)).get(task.id),
          'Task',
        )
        return after
      })
    },
  )

  app.put(
    '/task/',
    {
      schema: {
        tags,
        summary: 'Bulk-update the tasks the filters select (as GET /task/ takes them): answers {"ok": true}',
        description:
          'Only `assigned_to`, `date` and `is_complete` may be set. A bulk update without any filter is refused.',
        querystring: Type.Object(taskFilters.properties),
        body: bulkBody,
        response: { 200: Type.Object({ ok: Type.Boolean() }) },
      },
    },
    async (request) => {
      const body = request.body
      const { me, now, ctx, organization } = await writeContext(request)
      const errors: Record<string, string> = {}
      const raw = taskFilters.withParams(request.query, body._params, errors)
      for (const key of Object.keys(body)) {
        if (key !== '_params' && !BULK_FIELDS.includes(key as (typeof BULK_FIELDS)[number])) {
          errors[key] = 'Only assigned_to, date and is_complete can be set in bulk.'
        }
      }
      const changes: Partial<TaskRow> = {}
      if (body.assigned_to !== undefined) {
        const assignee = checkAssignee(organization, body.assigned_to, errors)
        if (assignee !== undefined) changes.assigned_to = assignee
      }
      const dateValue = body.date !== undefined ? body.date : body.due_date
      if (dateValue !== undefined) {
        const field = body.date !== undefined ? 'date' : 'due_date'
        if (dateValue !== null && typeof dateValue !== 'string') errors[field] = 'Must be a string.'
        else {
          const date = parseTaskDate(dateValue, field, errors)
          if (date !== undefined) Object.assign(changes, dateColumns(date, callerToday(request, now)))
        }
      }
      if (body.is_complete !== undefined && typeof body.is_complete !== 'boolean')
        errors.is_complete = 'Must be a boolean.'
      if (Object.keys(errors).length > 0) throw new ValidationError(errors)
      const { query, filtered } = selected(request, organization, raw, now)
      if (!filtered) {
        throw new ValidationError({}, [
          'A bulk update needs at least one filter (e.g. id__in, lead_id, view); it would change every task otherwise.',
        ])
      }
      await db.transaction().execute(async (tx) => {
        const rows = await query(tx).execute()
        const ids = rows.map((r) => r.id)
        const before = await viewsOf(tx, request, organization, rows, now)
        for (let i = 0; i < ids.length && Object.keys(changes).length > 0; i += 500) {
          await tx
            .updateTable('task')
            .set({ ...changes, updated_by: me.userId, date_updated: ctx.now })
            .where('organization_id', '=', me.organizationId)
            .where('id', 'in', ids.slice(i, i + 500))
            .execute()
        }
        const completions =
          typeof body.is_complete === 'boolean'
            ? await setComplete(
                tx,
                rows.map((row) => ({ ...row, ...changes })),
                body.is_complete,
                ctx,
              )
            : []
        await recordTaskChanges(tx, request, organization, before, now, completions)
      })
      return { ok: true }
    },
  )

  app.delete('/task/:id/', schemas.delete('Delete a task'), async (request) => {
    const me = caller(request)
    const now = clock.now()
    const organization = await meta.require(me.organizationId)
    await db.transaction().execute(async (tx) => {
      const task = found(await findTask(tx, me.organizationId, request.params.id), 'Task')
      const last = (await viewsOf(tx, request, organization, [task], now)).get(task.id)
      await tx.deleteFrom('task').where('organization_id', '=', me.organizationId).where('id', '=', task.id).execute()
      if (last !== undefined)
        await recordEvents(tx, eventContext(request, formatTimestamp(now)), [taskEvent(last, 'deleted')])
    })
    return {}
  })
}
