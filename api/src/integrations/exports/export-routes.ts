import { Readable } from 'node:stream'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyRequest } from 'fastify'
import { sql } from 'kysely'
import { listEnvelopeSchema } from '@leadline/shared/list'
import type { Deps } from '../../crm/deps.js'
import type { Db } from '../../platform/data/database.js'
import { found } from '../../platform/data/find-or-404.js'
import { formatTimestamp } from '../../platform/data/time.js'
import { HttpError, NotFoundError, ValidationError } from '../../platform/http/errors.js'
import { commaValues, fetchPage, fieldsQuerySchema, listQuerySchema, type ListQuery } from '../../platform/http/list.js'
import type { KeyOwner } from '../../platform/security/api-key-repo.js'
import { caller } from '../../platform/http/request-context.js'
import { newId } from '../../platform/security/ids.js'
import { idParams } from '../../platform/http/crud-routes.js'
import { leadSearchIds } from '../../crm/leads/lead-search.js'
import { filteredOpportunities } from '../../crm/opportunities/opportunity-list.js'
import { opportunitySearchConditions } from '../../crm/opportunities/opportunity-query.js'
import { exportSchema } from '@leadline/shared/export-schema'
import { leadExportBody, opportunityExportBody, type OpportunityExportParams } from './export-input.js'
import { exportChunks, exportView, findVisibleExport, visibleExports, type ExportRow } from './export-repo.js'
import { auditContext, recordAudit } from '../events/audit-repo.js'
import { exportRequested } from './export-worker.js'

// Exports (decision 0052), as Close's: POST asks for one and answers it `created`; a worker in some api process makes
// the file; GET tells its `status` and, once `done`, its `download_url`, which serves the gzip-compressed file.

const tags = ['exports']
/** The most exports of one organization not yet done or failed: asking for more waits for one to end (a 429). */
export const EXPORTS_UNDER_WAY_MAX = 10
const WHO =
  'Any member may export; a member sees their own exports, an admin every export of the organization. At most ' +
  `${String(EXPORTS_UNDER_WAY_MAX)} exports of an organization are under way at once; asking for more is a 429.`
const listResponse = listEnvelopeSchema(exportSchema)
/** The most values a `__in` filter of an export's `params` names. */
const IN_VALUES_MAX = 1000

const REFUSED = 'Not implemented: Leadline has no advanced filtering; use `query` (the lead search language).'

/** The filters of `params` that name an object of the organization, and where such objects are. */
const REFERENCES = {
  lead_id: { table: 'lead', column: 'id', what: 'lead' },
  contact_id: { table: 'contact', column: 'id', what: 'contact' },
  user_id: { table: 'membership', column: 'user_id', what: 'member' },
  pipeline_id: { table: 'pipeline', column: 'id', what: 'pipeline' },
  status_id: { table: 'opportunity_status', column: 'id', what: 'opportunity status' },
} as const

/** Every object a filter of `params` names must be the organization's: another's is a field error, never a match. */
async function checkReferences(db: Db, organizationId: string, params: OpportunityExportParams): Promise<void> {
  const errors: Record<string, string> = {}
  for (const [field, ref] of Object.entries(REFERENCES)) {
    for (const param of [field, `${field}__in`] as const) {
      const raw = (params as Record<string, string | undefined>)[param]
      if (raw === undefined) continue
      const values = [...new Set(param.endsWith('__in') ? commaValues(raw) : [raw])]
      if (values.length === 0) continue
      if (values.length > IN_VALUES_MAX) {
        errors[`params.${param}`] = `At most ${String(IN_VALUES_MAX)} values.`
        continue
      }
      const column = sql.ref(ref.column)
      const known = await sql<{ v: string }>`select ${column} as v from ${sql.table(ref.table)}
        where organization_id = ${organizationId} and ${column} in (${sql.join(values)})`.execute(db)
      const have = new Set(known.rows.map((r) => r.v))
      const missing = values.find((v) => !have.has(v))
      if (missing !== undefined)
        errors[`params.${param}`] = `No ${ref.what} ${JSON.stringify(missing)} in this organization.`
    }
  }
  if (Object.keys(errors).length > 0) throw new ValidationError(errors)
}

/** A field error of the opportunity list's checks, named inside `params`. */
function inParams(error: unknown): never {
  if (error instanceof ValidationError) {
    throw new ValidationError(
      Object.fromEntries(Object.entries(error.fieldErrors).map(([field, message]) => [`params.${field}`, message])),
      error.errors,
    )
  }
  throw error
}

export const exportRoutes: FastifyPluginAsyncTypebox<Deps> = async (app, deps) => {
  const { db, dialect, clock } = deps

  /** Stores a new export, `created`, of what the request asked for, and wakes this process's worker. */
  async function insert(
    me: KeyOwner,
    request: FastifyRequest,
    now: Date,
    asked: Pick<ExportRow, 'object_type' | 'format' | 'type' | 'query' | 'params'> & {
      date_format?: ExportRow['date_format']
      fields?: readonly string[]
    },
  ) {
    const underWay = await db
      .selectFrom('data_export')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .where('organization_id', '=', me.organizationId)
      .where('status', 'in', ['created', 'started', 'in_progress'])
      .executeTakeFirstOrThrow()
    if (Number(underWay.n) >= EXPORTS_UNDER_WAY_MAX) {
      throw new HttpError(
        429,
        `At most ${String(EXPORTS_UNDER_WAY_MAX)} exports of an organization can be under way at once: ask again when one is done.`,
        { 'retry-after': '10' },
      )
    }
    const at = formatTimestamp(now)
    const id = newId('export')
    await db.transaction().execute(async (tx) => {
      await tx
        .insertInto('data_export')
        .values({
          id,
          organization_id: me.organizationId,
          created_by: me.userId,
          object_type: asked.object_type,
          format: asked.format,
          type: asked.type,
          date_format: asked.date_format ?? 'original',
          fields: asked.fields === undefined ? null : JSON.stringify(asked.fields),
          query: asked.query,
          params: asked.params,
          tz_offset: request.tzOffsetHours,
          status: 'created',
          date_created: at,
          date_updated: at,
          n_rows: null,
          size: null,
          error: null,
          attempts: 0,
          lease_owner: null,
          lease_until: null,
        })
        .execute()
      await recordAudit(tx, auditContext(request, at), [
        {
          action: 'export_created',
          objectType: 'export',
          objectId: id,
          details: { object_type: asked.object_type, format: asked.format, type: asked.type },
        },
      ])
    })
    exportRequested()
    const stored = await db.selectFrom('data_export').selectAll().where('id', '=', id).executeTakeFirstOrThrow()
    return exportView(stored)
  }

  type Kind = 'lead' | 'opportunity' | undefined
  const list = async (me: KeyOwner, page: ListQuery, kind: Kind) => {
    let query = visibleExports(db, me)
    if (kind !== undefined) query = query.where('object_type', '=', kind)
    const rows = await fetchPage(query.orderBy('date_created', 'desc').orderBy('id', 'desc'), page)
    return { has_more: rows.has_more, data: rows.data.map(exportView) }
  }
  const one = async (me: KeyOwner, id: string, kind: Kind) => {
    const row = found(await findVisibleExport(db, me, id), 'Export')
    if (kind !== undefined && row.object_type !== kind) throw new NotFoundError('Export')
    return exportView(row)
  }
  // Every export, lead exports and opportunity exports: a list and one export under each, as Close's paths are.
  const kinds: [string, Kind][] = [
    ['/export/', undefined],
    ['/export/lead/', 'lead'],
    ['/export/opportunity/', 'opportunity'],
  ]
  for (const [path, kind] of kinds) {
    const what = kind === undefined ? 'export' : `${kind} export`
    app.get(
      path,
      {
        schema: {
          tags,
          summary: `List ${what}s, newest first. ${WHO}`,
          querystring: listQuerySchema(),
          response: { 200: listResponse },
        },
      },
      async (request) => list(caller(request), request.query, kind),
    )
    app.get(
      `${path}:id/`,
      {
        schema: {
          tags,
          summary: `One ${what}: its \`status\` (\`created\`, \`started\`, \`in_progress\`, \`done\`, \`error\`) and, once done, \`download_url\`. ${WHO}`,
          params: idParams,
          querystring: fieldsQuerySchema,
          response: { 200: exportSchema },
        },
      },
      async (request) => one(caller(request), request.params.id, kind),
    )
  }

  app.get(
    '/export/:id/download/',
    {
      schema: {
        tags,
        summary: `A done export’s file, gzip-compressed as stored (\`Content-Encoding: gzip\`). ${WHO}`,
        description:
          'The `download_url` of a done export. `Content-Type` is `text/csv` or `application/json`; an export not ' +
          'done yet (or another organization’s, or a colleague’s to a member) is a 404.',
        params: idParams,
      },
    },
    async (request, reply) => {
      const row = found(await findVisibleExport(db, caller(request), request.params.id), 'Export')
      if (row.status !== 'done') throw new NotFoundError('Export file')
      const name = `${row.object_type === 'lead' ? `leads-${row.type}` : 'opportunities'}-${row.id}.${row.format}`
      return reply
        .header('content-type', row.format === 'csv' ? 'text/csv; charset=utf-8' : 'application/json; charset=utf-8')
        .header('content-encoding', 'gzip')
        .header('content-length', String(row.size ?? 0))
        .header('content-disposition', `attachment; filename="${name}"`)
        .header('x-content-type-options', 'nosniff')
        .send(Readable.from(exportChunks(db, row)))
    },
  )

  app.post(
    '/export/lead/',
    {
      schema: {
        tags,
        summary: `Export leads a search finds, as CSV or JSON (answers the export, \`created\`). ${WHO}`,
        description:
          'Poll `GET /export/lead/{id}/` until `status` is `done`, then fetch `download_url`. Close’s advanced ' +
          'filtering (`s_query`, `results_limit`, `sort`) is not implemented: refused with a 400.',
        body: leadExportBody,
        response: { 200: exportSchema },
      },
    },
    async (request) => {
      const me = caller(request)
      const body = request.body
      const refused: Record<string, string> = {}
      for (const field of ['s_query', 'results_limit', 'sort'] as const) {
        if (body[field] !== undefined) refused[field] = REFUSED
      }
      if (Object.keys(refused).length > 0) throw new ValidationError(refused)
      const now = clock.now()
      const query = body.query?.trim() ?? ''
      // The search is checked now, so that a bad one is a 400 here rather than a failed export later.
      if (query !== '') {
        await leadSearchIds(db, {
          dialect,
          organizationId: me.organizationId,
          query,
          now,
          tzOffsetHours: request.tzOffsetHours,
        })
      }
      return insert(me, request, now, {
        object_type: 'lead',
        format: body.format,
        type: body.type,
        date_format: body.date_format,
        fields: body.fields,
        query: query === '' ? null : query,
        params: null,
      })
    },
  )

  app.post(
    '/export/opportunity/',
    {
      schema: {
        tags,
        summary: `Export opportunities the filters of GET /opportunity/ find, as CSV or JSON (answers the export, \`created\`). ${WHO}`,
        body: opportunityExportBody,
        response: { 200: exportSchema },
      },
    },
    async (request) => {
      const me = caller(request)
      const body = request.body
      const params = body.params ?? {}
      const now = clock.now()
      const context = {
        dialect,
        organizationId: me.organizationId,
        now,
        tzOffsetHours: request.tzOffsetHours,
      }
      // Checked now, as GET /opportunity/ checks them: a bad filter is a 400 naming it inside `params`.
      try {
        const searches = await opportunitySearchConditions(db, context, params)
        filteredOpportunities(db, me.organizationId, params, request.tzOffsetHours, searches)
      } catch (error) {
        inParams(error)
      }
      await checkReferences(db, me.organizationId, params)
      return insert(me, request, now, {
        object_type: 'opportunity',
        format: body.format,
        type: 'opportunities',
        date_format: body.date_format,
        fields: body.fields,
        query: null,
        params: JSON.stringify(params),
      })
    },
  )
}
