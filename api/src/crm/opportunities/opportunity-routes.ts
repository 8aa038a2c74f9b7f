import { Type, type Static } from '@sinclair/typebox'
import { sql } from 'kysely'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyRequest } from 'fastify'
import { opportunityAggregateFields, opportunitySchema, type Opportunity } from '@leadline/shared/opportunity-schema'
import { activityEvents, newActivityRow, opportunityStatusChangeData } from '../activities/activity-repo.js'
import {
  changeContext,
  recordEvents,
  type ChangeContext,
  type EventContext,
  type EventInput,
} from '../../integrations/events/event-repo.js'
import type { OrganizationMeta } from '../organizations/organization-meta.js'
import { dueTaskViews, taskChangeEvents } from '../tasks/task-events.js'
import type { ActivityTable, Db } from '../../platform/data/database.js'
import { deleteWithCustomValues, writeCustomValues } from '../custom-fields/custom-values.js'
import { findLead } from '../leads/lead-repo.js'
import { userNames } from '../users/user-names.js'
import type { Deps } from '../deps.js'
import { NotFoundError, ValidationError } from '../../platform/http/errors.js'
import { newId } from '../../platform/security/ids.js'
import { crudSchemas } from '../../platform/http/crud-routes.js'
import { fetchPage } from '../../platform/http/list.js'
import { LIST_LIMIT_DEFAULT } from '@leadline/shared/list'
import { caller, callerToday } from '../../platform/http/request-context.js'
import { formatTimestamp } from '../../platform/data/time.js'
import {
  loadOpportunitySetting,
  opportunityBodySchema,
  prepareOpportunity,
  type PreparedOpportunity,
  type StatusChoice,
} from './opportunity-input.js'
import { findOpportunity, money, opportunityViews, type OpportunityRow } from './opportunity-repo.js'
import {
  aggregate,
  filteredOpportunities,
  groupAggregates,
  groupKey,
  groupDays,
  groupOrder,
  listOrder,
  opportunityListQuery,
  pageGroups,
  rollupAggregates,
  sumAggregates,
  type Aggregates,
} from './opportunity-list.js'
import { opportunitySearchConditions } from './opportunity-query.js'
import { deleteOpportunityDue, syncOpportunityDue } from '../tasks/task-due.js'
import { found } from '../../platform/data/find-or-404.js'
import { createdStamps } from '../../platform/data/stamps.js'

const tags = ['opportunities']
const schemas = crudSchemas(tags, opportunitySchema, { writeFields: false, deleteAnswer: false })
const groupSchema = Type.Object(
  {
    key: Type.Union([Type.String(), Type.Null()]),
    objects: Type.Array(opportunitySchema),
    ...opportunityAggregateFields,
  },
  {
    additionalProperties: true,
    description:
      'With `_group_by`: `year`, `quarter`, `month`, or `weekyear` and `week` (ISO), or `user_id` and `user_name`.',
  },
)
const listResponse = Type.Object({
  has_more: Type.Boolean(),
  ...opportunityAggregateFields,
  data: Type.Union([Type.Array(opportunitySchema), Type.Array(groupSchema)]),
})

interface WriteContext extends ChangeContext {
  events: EventContext
  /** The change's instant, which the due tasks' views are told in. */
  at: Date
  today: string
}

/** An opportunity's event, under its lead. */
function opportunityEvent(view: Opportunity, action: EventInput['action']): EventInput {
  return { objectType: 'opportunity', objectId: view.id, action, leadId: view.lead_id, data: view }
}

/**
 * Status rules: moving into a won status without a `date_won` (in the body or already stored) dates it the
 * caller's today; moving into a lost status stamps `date_lost`, and leaving one clears it.
 */
function applyStatusRules(
  prepared: PreparedOpportunity,
  current: OpportunityRow | undefined,
  ctx: WriteContext,
): PreparedOpportunity['values'] {
  const values = { ...prepared.values }
  const status = prepared.status
  if (status === undefined || status.id === current?.status_id) return values
  const dateWon = values.date_won === undefined ? (current?.date_won ?? null) : values.date_won
  if (status.type === 'won' && dateWon === null) values.date_won = ctx.today
  return { ...values, date_lost: status.type === 'lost' ? ctx.now : null }
}

/**
 * Records the status change an opportunity just went through, with the opportunity as it now is; answers the activity,
 * whose event the caller records after the opportunity's.
 */
async function recordStatusChange(
  db: Db,
  ctx: WriteContext,
  row: OpportunityRow,
  from: StatusChoice | undefined,
  to: StatusChoice,
): Promise<ActivityTable> {
  const activity = newActivityRow({
    organizationId: ctx.organizationId,
    leadId: row.lead_id,
    contactId: row.contact_id,
    userId: ctx.userId,
    type: 'OpportunityStatusChange',
    opportunityId: row.id,
    now: ctx.now,
    data: opportunityStatusChangeData(from, to, { ...row, value: money(row.value) }),
  })
  await db.insertInto('activity').values(activity).execute()
  return activity
}

/** What a group says of itself besides its key: its period's parts, or its owner. */
function groupFields(field: string, key: string | null, names: Map<string, string>): Record<string, unknown> {
  const number = (text: string | undefined) => (text === undefined ? null : Number(text))
  switch (field) {
    case 'user_id':
      return { user_id: key, user_name: key === null ? null : (names.get(key) ?? null) }
    case 'date_won__year':
      return { year: number(key?.slice(0, 4)) }
    case 'date_won__quarter':
      return { year: number(key?.slice(0, 4)), quarter: number(key?.slice(6)) }
    case 'date_won__month':
      return { year: number(key?.slice(0, 4)), month: number(key?.slice(5, 7)) }
    default:
      return { weekyear: number(key?.slice(0, 4)), week: number(key?.slice(6)) }
  }
}

export const opportunityRoutes: FastifyPluginAsyncTypebox<Deps> = async (app, { db, dialect, clock, meta }) => {
  async function views(organizationId: string, rows: OpportunityRow[]) {
    return opportunityViews(db, await meta.require(organizationId), rows)
  }

  /** An opportunity's view as `tx` sees it: a write's events and answer. */
  async function viewIn(tx: Db, organization: OrganizationMeta, id: string) {
    const row = await findOpportunity(tx, organization.organization.id, id)
    const [view] = row === undefined ? [] : await opportunityViews(tx, organization, [row])
    if (view === undefined) throw new NotFoundError('Opportunity')
    return view
  }

  /** The opportunity's due task (if it has one) as `tx` sees it, in the caller's zone at the change's instant. */
  function dueTasks(tx: Db, organization: OrganizationMeta, id: string, request: FastifyRequest, ctx: WriteContext) {
    return dueTaskViews(tx, organization, { opportunityIds: [id] }, { offsetHours: request.tzOffsetHours, now: ctx.at })
  }

  /**
   * A page's objects in groups: consecutive objects with the same key, each with its group's aggregates over every
   * match (a group cut by the page's edge says so by its key on the next page).
   */
  function groupsOf(
    field: string,
    keys: (string | null)[],
    objects: Awaited<ReturnType<typeof views>>,
    totals: Map<string | null, Aggregates>,
    names: Map<string, string>,
  ) {
    const groups: Static<typeof groupSchema>[] = []
    objects.forEach((object, i) => {
      const key = keys[i] ?? null
      const last = groups.at(-1)
      if (last !== undefined && last.key === key) {
        last.objects.push(object)
        return
      }
      const total = totals.get(key)
      if (total === undefined) throw new Error(`opportunity groups: no totals for ${String(key)}`)
      groups.push({ key, ...groupFields(field, key, names), ...total, objects: [object] })
    })
    return groups
  }

  /** The caller, now, and the caller's today (`X-TZ-Offset`), which a won status dates itself by. */
  function writeContext(request: FastifyRequest): WriteContext {
    const at = clock.now()
    return { ...changeContext(request, formatTimestamp(at)), at, today: callerToday(request, at) }
  }

  /** The caller of a write, their organization's metadata and the write's context. */
  async function writer(request: FastifyRequest) {
    const me = caller(request)
    return { me, organization: await meta.require(me.organizationId), ctx: writeContext(request) }
  }

  async function oneView(organizationId: string, id: string) {
    const row = found(await findOpportunity(db, organizationId, id), 'Opportunity')
    const view = found((await views(organizationId, [row]))[0], 'Opportunity')
    return view
  }

  app.get(
    '/opportunity/',
    {
      schema: {
        tags,
        summary: 'List opportunities with aggregates over every match; optionally ordered and grouped',
        querystring: opportunityListQuery,
        response: { 200: listResponse },
      },
    },
    async (request) => {
      const me = caller(request)
      const query = request.query
      const searches = await opportunitySearchConditions(
        db,
        { dialect, organizationId: me.organizationId, now: clock.now(), tzOffsetHours: request.tzOffsetHours },
        query,
      )
      const matches = filteredOpportunities(db, me.organizationId, query, request.tzOffsetHours, searches)
      const { terms, group } = listOrder(query, dialect)
      const key = group === undefined ? sql<null>`null` : groupKey(group.field, dialect)
      const keyed = matches.selectAll('opportunity').select(key.as('group_key'))
      // The sums come from the rollup when it can answer the filters (migration 0010), else from the rows.
      const rollup = await rollupAggregates(db, me.organizationId, query, group, dialect, request.tzOffsetHours)
      let page: { has_more: boolean; data: (OpportunityRow & { group_key: string | null })[] }
      let data: Static<typeof listResponse>['data']
      let totals: Aggregates
      if (group === undefined) {
        page = await fetchPage(
          terms.reduce((q, term) => q.orderBy(term), keyed),
          query,
        )
        totals = rollup?.totals ?? (await aggregate(matches))
        data = await views(me.organizationId, page.data)
      } else {
        // Grouped: the groups' sizes tell which groups the page runs over; each is read through its index (date_won
        // or the owner), in the list's order, instead of ordering every match. The totals are the groups' added up.
        const groupTotals = rollup?.groups ?? (await groupAggregates(matches, group, dialect))
        totals = rollup?.totals ?? sumAggregates([...groupTotals.values()])
        const skip = query._skip ?? 0
        const limit = query._limit ?? LIST_LIMIT_DEFAULT
        const counts = new Map([...groupTotals].map(([k, a]) => [k, a.total_results]))
        const names = group.field === 'user_id' ? await userNames(db, [...counts.keys()]) : new Map<string, string>()
        const byName = (id: string) => (names.get(id) ?? '').toLowerCase()
        if (limit === 0) {
          // Groups without their objects: every group, so a report reads them all in one request.
          const keys = [...counts].filter(([, n]) => n > 0).map(([k]) => k)
          data = groupOrder(keys, group.descending, byName).map((k) => {
            const total = groupTotals.get(k)
            if (total === undefined) throw new Error(`opportunity groups: no totals for ${String(k)}`)
            return { key: k, ...groupFields(group.field, k, names), ...total, objects: [] }
          })
          return { has_more: totals.total_results > skip, ...totals, data }
        }
        const rows: (OpportunityRow & { group_key: string | null })[] = []
        for (const part of pageGroups(counts, group.descending, skip, limit + 1, byName)) {
          const days = part.key === null ? undefined : groupDays(group.field, part.key)
          const column = group.field === 'user_id' ? 'opportunity.user_id' : 'opportunity.date_won'
          let q = part.key === null ? keyed.where(column, 'is', null) : keyed.where(key, '=', part.key)
          if (days !== undefined) {
            q = q.where('opportunity.date_won', '>=', days.from).where('opportunity.date_won', '<', days.to)
          }
          const ordered = terms.reduce((o, term) => o.orderBy(term), q)
          rows.push(...(await ordered.offset(part.skip).limit(part.take).execute()))
        }
        page = { has_more: rows.length > limit, data: rows.slice(0, limit) }
        const objects = await views(me.organizationId, page.data)
        data = groupsOf(
          group.field,
          page.data.map((r) => r.group_key),
          objects,
          groupTotals,
          names,
        )
      }
      return { has_more: page.has_more, ...totals, data }
    },
  )

  app.get('/opportunity/:id/', schemas.get('One opportunity'), async (request) =>
    oneView(caller(request).organizationId, request.params.id),
  )

  app.post(
    '/opportunity/',
    schemas.create('Create an opportunity on a lead (answers 200)', opportunityBodySchema),
    async (request) => {
      const { me, organization, ctx } = await writer(request)
      const body = request.body
      return db.transaction().execute(async (tx) => {
        const errors: Record<string, string> = {}
        // Close's own keys: `lead` for the lead a body names (or fails to).
        const lead = body.lead_id === undefined ? undefined : await findLead(tx, me.organizationId, body.lead_id)
        if (body.lead_id === undefined) errors.lead = 'This field is required.'
        else if (lead === undefined) errors.lead = 'Object does not exist.'
        const setting = await loadOpportunitySetting(tx, me.organizationId)
        const prepared = await prepareOpportunity(tx, setting, body, lead?.id, undefined, errors)
        const status = prepared.status
        if (lead === undefined || status === undefined || Object.keys(errors).length > 0) {
          throw new ValidationError(errors)
        }
        const values = applyStatusRules(prepared, undefined, ctx)
        const row: OpportunityRow & { value: number | null } = {
          id: newId('opportunity'),
          organization_id: me.organizationId,
          lead_id: lead.id,
          contact_id: values.contact_id ?? null,
          status_id: status.id,
          user_id: values.user_id ?? me.userId,
          value: values.value ?? null,
          value_period: values.value_period ?? 'one_time',
          value_currency: values.value_currency ?? setting.currency,
          confidence: values.confidence ?? 0,
          date_won: values.date_won ?? null,
          date_lost: values.date_lost ?? null,
          note: values.note ?? '',
          ...createdStamps(me.userId, ctx.now),
        }
        await tx.insertInto('opportunity').values(row).execute()
        await writeCustomValues(
          tx,
          { organizationId: me.organizationId, leadId: lead.id, objectId: row.id },
          prepared.custom,
        )
        const activity = await recordStatusChange(tx, ctx, row, undefined, status)
        await syncOpportunityDue(tx, row, status.type, { userId: me.userId, now: ctx.now, today: ctx.today })
        const view = await viewIn(tx, organization, row.id)
        await recordEvents(tx, ctx.events, [
          opportunityEvent(view, 'created'),
          ...(await activityEvents(tx, [activity], 'created')),
          ...taskChangeEvents(new Map(), await dueTasks(tx, organization, row.id, request, ctx)),
        ])
        return view
      })
    },
  )

  app.put(
    '/opportunity/:id/',
    schemas.update('Update an opportunity (only the fields sent change)', opportunityBodySchema),
    async (request) => {
      const { me, organization, ctx } = await writer(request)
      return db.transaction().execute(async (tx) => {
        // Locked on Postgres: concurrent status changes each record the status the other left.
        const current = await findOpportunity(tx, me.organizationId, request.params.id, {
          lock: dialect === 'postgres',
        })
        if (current === undefined) throw new NotFoundError('Opportunity')
        const errors: Record<string, string> = {}
        const setting = await loadOpportunitySetting(tx, me.organizationId)
        const prepared = await prepareOpportunity(tx, setting, request.body, current.lead_id, current, errors)
        if (Object.keys(errors).length > 0) throw new ValidationError(errors)
        const values = applyStatusRules(prepared, current, ctx)
        const previous = await viewIn(tx, organization, current.id)
        const dueBefore = await dueTasks(tx, organization, current.id, request, ctx)
        const updated: OpportunityRow = { ...current, ...values, updated_by: me.userId, date_updated: ctx.now }
        await tx
          .updateTable('opportunity')
          .set({ ...values, updated_by: me.userId, date_updated: ctx.now })
          .where('organization_id', '=', me.organizationId)
          .where('id', '=', current.id)
          .execute()
        await writeCustomValues(
          tx,
          { organizationId: me.organizationId, leadId: current.lead_id, objectId: current.id },
          prepared.custom,
        )
        const from = setting.statuses.find((s) => s.id === current.status_id)
        const statusChanges: ActivityTable[] = []
        if (prepared.status !== undefined && prepared.status.id !== current.status_id) {
          statusChanges.push(await recordStatusChange(tx, ctx, updated, from, prepared.status))
        }
        const statusType = (prepared.status ?? from)?.type ?? 'active'
        const before = { opportunity: current, statusType: from?.type ?? 'active' }
        const change = { userId: me.userId, now: ctx.now, today: ctx.today }
        await syncOpportunityDue(tx, updated, statusType, change, before)
        const view = await viewIn(tx, organization, current.id)
        await recordEvents(tx, ctx.events, [
          { ...opportunityEvent(view, 'updated'), previous },
          ...(await activityEvents(tx, statusChanges, 'created')),
          ...taskChangeEvents(dueBefore, await dueTasks(tx, organization, current.id, request, ctx)),
        ])
        return view
      })
    },
  )

  app.delete('/opportunity/:id/', schemas.delete('Delete an opportunity'), async (request) => {
    const { me, organization, ctx } = await writer(request)
    await db.transaction().execute(async (tx) => {
      const current = found(await findOpportunity(tx, me.organizationId, request.params.id), 'Opportunity')
      const last = await viewIn(tx, organization, current.id)
      const due = await dueTasks(tx, organization, current.id, request, ctx)
      await deleteOpportunityDue(tx, me.organizationId, current.id)
      await deleteWithCustomValues(tx, 'opportunity', me.organizationId, current.id)
      await recordEvents(tx, ctx.events, [opportunityEvent(last, 'deleted'), ...taskChangeEvents(due, new Map())])
    })
    return {}
  })
}
