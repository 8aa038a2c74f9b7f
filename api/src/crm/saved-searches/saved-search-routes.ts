import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyRequest } from 'fastify'
import { Type } from '@sinclair/typebox'
import { savedSearchSchema, type SavedSearchType } from '@leadline/shared/saved-search-schema'
import type { SavedSearchTable } from '../../platform/data/database.js'
import type { KeyOwner } from '../../platform/security/api-key-repo.js'
import type { Deps } from '../deps.js'
import { found } from '../../platform/data/find-or-404.js'
import { crudSchemas, listPage } from '../../platform/http/crud-routes.js'
import { ForbiddenError, ValidationError } from '../../platform/http/errors.js'
import { listQuerySchema } from '../../platform/http/list.js'
import { caller } from '../../platform/http/request-context.js'
import { formatTimestamp } from '../../platform/data/time.js'
import { cleanText } from '../../platform/text/text.js'
import { checkLeadSearch } from '../leads/lead-search.js'
import {
  deleteSavedSearch,
  findVisibleSavedSearch,
  insertSavedSearch,
  savedSearchView,
  updateSavedSearch,
  visibleSavedSearchesQuery,
  type SavedSearchFields,
} from './saved-search-repo.js'
import {
  createBody,
  leadlineType,
  listedTypes,
  listFilters,
  NAME_MAX,
  sQueryType,
  updateBody,
} from './saved-search-input.js'

// `/saved_search/`, Close's Smart Views (decision 0056). Everyone sees the organization's shared views and their own;
// another user's unshared view is a 404. A view is changed or deleted by its user, and a shared one by an admin too.

const schemas = crudSchemas(['smart views'], savedSearchSchema)
const listQuery = Type.Composite([listQuerySchema(), listFilters])

/** A shared view is its user's or an admin's to change; an unshared one is visible to its user only. */
function requireMayChange(me: KeyOwner, row: SavedSearchTable): void {
  if (row.user_id === me.userId || me.role === 'admin') return
  throw new ForbiddenError('Only its user or an admin of the organization can change or delete a shared Smart View.')
}

interface Asked {
  name?: string | null | undefined
  description?: string | null | undefined
  type?: string | null | undefined
  query?: string | null | undefined
  s_query?: Record<string, unknown> | null | undefined
  selected_fields?: SavedSearchFields['selected_fields'] | undefined
  is_shared?: boolean | undefined
  shared_with?: string[] | undefined
}

/** Whether the view is to be shared: `is_shared`, or Close's `shared_with`, which must agree when both are sent. */
function sharedOf(body: Asked, organizationId: string, current: boolean): boolean {
  let shared = body.is_shared
  if (body.shared_with !== undefined) {
    const [only] = body.shared_with
    if (only !== undefined && only !== organizationId) {
      throw ValidationError.field(
        'shared_with',
        'Leadline shares a Smart View with the whole organization only: send [] or the organization’s id.',
      )
    }
    const withEveryone = only !== undefined
    if (shared !== undefined && shared !== withEveryone) {
      throw ValidationError.field('shared_with', 'is_shared and shared_with disagree.')
    }
    shared = withEveryone
  }
  return shared ?? current
}

/** The kind of view asked for: `type`, or what `s_query` asks for (the two must agree), or the view's own. */
function typeOf(body: Asked, current: SavedSearchType): SavedSearchType {
  const fromType = body.type === undefined || body.type === null ? undefined : leadlineType(body.type, 'type')
  const fromSQuery = body.s_query === undefined || body.s_query === null ? undefined : sQueryType(body.s_query)
  if (fromType !== undefined && fromSQuery !== undefined && fromType !== fromSQuery) {
    throw ValidationError.field('s_query', `s_query asks for ${fromSQuery} objects where type is ${fromType}.`)
  }
  return fromType ?? fromSQuery ?? current
}

export const savedSearchRoutes: FastifyPluginAsyncTypebox<Deps> = async (app, { db, dialect, clock }) => {
  async function visibleOr404(request: FastifyRequest, id: string, tx = db): Promise<SavedSearchTable> {
    return found(await findVisibleSavedSearch(tx, caller(request), id), 'Smart View')
  }

  /** The fields a view is to have: `body` over `before`, each checked; the query as a search would read it. */
  async function checkedFields(
    request: FastifyRequest,
    me: KeyOwner,
    body: Asked,
    before: SavedSearchFields,
  ): Promise<SavedSearchFields> {
    const name = body.name === undefined || body.name === null ? before.name : body.name.trim()
    if (name === '') throw ValidationError.field('name', 'A Smart View needs a name.')
    if (name.length > NAME_MAX) throw ValidationError.field('name', `At most ${String(NAME_MAX)} characters.`)
    const query = body.query === undefined ? before.query : body.query === null ? null : body.query.trim() || null
    if (query !== null && body.query !== undefined) {
      await checkLeadSearch(db, {
        dialect,
        organizationId: me.organizationId,
        query,
        now: clock.now(),
        tzOffsetHours: request.tzOffsetHours,
      })
    }
    return {
      name,
      description: body.description === undefined ? before.description : (cleanText(body.description) ?? null),
      type: typeOf(body, before.type),
      query,
      s_query: body.s_query === undefined ? before.s_query : body.s_query,
      selected_fields: body.selected_fields === undefined ? before.selected_fields : body.selected_fields,
      is_shared: sharedOf(body, me.organizationId, before.is_shared),
    }
  }

  app.get(
    '/saved_search/',
    schemas.listBy('The Smart Views you may use: the organization’s shared ones and your own, by name', listQuery),
    async (request) => {
      const me = caller(request)
      const types = listedTypes(request.query)
      if (types.length === 0) return { has_more: false, data: [] }
      return listPage(visibleSavedSearchesQuery(db, dialect, me, types), request.query, savedSearchView)
    },
  )

  app.get('/saved_search/:id/', schemas.get('One Smart View'), async (request) =>
    savedSearchView(await visibleOr404(request, request.params.id)),
  )

  app.post(
    '/saved_search/',
    schemas.create('Create a Smart View (answers 200): yours alone, or shared with the organization', createBody),
    async (request) => {
      const me = caller(request)
      const fields = await checkedFields(request, me, request.body, {
        name: '',
        description: null,
        type: 'lead',
        query: null,
        s_query: null,
        selected_fields: null,
        is_shared: false,
      })
      const now = formatTimestamp(clock.now())
      const row = await insertSavedSearch(db, { ...fields, organizationId: me.organizationId, userId: me.userId, now })
      return savedSearchView(row)
    },
  )

  app.put(
    '/saved_search/:id/',
    schemas.update('Change a Smart View (yours, or a shared one as an admin)', updateBody),
    async (request) => {
      const me = caller(request)
      const now = formatTimestamp(clock.now())
      const row = await visibleOr404(request, request.params.id)
      requireMayChange(me, row)
      const before = savedSearchView(row)
      const fields = await checkedFields(request, me, request.body, before)
      return db.transaction().execute(async (tx) => {
        // Read again in the transaction: a view deleted (or unshared) meanwhile is a 404 or 403, not a row written back.
        const current = await visibleOr404(request, request.params.id, tx)
        requireMayChange(me, current)
        return savedSearchView(await updateSavedSearch(tx, current, fields, { userId: me.userId, now }))
      })
    },
  )

  app.delete(
    '/saved_search/:id/',
    schemas.delete('Delete a Smart View (yours, or a shared one as an admin)'),
    async (request) => {
      const me = caller(request)
      const row = await visibleOr404(request, request.params.id)
      requireMayChange(me, row)
      await deleteSavedSearch(db, row)
      return {}
    },
  )
}
