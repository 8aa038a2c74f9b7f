import type { FastifyRequest } from 'fastify'
import { Type } from '@sinclair/typebox'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { findLeadStatus } from '../statuses/status-repo.js'
import type { Deps } from '../deps.js'
import { NotFoundError, ValidationError } from '../../platform/http/errors.js'
import { fieldsQuerySchema, listQuerySchema } from '../../platform/http/list.js'
import { caller } from '../../platform/http/request-context.js'
import { formatTimestamp } from '../../platform/data/time.js'
import { leadBodySchema } from './lead-input.js'
import { deleteLead, findLead, mergeLeads, updateLead } from './lead-repo.js'
import { searchLeadVersions } from './lead-search.js'
import { maxQueryLength } from './lead-search-parse.js'
import { cachedLeadText, leadViewBody, leadViewTexts, type ViewCaller } from './lead-view.js'
import type { Db, KeyedRead, LeadRow } from '../../platform/data/database.js'
import type { OrganizationMeta } from '../organizations/organization-meta.js'
import { activityEvents } from '../activities/activity-repo.js'
import { changeContext, mergeEventContext, recordEvents } from '../../integrations/events/event-repo.js'
import { RawJson, RawJsonList } from '../../platform/http/raw-json.js'
import { createLeadFromBody, leadEvent, leadViewIn, loadWriteSetting, prepareLead } from './lead-write.js'
import { found } from '../../platform/data/find-or-404.js'

const tags = ['leads']
const params = Type.Object({ id: Type.String() })
const listQuery = Type.Composite([
  listQuerySchema('lead'),
  Type.Object({
    query: Type.Optional(Type.String({ maxLength: maxQueryLength, description: 'The lead search language.' })),
  }),
])
const createQuery = Type.Object({
  source: Type.Optional(Type.Union([Type.Literal('api'), Type.Literal('ui'), Type.Literal('import')])),
})
const mergeBody = Type.Object({ source: Type.String(), destination: Type.String() })

// The lead and its organization's meta version in one read: all a cached view needs to be served.
// (A subquery, not a join: SQLite plans the join as a scan of organization, several times slower.)
const LEAD_WITH_VERSION = `SELECT lead.*,
  (SELECT meta_version FROM organization WHERE organization.id = lead.organization_id) AS meta_version
  FROM lead WHERE organization_id = ? AND id = ?`

// What says whether a cached view is current, and nothing more: most reads end here. Concurrent reads share a query
// on Postgres (`HotReader.one`).
export const LEAD_VERSIONS: KeyedRead = {
  one: `SELECT revision,
  (SELECT meta_version FROM organization WHERE organization.id = lead.organization_id) AS meta_version
  FROM lead WHERE organization_id = ? AND id = ?`,
  many: `SELECT k.i::int AS i, lead.revision,
  (SELECT meta_version FROM organization WHERE organization.id = lead.organization_id) AS meta_version
  FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS k (organization_id, id, i)
  JOIN lead ON lead.organization_id = k.organization_id AND lead.id = k.id`,
}

export const leadRoutes: FastifyPluginAsyncTypebox<Deps> = async (app, deps) => {
  const { db, dialect, clock, config, reader, meta, views } = deps
  const viewer = (request: FastifyRequest): ViewCaller => ({ offsetHours: request.tzOffsetHours, now: clock.now() })
  const view = async (organizationId: string, id: string, who: ViewCaller) => {
    const lead = found(
      (await reader.all<LeadRow & { meta_version: number }>(LEAD_WITH_VERSION, [organizationId, id]))[0],
      'Lead',
    )
    const organization = found(await meta.get(organizationId, lead.meta_version), 'Lead')
    return leadViewBody(db, views, organization, lead, config.appUrl, who)
  }
  const viewIn = (tx: Db, organization: OrganizationMeta, lead: LeadRow | string, who: ViewCaller) =>
    leadViewIn(tx, organization, lead, { appUrl: config.appUrl, who })
  /** The caller of a write to a lead, their organization's metadata, and who its views are shown to. */
  const writer = async (request: FastifyRequest) => {
    const me = caller(request)
    return { me, organization: await meta.require(me.organizationId), who: viewer(request) }
  }
  /** The lead a write changes, read (and on Postgres locked) in the write's transaction; a 404 names it `what`. */
  const lockedLead = async (tx: Db, organizationId: string, id: string, what = 'Lead') =>
    found(await findLead(tx, organizationId, id, { lock: dialect === 'postgres' }), what)

  app.get(
    '/lead/',
    { schema: { tags, summary: 'Find leads, optionally with the lead search language', querystring: listQuery } },
    async (request) => {
      const me = caller(request)
      const page = await searchLeadVersions(db, {
        dialect,
        organizationId: me.organizationId,
        query: request.query.query ?? '',
        skip: request.query._skip ?? 0,
        limit: request.query._limit ?? 100,
        now: clock.now(),
        tzOffsetHours: request.tzOffsetHours,
        engine: config.leadSearch,
      })
      const organization = await meta.require(me.organizationId)
      const texts = await leadViewTexts(db, views, organization, page.data, config.appUrl, viewer(request))
      return new RawJsonList(
        `{"has_more":${String(page.has_more)},"total_results":${String(page.total_results)},"data":`,
        texts,
        '}',
      )
    },
  )

  app.get(
    '/lead/:id/',
    { schema: { tags, summary: 'One lead', params, querystring: fieldsQuerySchema } },
    async (request) => {
      const { organizationId } = caller(request)
      const { id } = request.params
      const versions = await reader.one<{ revision: number; meta_version: number }>(LEAD_VERSIONS, [organizationId, id])
      if (versions === undefined) throw new NotFoundError('Lead')
      const who = viewer(request)
      const cached = cachedLeadText(views, id, versions.revision, versions.meta_version, who)
      return cached === undefined ? view(organizationId, id, who) : new RawJson(cached)
    },
  )

  app.post(
    '/lead/',
    {
      schema: {
        tags,
        summary: 'Create a lead with its contacts, addresses and custom fields (answers 200)',
        body: leadBodySchema,
        querystring: createQuery,
      },
    },
    async (request) => {
      const me = caller(request)
      const organization = await meta.require(me.organizationId)
      const ctx = changeContext(request, formatTimestamp(clock.now()))
      const who = viewer(request)
      const source = request.query.source ?? (request.headers['x-leadline-client'] === 'web' ? 'ui' : 'api')
      return db
        .transaction()
        .execute((tx) =>
          createLeadFromBody(tx, ctx, organization, request.body, source, { appUrl: config.appUrl, who }),
        )
    },
  )

  app.put(
    '/lead/:id/',
    { schema: { tags, summary: 'Update a lead (only the fields sent change)', params, body: leadBodySchema } },
    async (request) => {
      const { me, organization, who } = await writer(request)
      // The lead is read (and on Postgres locked) in the transaction that writes, so a concurrent status change
      // cannot make this one record a stale old status. SQLite's single writer already serialises them.
      return db.transaction().execute(async (tx) => {
        const current = await lockedLead(tx, me.organizationId, request.params.id)
        // Read the time once the lock is held, so changes are dated in the order they were applied.
        const ctx = changeContext(request, formatTimestamp(clock.now()))
        const setting = await loadWriteSetting(tx, me.organizationId)
        const { lead } = await prepareLead(tx, setting, request.body, 'update')
        const statusLabel =
          lead.status === undefined
            ? ''
            : ((await findLeadStatus(tx, me.organizationId, current.status_id))?.label ?? '')
        const before = await viewIn(tx, organization, current, who)
        const statusChange = await updateLead(
          tx,
          ctx,
          { id: current.id, status_id: current.status_id, status_label: statusLabel },
          lead,
        )
        const after = await viewIn(tx, organization, current.id, who)
        await recordEvents(tx, ctx.events, [
          { ...leadEvent(after, 'updated'), previous: before },
          ...(statusChange === undefined ? [] : await activityEvents(tx, [statusChange], 'created')),
        ])
        return after
      })
    },
  )

  app.delete(
    '/lead/:id/',
    { schema: { tags, summary: 'Delete a lead and everything under it', params } },
    async (request) => {
      const { me, organization, who } = await writer(request)
      await db.transaction().execute(async (tx) => {
        const current = await lockedLead(tx, me.organizationId, request.params.id)
        const ctx = changeContext(request, formatTimestamp(clock.now()))
        // The lead's last state is its event's data; what was under it goes with it, unannounced one by one.
        const last = await viewIn(tx, organization, current, who)
        await deleteLead(tx, me.organizationId, current.id)
        await recordEvents(tx, ctx.events, [leadEvent(last, 'deleted')])
      })
      return {}
    },
  )

  app.post(
    '/lead/merge/',
    { schema: { tags, summary: 'Merge the source lead into the destination lead', body: mergeBody } },
    async (request) => {
      const { source, destination } = request.body
      if (source === destination)
        throw ValidationError.field('destination', 'The source and destination must be different leads.')
      const { me, organization, who } = await writer(request)
      await db.transaction().execute(async (tx) => {
        const from = await lockedLead(tx, me.organizationId, source, 'Source lead')
        const to = await lockedLead(tx, me.organizationId, destination, 'Destination lead')
        const ctx = changeContext(request, formatTimestamp(clock.now()))
        const merged = await viewIn(tx, organization, from, who)
        const before = await viewIn(tx, organization, to, who)
        await mergeLeads(tx, ctx, source, destination)
        const after = await viewIn(tx, organization, destination, who)
        // The source's `merged` event names where it went (`lead_id`); the destination's change and the source's
        // deletion follow it. Each says in its `meta` which lead went into which, as Close's do.
        await recordEvents(tx, mergeEventContext(ctx.events, source, destination), [
          { ...leadEvent(merged, 'merged'), leadId: destination },
          { ...leadEvent(after, 'updated'), previous: before },
          leadEvent(merged, 'deleted'),
        ])
      })
      return {}
    },
  )
}
