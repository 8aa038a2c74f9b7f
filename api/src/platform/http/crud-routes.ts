import { Type, type TSchema } from '@sinclair/typebox'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { SelectQueryBuilder } from 'kysely'
import { listEnvelopeSchema } from '@leadline/shared/list'
import type { Db, Tables, Tx } from '../data/database.js'
import { found } from '../data/find-or-404.js'
import type { KeyOwner } from '../security/api-key-repo.js'
import { requireAdminOver } from '../security/roles.js'
import { NotFoundError } from './errors.js'
import { caller } from './request-context.js'
import { fetchPage, fieldsQuerySchema, listQuerySchema, type ListQuery, type Page } from './list.js'

// The skeleton every plain resource shares (outcomes, pipelines, statuses, phone numbers, webhooks, email accounts
// and templates): a list in the envelope, one object, create, change and delete answering `{}`. A routes file
// declares its schemas through `crudSchemas` and writes only what its handlers do differently.

/** `:id` of the routes that name one object. */
export const idParams = Type.Object({ id: Type.String() })

/** What a delete answers: `{}`. */
export const deletedSchema = Type.Object({})

interface Text {
  summary: string
  description?: string
}

function text(about: string | Text): Text {
  return typeof about === 'string' ? { summary: about } : about
}

/** How a resource's routes are documented. */
export interface CrudDocs {
  /** A create or update documents the `_fields` it takes (default); contacts, opportunities and tasks never did. */
  writeFields?: boolean
  /** A delete documents its `{}` answer (default); contacts, opportunities and tasks never did. */
  deleteAnswer?: boolean
  /** Left out of the OpenAPI document: an older path kept for the clients that still use it. */
  hide?: boolean
}

/** The route schemas of a resource whose objects are `item`, under `tags`. */
export function crudSchemas<S extends TSchema>(tags: string[], item: S, docs: CrudDocs = {}) {
  const tagged = docs.hide === undefined ? { tags } : { hide: docs.hide, tags }
  const writeQuery = docs.writeFields === false ? {} : { querystring: fieldsQuerySchema }
  const deleteResponse = docs.deleteAnswer === false ? {} : { response: { 200: deletedSchema } }
  /** A list that takes filters of its own besides `_skip`, `_limit` and `_fields`. */
  function listBy<Q extends TSchema>(about: string | Text, querystring: Q) {
    return { schema: { ...tagged, ...text(about), querystring, response: { 200: listEnvelopeSchema(item) } } }
  }
  return {
    list: (about: string | Text) => listBy(about, listQuerySchema()),
    listBy,
    get(about: string | Text) {
      return {
        schema: {
          ...tagged,
          ...text(about),
          params: idParams,
          querystring: fieldsQuerySchema,
          response: { 200: item },
        },
      }
    },
    /** A create that answers 200, as Close does for most resources. */
    create<B extends TSchema>(about: string | Text, body: B) {
      return { schema: { ...tagged, ...text(about), ...writeQuery, body, response: { 200: item } } }
    },
    createWith201<B extends TSchema, R extends TSchema = S>(about: string | Text, body: B, created?: R) {
      return {
        schema: { ...tagged, ...text(about), ...writeQuery, body, response: { 201: created ?? item } },
      }
    },
    update<B extends TSchema>(about: string | Text, body: B) {
      return {
        schema: {
          ...tagged,
          ...text(about),
          params: idParams,
          ...writeQuery,
          body,
          response: { 200: item },
        },
      }
    },
    delete(about: string | Text) {
      return { schema: { ...tagged, ...text(about), params: idParams, ...deleteResponse } }
    },
  }
}

/** One page of `query` in the list envelope, each row as `view` shows it. */
export async function listPage<DB, TB extends keyof DB, O, V>(
  query: SelectQueryBuilder<DB, TB, O>,
  page: ListQuery,
  view: (row: O) => V,
): Promise<Page<V>> {
  const rows = await fetchPage(query, page)
  return { has_more: rows.has_more, data: rows.data.map(view) }
}

/** `listPage` for views built a page at a time (names of users, statuses of pipelines). */
export async function listPageViews<DB, TB extends keyof DB, O, V>(
  query: SelectQueryBuilder<DB, TB, O>,
  page: ListQuery,
  views: (rows: O[]) => Promise<V[]>,
): Promise<Page<V>> {
  const rows = await fetchPage(query, page)
  return { has_more: rows.has_more, data: await views(rows.data) }
}

/** `GET /x/:id/`: the caller's organization's object as `view` shows it, or a 404 `"<what> not found."`. */
export async function viewOne<R, V>(
  db: Db,
  me: KeyOwner,
  id: string,
  target: Target<R>,
  view: (row: NonNullable<R>) => V,
): Promise<V> {
  return view(found(await target.find(db, me.organizationId, id), target.what))
}

/** How a change finds its object: by organization and id, a 404 `"<what> not found."` when it is not there. */
export interface Target<R> {
  find: (db: Db, organizationId: string, id: string) => Promise<R | undefined>
  what: string
  /** Taken first in the transaction: serializes the organization's writes that must see each other. */
  lock?: (tx: Tx, organizationId: string) => Promise<void>
}

/** A change to one object, in a transaction: `lock`, then the object read again (404 when gone), then `work`. */
export async function changeOne<R, T>(
  db: Db,
  me: KeyOwner,
  id: string,
  target: Target<R>,
  work: (tx: Tx, row: NonNullable<R>) => Promise<T>,
): Promise<T> {
  return db.transaction().execute(async (tx) => {
    if (target.lock !== undefined) await target.lock(tx, me.organizationId)
    const row = found(await target.find(tx, me.organizationId, id), target.what)
    return work(tx, row)
  })
}

/**
 * An admin's change to one object: the role check comes first, with one read and no lock (a non-admin hears 404 for
 * an id not of the organization, else 403; platform/security/roles.ts), then `changeOne`.
 */
export async function adminChange<R, T>(
  db: Db,
  request: FastifyRequest,
  id: string,
  target: Target<R>,
  work: (tx: Tx, row: NonNullable<R>, me: KeyOwner) => Promise<T>,
): Promise<T> {
  const me = await requireAdminOver(
    request,
    (organizationId) => target.find(db, organizationId, id),
    () => new NotFoundError(target.what),
  )
  return changeOne(db, me, id, target, (tx, row) => work(tx, row, me))
}

/** What `readRoutes` registers for a resource. */
export interface ReadRoutes<R, TB extends keyof Tables, O, V> {
  /** The resource's path, `/outcome/`: the list is `GET <path>`, one object `GET <path>:id/`. */
  path: string
  list: { schema: object }
  one: { schema: object }
  /** The organization's objects, in the list's order. */
  query: (db: Db, organizationId: string) => SelectQueryBuilder<Tables, TB, O>
  target: Target<R>
  view: (row: O | NonNullable<R>) => V
  /** Who may read: any member by default (`caller`); `requireAdmin` for an admin's resource. */
  who?: (request: FastifyRequest) => KeyOwner
}

/** `GET <path>`, the organization's objects in the list envelope, and `GET <path>:id/`, one of them or a 404. */
export function readRoutes<R, TB extends keyof Tables, O, V>(
  app: FastifyInstance,
  db: Db,
  routes: ReadRoutes<R, TB, O, V>,
): void {
  const who = routes.who ?? caller
  app.get(routes.path, routes.list, async (request) =>
    listPage(routes.query(db, who(request).organizationId), request.query as ListQuery, routes.view),
  )
  app.get(`${routes.path}:id/`, routes.one, async (request) =>
    viewOne(db, who(request), (request.params as { id: string }).id, routes.target, routes.view),
  )
}
