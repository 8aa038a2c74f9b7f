import { Type } from '@sinclair/typebox'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { sql, type SelectQueryBuilder } from 'kysely'
import type { ActivityTable, Db, Tables } from '../../platform/data/database.js'
import { checkContactOfLead } from '../contacts/contact-repo.js'
import { findLead } from '../leads/lead-repo.js'
import type { Deps } from '../deps.js'
import { NotFoundError, ValidationError } from '../../platform/http/errors.js'
import { LIST_LIMIT_DEFAULT } from '@leadline/shared/list'
import { commaValues, fetchPage, fieldsQuerySchema, listQuerySchema, type ListQuery } from '../../platform/http/list.js'
import { caller } from '../../platform/http/request-context.js'
import { formatTimestamp } from '../../platform/data/time.js'
import {
  changeContext,
  recordEvents,
  type ChangeContext,
  type EventContext,
} from '../../integrations/events/event-repo.js'
import { FALSE } from '../../platform/data/sql-conditions.js'
import { threadKeysQuery } from './thread-keys.js'
import { emailThreadViews } from './email-thread-view.js'
import { activityFilters } from './activity-filters.js'
import {
  ACTIVITY_TYPES,
  activityEvents,
  activityNames,
  activityView,
  FILTERABLE_ACTIVITY_TYPES,
  findActivity,
  recordActivity,
  type ActivityType,
} from './activity-repo.js'
import { found } from '../../platform/data/find-or-404.js'

const tags = ['activities']
const params = Type.Object({ id: Type.String() })
const filters = Type.Object(activityFilters.properties)
/** The list query every activity list takes: paging, `_fields`, and the common filters. */
export const activityListQuery = Type.Composite([listQuerySchema('activity'), filters])
const typeFilters = Type.Object({
  _type: Type.Optional(
    Type.String({
      description: `Activities of this type (comma-separated for several): ${FILTERABLE_ACTIVITY_TYPES.join(', ')}.`,
    }),
  ),
  _type__in: Type.Optional(Type.String({ description: 'Comma-separated activity types; activities of any of them.' })),
  thread_emails: Type.Optional(
    Type.Union([Type.Literal('true'), Type.Literal('only')], {
      description:
        'Unset: an Email object per message. `true`: EmailThread objects instead, each listing its emails stripped down (`emails`). `only`: EmailThread objects without their emails. A thread sits where its latest email would.',
    }),
  ),
})
const mixedListQuery = Type.Composite([activityListQuery, typeFilters])

const noteBody = Type.Object(
  {
    note: Type.String({ maxLength: 100_000 }),
    lead_id: Type.String(),
    contact_id: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  },
  { additionalProperties: false },
)
const noteUpdateBody = Type.Object({ note: Type.String({ maxLength: 100_000 }) }, { additionalProperties: false })

/**
 * The types `_type` and `_type__in` ask for (both given: the types in both), or undefined without them. Close documents
 * `_type` as comma-separated too, so both read the same way.
 */
function typesWanted(query: { _type?: string; _type__in?: string }): string[] | undefined {
  let types: string[] | undefined
  for (const param of ['_type', '_type__in'] as const) {
    const raw = query[param]
    if (raw === undefined) continue
    const wanted = commaValues(raw)
    if (wanted.length === 0) throw ValidationError.field(param, 'Name at least one activity type.')
    const wrong = wanted.find((t) => !FILTERABLE_ACTIVITY_TYPES.includes(t))
    if (wrong !== undefined) {
      throw ValidationError.field(
        param,
        `${JSON.stringify(wrong)} is not one of ${FILTERABLE_ACTIVITY_TYPES.join(', ')}.`,
      )
    }
    types = types === undefined ? wanted : types.filter((t) => wanted.includes(t))
  }
  return types
}

/** How `/activity/` shows emails (`thread_emails`): one Email each, or their threads, with or without the emails. */
export type ThreadEmails = 'none' | 'true' | 'only'

/** What a list shows: which stored activity types (undefined: all of them), and whether email threads. */
function listPlan(types: readonly string[] | undefined, threadEmails: ThreadEmails) {
  const threaded = threadEmails !== 'none'
  const stored = (types ?? ACTIVITY_TYPES).filter((t) => t !== 'EmailThread' && !(threaded && t === 'Email'))
  return {
    // Every type, unfiltered, when nothing is left out: the list reads its index without a type condition.
    storedTypes: types === undefined && !threaded ? undefined : stored,
    threads: threaded
      ? types === undefined || types.includes('Email') || types.includes('EmailThread')
      : (types?.includes('EmailThread') ?? false),
    withEmails: threadEmails !== 'only',
  }
}

/**
 * A page of the organization's activities of `types` (all when undefined), newest first, as the API shows them.
 * With `threadEmails`, emails are shown as their threads (a thread dated by its latest email), and `EmailThread` in
 * `types` asks for threads in any case.
 *
 * Every type, or one, is read in the list's order from an index and stops at the page's end. Several types, or
 * threads beside activities, are paged over their keys: each type's newest keys down to the page's end, from the
 * type index (`activity_org_idx`, migration 0054), then the page's rows by id. Walking the organization's
 * activities by date and testing each one's type instead read every activity older than the newest of a rare type
 * (476,011 rows and 16 s for the 12 completed tasks of 100,000 demo leads).
 */
export async function listActivities(
  db: Db,
  organizationId: string,
  types: readonly string[] | undefined,
  query: ListQuery & Record<string, unknown>,
  threadEmails: ThreadEmails = 'none',
) {
  const filters = activityFilters.check(query)
  const plan = listPlan(types, threadEmails)
  const filtered = <O>(q: SelectQueryBuilder<Tables, 'activity', O>) =>
    activityFilters
      .conditions(filters)
      .reduce((f, condition) => f.where(condition), q.where('organization_id', '=', organizationId))
  const { storedTypes } = plan
  if (!plan.threads && (storedTypes === undefined || storedTypes.length <= 1)) {
    const all = filtered(db.selectFrom('activity').selectAll())
    const [only] = storedTypes ?? []
    const listed =
      storedTypes === undefined ? all : only === undefined ? all.where(FALSE) : all.where('type', '=', only)
    const page = await fetchPage(listed.orderBy('date_created', 'desc').orderBy('id', 'desc'), query)
    return { has_more: page.has_more, data: await views(db, page.data) }
  }
  // Activities and threads in one order: their keys are paged together, then each page's objects are read.
  const depth = (query._skip ?? 0) + (query._limit ?? LIST_LIMIT_DEFAULT) + 1
  const newest = (type: string | undefined) => {
    const keys = filtered(db.selectFrom('activity').select(['id', 'date_created', sql<string>`'activity'`.as('kind')]))
    const ordered = (type === undefined ? keys : keys.where('type', '=', type))
      .orderBy('date_created', 'desc')
      .orderBy('id', 'desc')
      .limit(depth)
    return db.selectFrom(ordered.as('part')).selectAll()
  }
  const parts = storedTypes === undefined ? [newest(undefined)] : storedTypes.map(newest)
  const withThreads = plan.threads
    ? [...parts, db.selectFrom(threadKeysQuery(db, organizationId, filters).as('part')).selectAll()]
    : parts
  const [first, ...rest] = withThreads
  if (first === undefined) return { has_more: false, data: [] }
  const keys = rest.reduce((union, part) => union.unionAll(part), first)
  const listed = db.selectFrom(keys.as('listed')).selectAll()
  const page = await fetchPage(listed.orderBy('date_created', 'desc').orderBy('id', 'desc'), query)
  const ids = (kind: string) => page.data.filter((r) => r.kind === kind).map((r) => r.id)
  const activityIds = ids('activity')
  const [activities, threads] = await Promise.all([
    activityIds.length === 0
      ? []
      : db
          .selectFrom('activity')
          .selectAll()
          .where('organization_id', '=', organizationId)
          .where('id', 'in', activityIds)
          .execute(),
    plan.threads ? emailThreadViews(db, organizationId, ids('thread'), { withEmails: plan.withEmails }) : [],
  ])
  const shown = new Map<string, unknown>([
    ...(await views(db, activities)).map((v) => [String(v.id), v] as const),
    ...threads.map((t) => [t.id, t] as const),
  ])
  return { has_more: page.has_more, data: page.data.flatMap((r) => shown.get(r.id) ?? []) }
}

async function views(db: Db, rows: ActivityTable[]) {
  const names = await activityNames(db, rows)
  return rows.map((r) => activityView(r, names))
}

/** One activity as the API shows it (of `type`, when given); a 404 when there is none. */
export async function oneActivity(db: Db, organizationId: string, id: string, type: ActivityType | undefined) {
  const row = found(await findActivity(db, organizationId, id, type), 'Activity')
  const [view] = await views(db, [row])
  return view
}

/** The read-only list and detail routes of one activity type, under `path` (ending in `/`). */
export function typedRoutes(
  app: Parameters<FastifyPluginAsyncTypebox<Deps>>[0],
  db: Db,
  path: string,
  type: ActivityType,
) {
  app.get(
    path,
    { schema: { tags, summary: `List ${type} activities, newest first`, querystring: activityListQuery } },
    async (request) => listActivities(db, caller(request).organizationId, [type], request.query),
  )
  app.get(
    `${path}:id/`,
    { schema: { tags, summary: `One ${type} activity`, params, querystring: fieldsQuerySchema } },
    async (request) => oneActivity(db, caller(request).organizationId, request.params.id, type),
  )
}

export const activityRoutes: FastifyPluginAsyncTypebox<Deps> = async (app, { db, clock }) => {
  app.get(
    '/activity/',
    {
      schema: {
        tags,
        summary: 'Every activity, newest first, discriminated by `_type`; `_type__in` picks several types',
        querystring: mixedListQuery,
      },
    },
    async (request) =>
      listActivities(
        db,
        caller(request).organizationId,
        typesWanted(request.query),
        request.query,
        request.query.thread_emails ?? 'none',
      ),
  )

  typedRoutes(app, db, '/activity/created/', 'Created')
  typedRoutes(app, db, '/activity/status_change/lead/', 'LeadStatusChange')
  typedRoutes(app, db, '/activity/status_change/opportunity/', 'OpportunityStatusChange')
  typedRoutes(app, db, '/activity/note/', 'Note')
  typedRoutes(app, db, '/activity/task_completed/', 'TaskCompleted')

  app.delete(
    '/activity/task_completed/:id/',
    { schema: { tags, summary: 'Delete a TaskCompleted activity (the task stays complete)', params } },
    async (request) => {
      const me = caller(request)
      const ctx = changeContext(request, formatTimestamp(clock.now()))
      await db.transaction().execute(async (tx) => {
        const row = found(await findActivity(tx, me.organizationId, request.params.id, 'TaskCompleted'), 'Activity')
        // The task no longer points at a completion that is gone.
        await tx
          .updateTable('task')
          .set({ completion_id: null })
          .where('organization_id', '=', me.organizationId)
          .where('completion_id', '=', row.id)
          .execute()
        await deleteActivity(tx, ctx, row)
      })
      return {}
    },
  )

  app.post(
    '/activity/note/',
    { schema: { tags, summary: 'Log a note on a lead (answers 200)', body: noteBody } },
    async (request) => {
      const me = caller(request)
      const { note, lead_id: leadId, contact_id: contactId } = request.body
      const ctx = changeContext(request, formatTimestamp(clock.now()))
      return db.transaction().execute(async (tx) => {
        const errors: Record<string, string> = {}
        if (note.trim() === '') errors.note = 'This field may not be blank.'
        const lead = await findLead(tx, me.organizationId, leadId)
        if (lead === undefined) errors.lead_id = 'Object does not exist.'
        await checkContactOfLead(tx, me.organizationId, leadId, contactId ?? null, errors)
        if (Object.keys(errors).length > 0) throw new ValidationError(errors)
        const input = { leadId, contactId: contactId ?? null, type: 'Note' as const, data: { note } }
        const id = await recordActivity(
          tx,
          { ...input, organizationId: me.organizationId, userId: me.userId, now: ctx.now },
          ctx.events,
        )
        return oneActivity(tx, me.organizationId, id, 'Note')
      })
    },
  )

  app.put(
    '/activity/note/:id/',
    { schema: { tags, summary: 'Change the text of a note', params, body: noteUpdateBody } },
    async (request) => {
      const me = caller(request)
      if (request.body.note.trim() === '') throw ValidationError.field('note', 'This field may not be blank.')
      const ctx = changeContext(request, formatTimestamp(clock.now()))
      return db.transaction().execute(async (tx) => {
        const row = found(await findActivity(tx, me.organizationId, request.params.id, 'Note'), 'Note')
        await tx
          .updateTable('activity')
          .set({ data: JSON.stringify({ note: request.body.note }), updated_by: me.userId, date_updated: ctx.now })
          .where('organization_id', '=', me.organizationId)
          .where('id', '=', row.id)
          .execute()
        const after = found(await findActivity(tx, me.organizationId, row.id, 'Note'), 'Note')
        const [before, event] = await activityEvents(tx, [row, after], 'updated')
        if (before === undefined || event === undefined) throw new NotFoundError('Note')
        await recordEvents(tx, ctx.events, [{ ...event, previous: before.data }])
        return event.data
      })
    },
  )

  app.delete('/activity/note/:id/', { schema: { tags, summary: 'Delete a note', params } }, async (request) => {
    const me = caller(request)
    const ctx = changeContext(request, formatTimestamp(clock.now()))
    await db.transaction().execute(async (tx) => {
      const row = found(await findActivity(tx, me.organizationId, request.params.id, 'Note'), 'Note')
      await deleteActivity(tx, ctx, row)
    })
    return {}
  })
}

/** Deletes an activity and records its `deleted` event, its last state, in the caller's transaction. */
export async function deleteActivity(tx: Db, ctx: ChangeContext & { events: EventContext }, row: ActivityTable) {
  const [event] = await activityEvents(tx, [row], 'deleted')
  await tx.deleteFrom('activity').where('organization_id', '=', ctx.organizationId).where('id', '=', row.id).execute()
  if (event !== undefined) await recordEvents(tx, ctx.events, [event])
}
