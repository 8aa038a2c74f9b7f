import { ValidationError } from './errors.js'
import { Type, type Static } from '@sinclair/typebox'
import { LIST_LIMIT_DEFAULT, LIST_LIMIT_MAX } from '@leadline/shared/list'
import type { SelectQueryBuilder } from 'kysely'

/** Deeper than any organization's list goes; bounded so that values like 1e309 never reach SQL. */
export const LIST_SKIP_MAX = 1_000_000_000

/** `_skip`, `_limit` (with the resource's maximum) and `_fields`: the query string every list accepts. */
export function listQuerySchema(resource: keyof typeof LIST_LIMIT_MAX = 'default', limitDefault = LIST_LIMIT_DEFAULT) {
  return Type.Object({
    _skip: Type.Optional(Type.Integer({ minimum: 0, maximum: LIST_SKIP_MAX, default: 0 })),
    _limit: Type.Optional(Type.Integer({ minimum: 0, maximum: LIST_LIMIT_MAX[resource], default: limitDefault })),
    _fields: Type.Optional(Type.String()),
  })
}
export type ListQuery = Static<ReturnType<typeof listQuerySchema>>

/** A `field__in` filter's values: comma-separated, trimmed, empty ones dropped. */
export function commaValues(raw: string): string[] {
  return raw
    .split(',')
    .map((v) => v.trim())
    .filter((v) => v !== '')
}

export const fieldsQuerySchema = Type.Object({ _fields: Type.Optional(Type.String()) })

export interface Page<T> {
  has_more: boolean
  data: T[]
}

/** Runs a list query one row past the page to learn `has_more` without counting. */
export async function fetchPage<DB, TB extends keyof DB, O>(
  query: SelectQueryBuilder<DB, TB, O>,
  page: ListQuery,
): Promise<Page<O>> {
  const skip = page._skip ?? 0
  const limit = page._limit ?? LIST_LIMIT_DEFAULT
  const rows = await query
    .offset(skip)
    .limit(limit + 1)
    .execute()
  return { has_more: rows.length > limit, data: rows.slice(0, limit) }
}

/** Pages an in-memory list, for small per-organization collections such as statuses. */
export function pageOf<T>(items: T[], page: ListQuery): Page<T> {
  const skip = page._skip ?? 0
  const limit = page._limit ?? LIST_LIMIT_DEFAULT
  return { has_more: items.length > skip + limit, data: items.slice(skip, skip + limit) }
}

/** `_order_by` or `_group_by`: one of `fields`, a leading "-" reversing it; 400 on anything else. */
export function parseDirected<F extends string>(
  raw: string | undefined,
  param: '_order_by' | '_group_by',
  fields: readonly F[],
): { field: F; descending: boolean } | undefined {
  if (raw === undefined || raw === '') return undefined
  const descending = raw.startsWith('-')
  const name = descending ? raw.slice(1) : raw
  const field = fields.find((f) => f === name)
  if (field === undefined) {
    const verb = param === '_order_by' ? 'order' : 'group'
    throw ValidationError.field(param, `Cannot ${verb} by ${JSON.stringify(name)}: use one of ${fields.join(', ')}.`)
  }
  return { field, descending }
}
