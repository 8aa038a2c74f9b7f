import { createHash } from 'node:crypto'
import { Type } from '@sinclair/typebox'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { LIST_LIMIT_MAX } from '@leadline/shared/list'
import type { SelectQueryBuilder } from 'kysely'
import type { Tables } from '../../platform/data/database.js'
import type { PlatformDeps } from '../../platform/deps.js'
import { NotFoundError, ValidationError } from '../../platform/http/errors.js'
import { fieldsQuerySchema } from '../../platform/http/list.js'
import { caller } from '../../platform/http/request-context.js'
import { checkValues, defineFilters } from '../../platform/data/list-filters.js'
import { EVENT_ACTIONS } from './event-repo.js'
import { AUDIT_OBJECT_TYPE } from './audit-repo.js'
import { eventSchema, eventView } from './event-view.js'
import { findOr404 } from '../../platform/data/find-or-404.js'

const tags = ['events']
const params = Type.Object({ id: Type.String() })
const text = (description: string) => Type.Optional(Type.String({ description }))

const eventFilters = defineFilters('event', {
  object_type: {
    column: 'object_type',
    ops: ['eq'],
    description: '`lead`, `contact`, `opportunity`, `task.lead`, `activity.note`, …',
  },
  object_id: { column: 'object_id', ops: ['eq'], description: 'Events of this object only.' },
  action: {
    column: 'action',
    ops: ['eq'],
    values: EVENT_ACTIONS,
    refusal: `Must be one of ${EVENT_ACTIONS.join(', ')}.`,
    description: `One of ${EVENT_ACTIONS.join(', ')}.`,
  },
  lead_id: {
    column: 'lead_id',
    ops: ['eq'],
    description: 'Events of this lead and of everything under it (contacts, opportunities, tasks, activities).',
  },
  user_id: { column: 'user_id', ops: ['eq'], description: 'Events of changes this user made.' },
  request_id: {
    column: 'request_id',
    ops: ['eq'],
    description: 'Events of one API request (`req_…`, as the API logs it).',
  },
  date_updated: {
    column: 'date_updated',
    kind: 'timestamp',
    ops: ['gt', 'gte', 'lt', 'lte'],
    description: 'A date (UTC) or an ISO 8601 timestamp.',
  },
})

const listQuery = Type.Object({
  _limit: Type.Optional(Type.Integer({ minimum: 1, maximum: LIST_LIMIT_MAX.event, default: LIST_LIMIT_MAX.event })),
  _cursor: text(
    '`cursor_next` or `cursor_previous` of an earlier answer, with the same filters (`date_updated` ones may differ); ' +
      'empty for the first page.',
  ),
  _fields: Type.Optional(Type.String()),
  ...eventFilters.properties,
})

export interface Cursor {
  organizationId: string
  seq: number
  /** `next`: older events than `seq`; `previous`: newer ones. */
  direction: 'next' | 'previous'
  /**
   * Only in the ids of the event stream (event-stream.ts): every event up to this `seq` had been sent when the
   * stream passed `seq`, so resuming re-reads from here. As a `_cursor` such an id reads the events after `seq`.
   */
  floor?: number
  /**
   * Only in the cursors of `/event/`: the fingerprint of the filters of the list they page (all but `date_updated`),
   * which the next request must give again. Cursors made before it was kept have none and page any filters.
   */
  filters?: string
}

export function encodeCursor(cursor: Cursor): string {
  const parts: unknown[] = [cursor.organizationId, cursor.seq, cursor.direction]
  if (cursor.floor !== undefined) parts.push(cursor.floor)
  else if (cursor.filters !== undefined) parts.push(null, cursor.filters)
  return Buffer.from(JSON.stringify(parts)).toString('base64url')
}

/** The filters a cursor stays with: every one given but the `date_updated` ranges, which Close lets change. */
const CURSOR_FILTERS = Object.keys(eventFilters.properties).filter((param) => !param.startsWith('date_updated'))

function filtersFingerprint(query: Record<string, unknown>): string {
  const given = CURSOR_FILTERS.map((param) => [param, query[param] ?? null])
  return createHash('sha256').update(JSON.stringify(given)).digest('base64url').slice(0, 16)
}

/**
 * A cursor of this organization, or a 400 on `field` (`_cursor`, or where the stream read its id): one from another
 * organization is no cursor here.
 */
export function decodeCursor(raw: string, organizationId: string, field = '_cursor', what = 'cursor'): Cursor {
  let parsed: unknown
  try {
    parsed = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8'))
  } catch {
    parsed = undefined
  }
  const parts = Array.isArray(parsed) && parsed.length >= 3 && parsed.length <= 5 ? parsed.map((p: unknown) => p) : []
  const [owner, seq, direction, floor, filters] = parts
  const notOurs = ValidationError.field(field, `Not a ${what} of this event list.`)
  if (typeof owner !== 'string' || !isSeq(seq)) throw notOurs
  if (direction !== 'next' && direction !== 'previous') throw notOurs
  if (parts.length === 4 && (direction !== 'previous' || !isSeq(floor) || floor > seq)) throw notOurs
  if (parts.length === 5 && (floor !== null || typeof filters !== 'string')) throw notOurs
  if (owner !== organizationId) throw ValidationError.field(field, `Not a ${what} of this organization.`)
  return {
    organizationId,
    seq,
    direction,
    ...(isSeq(floor) ? { floor } : {}),
    ...(typeof filters === 'string' ? { filters } : {}),
  }
}

function isSeq(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0
}

// The view lives apart so the event writer can build it without importing the routes.
export { eventView, type EventView } from './event-view.js'

export interface EventRouteOptions extends PlatformDeps {
  /** Every `object_type` the log writes: a filter on another is refused, not answered with nothing. */
  objectTypes: readonly string[]
}

export const eventRoutes: FastifyPluginAsyncTypebox<EventRouteOptions> = async (app, { db, objectTypes }) => {
  app.get(
    '/event/',
    {
      schema: {
        tags,
        summary: 'The event log: every change, newest first, paged with `_cursor`',
        description: 'Events are kept for `LEADLINE_EVENT_RETENTION_DAYS` (30 by default).',
        querystring: listQuery,
        response: {
          200: Type.Object({
            data: Type.Array(eventSchema),
            cursor_next: Type.Union([Type.String(), Type.Null()], { description: 'Older events, if any.' }),
            cursor_previous: Type.Union([Type.String(), Type.Null()], { description: 'Newer events, if any.' }),
          }),
        },
      },
    },
    async (request) => {
      const me = caller(request)
      const query = request.query
      const raw = query as Record<string, unknown>
      // Not a documented parameter (Close's log has none): refused, so a client paging with it learns of _cursor.
      if (raw._skip !== undefined) throw ValidationError.field('_skip', 'The event log pages with _cursor, not _skip.')
      const checked = eventFilters.check(query)
      if (query.object_type !== undefined)
        checkValues('object_type', [query.object_type], objectTypes, 'Not an object type of the event log.')
      const limit = query._limit ?? LIST_LIMIT_MAX.event
      const filters = filtersFingerprint(raw)
      // Close reads an empty cursor as none: the first page.
      const given = query._cursor?.trim() ?? ''
      const cursor = given === '' ? undefined : decodeCursor(given, me.organizationId)
      if (cursor?.filters !== undefined && cursor.filters !== filters)
        throw ValidationError.field('_cursor', 'Not a cursor of this event list: give the filters it was made with.')

      // Audit entries live on the log but are not events of it (decision 0073): admins read them at /audit_log/.
      let filtered: EventQuery = db
        .selectFrom('event')
        .where('organization_id', '=', me.organizationId)
        .where('object_type', '!=', AUDIT_OBJECT_TYPE)
      for (const condition of eventFilters.conditions(checked)) filtered = filtered.where(condition)

      const newer = cursor?.direction === 'previous'
      let page = filtered.selectAll()
      if (cursor !== undefined) page = page.where('seq', newer ? '>' : '<', cursor.seq)
      const rows = await page
        .orderBy('seq', newer ? 'asc' : 'desc')
        .limit(limit + 1)
        .execute()
      const more = rows.length > limit
      const shown = rows.slice(0, limit)
      if (newer) shown.reverse()
      const first = shown[0]
      const last = shown.at(-1)
      const at = (row: { seq: number }, direction: Cursor['direction']) =>
        encodeCursor({ organizationId: me.organizationId, seq: row.seq, direction, filters })
      // Older events lie past the last one shown when this page stopped short of them (or, going to newer ones,
      // when any are left behind); newer ones before the first when a page went back, or this one came from a cursor.
      const older = last !== undefined && (newer ? await exists(filtered, '<', last.seq) : more)
      const younger =
        first !== undefined && (newer ? more : cursor !== undefined && (await exists(filtered, '>', first.seq)))
      return {
        data: shown.map(eventView),
        cursor_next: older ? at(last, 'next') : null,
        cursor_previous: younger ? at(first, 'previous') : null,
      }
    },
  )

  app.get(
    '/event/:id/',
    { schema: { tags, summary: 'One event', params, querystring: fieldsQuerySchema, response: { 200: eventSchema } } },
    async (request) => {
      const row = await findOr404(db, 'event', caller(request).organizationId, request.params.id, 'Event')
      if (row.object_type === AUDIT_OBJECT_TYPE) throw new NotFoundError('Event')
      return eventView(row)
    },
  )
}

type EventQuery = SelectQueryBuilder<Tables, 'event', object>

/** Whether the filtered log holds an event before (`<`) or after (`>`) `seq`. */
async function exists(filtered: EventQuery, op: '<' | '>', seq: number): Promise<boolean> {
  return (await filtered.select('seq').where('seq', op, seq).limit(1).executeTakeFirst()) !== undefined
}
