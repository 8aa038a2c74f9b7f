import { Readable } from 'node:stream'
import { Type } from '@sinclair/typebox'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { stringify } from 'csv-stringify'
import type { Selectable, SelectQueryBuilder } from 'kysely'
import {
  AUDIT_ACTIONS,
  AUDIT_LOG_LIMIT_MAX,
  auditEntrySchema,
  type AuditEntry,
} from '@leadline/shared/audit-log-schema'
import { listEnvelopeSchema } from '@leadline/shared/list'
import type { PlatformDeps } from '../../platform/deps.js'
import type { EventTable, Tables } from '../../platform/data/database.js'
import { defineFilters } from '../../platform/data/list-filters.js'
import { fetchPage, listQuerySchema } from '../../platform/http/list.js'
import { requireAdmin } from '../../platform/security/roles.js'
import { contentDisposition } from '../../email/attachments/email-attachment-routes.js'
import { AUDIT_OBJECT_TYPE } from '../events/audit-repo.js'
import { escapeFormula } from '../exports/export-rows.js'

// The audit log (decision 0073): the event log's audit entries, for the organization's admins alone.

const tags = ['audit log']

const auditFilters = defineFilters('audit_log', {
  action: {
    column: 'action',
    ops: ['eq', 'in'],
    values: AUDIT_ACTIONS,
    refusal: `Must be one of ${AUDIT_ACTIONS.join(', ')}.`,
    description: `One of ${AUDIT_ACTIONS.join(', ')} (\`action__in\`: several, comma-separated).`,
  },
  user_id: { column: 'user_id', ops: ['eq'], description: 'Entries of what this user did.' },
  client_address: { column: 'client_address', ops: ['eq'], description: 'Entries of requests from this address.' },
  date_created: {
    column: 'date_created',
    kind: 'timestamp',
    ops: ['gt', 'gte', 'lt', 'lte'],
    description: 'A date (UTC) or an ISO 8601 timestamp.',
  },
})

const listQuery = Type.Object({
  ...listQuerySchema('default', AUDIT_LOG_LIMIT_MAX).properties,
  ...auditFilters.properties,
})
const csvQuery = Type.Object(auditFilters.properties)

type EventRow = Selectable<EventTable>

/** A stored JSON object, or `{}` if the text somehow holds something else. */
function objectOf(text: string): Record<string, unknown> {
  const value: unknown = JSON.parse(text)
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {}
}

const textOrNull = (value: unknown) => (typeof value === 'string' ? value : null)

function entryView(row: EventRow): AuditEntry {
  const data = objectOf(row.data)
  const details = data.details
  return {
    id: row.id,
    date_created: row.date_created,
    action: row.action,
    user_id: row.user_id,
    actor_name: textOrNull(data.actor_name),
    actor_email: textOrNull(data.actor_email),
    object_type: textOrNull(data.object_type) ?? '',
    object_id: row.object_id,
    client_address: row.client_address,
    details: typeof details === 'object' && details !== null && !Array.isArray(details) ? { ...details } : {},
    request_id: row.request_id,
    api_key_id: row.api_key_id,
  }
}

const CSV_COLUMNS = [
  'date_created',
  'action',
  'user_id',
  'actor_name',
  'actor_email',
  'object_type',
  'object_id',
  'client_address',
  'details',
  'request_id',
] as const
/** Rows read by one query of a CSV download. */
const CSV_BATCH = 500

/** An entry as a CSV row: every text cell escaped as exports escape them, so no cell runs as a formula. */
function csvRow(entry: AuditEntry): string[] {
  return CSV_COLUMNS.map((column) => {
    const value = column === 'details' ? JSON.stringify(entry.details) : entry[column]
    return escapeFormula(value ?? '')
  })
}

export const auditRoutes: FastifyPluginAsyncTypebox<PlatformDeps> = async (app, { db }) => {
  /** The organization's audit entries the query's filters keep (a 400 naming a wrong one). */
  function filtered(organizationId: string, query: Record<string, unknown>) {
    const checked = auditFilters.check(query)
    let entries: SelectQueryBuilder<Tables, 'event', object> = db
      .selectFrom('event')
      .where('organization_id', '=', organizationId)
      .where('object_type', '=', AUDIT_OBJECT_TYPE)
    for (const condition of auditFilters.conditions(checked)) entries = entries.where(condition)
    return entries
  }

  app.get(
    '/audit_log/',
    {
      schema: {
        tags,
        summary: 'The audit log, newest first (admin): sign-ins, keys, roles, exports, imports, webhooks, bulk deletes',
        description:
          'Entries are kept for `LEADLINE_AUDIT_RETENTION_DAYS` (365 by default). Filters combine; paged with ' +
          '`_skip` and `_limit`.',
        querystring: listQuery,
        response: { 200: listEnvelopeSchema(auditEntrySchema) },
      },
    },
    async (request) => {
      const me = requireAdmin(request)
      const page = await fetchPage(
        filtered(me.organizationId, request.query).selectAll().orderBy('seq', 'desc'),
        request.query,
      )
      return { has_more: page.has_more, data: page.data.map(entryView) }
    },
  )

  app.get(
    '/audit_log/csv/',
    {
      schema: {
        tags,
        summary: 'The audit log as CSV, newest first (admin), with the filters of GET /audit_log/',
        description:
          'Every entry the filters keep, one row each. Cells that a spreadsheet would run as a formula begin with ' +
          "`'`, as exports write them; `details` is JSON.",
        querystring: csvQuery,
      },
    },
    async (request, reply) => {
      const me = requireAdmin(request)
      // Checked before the answer starts, so a wrong filter is a 400 rather than a broken file.
      const entries = filtered(me.organizationId, request.query)
      async function* records() {
        yield [...CSV_COLUMNS]
        let before: number | undefined
        for (;;) {
          let batch = entries.selectAll().orderBy('seq', 'desc').limit(CSV_BATCH)
          if (before !== undefined) batch = batch.where('seq', '<', before)
          const rows = await batch.execute()
          for (const row of rows) yield csvRow(entryView(row))
          const last = rows.at(-1)
          if (last === undefined || rows.length < CSV_BATCH) return
          before = last.seq
        }
      }
      return reply
        .header('content-type', 'text/csv; charset=utf-8')
        .header('content-disposition', contentDisposition('audit-log.csv'))
        .header('x-content-type-options', 'nosniff')
        .send(Readable.from(records()).pipe(stringify()))
    },
  )
}
