// Close's webhook event filters: a small JSON language a subscription uses to pick the events it wants beyond their
// object type and action. One validator for what a client sends, one pure evaluator for every event.

export type JsonValue = null | boolean | number | string | readonly JsonValue[] | { readonly [key: string]: JsonValue }

export type WebhookFilter =
  | { readonly type: 'equals'; readonly value: JsonValue }
  | { readonly type: 'not_equals'; readonly value: JsonValue }
  | { readonly type: 'is_null' }
  | { readonly type: 'non_null' }
  | { readonly type: 'contains'; readonly value: JsonValue }
  | { readonly type: 'and'; readonly filters: readonly WebhookFilter[] }
  | { readonly type: 'or'; readonly filters: readonly WebhookFilter[] }
  | { readonly type: 'not'; readonly filter: WebhookFilter }
  | { readonly type: 'field_accessor'; readonly field: string; readonly filter: WebhookFilter }
  | { readonly type: 'any_array_value'; readonly filter: WebhookFilter }

export type WebhookFilterType = WebhookFilter['type']

type Member = 'value' | 'filters' | 'filter' | 'field'

/** Each filter type and the members it requires besides `type` (and takes no others). */
const MEMBERS: Readonly<Record<WebhookFilterType, readonly Member[]>> = {
  equals: ['value'],
  not_equals: ['value'],
  is_null: [],
  non_null: [],
  contains: ['value'],
  and: ['filters'],
  or: ['filters'],
  not: ['filter'],
  field_accessor: ['field', 'filter'],
  any_array_value: ['filter'],
}

export const WEBHOOK_FILTER_TYPES: readonly WebhookFilterType[] = Object.keys(MEMBERS).filter(isFilterType)

function isFilterType(type: string): type is WebhookFilterType {
  return Object.hasOwn(MEMBERS, type)
}

/** How deep filters and the JSON values in them may nest, counted from the outermost filter (1). */
export const WEBHOOK_FILTER_MAX_DEPTH = 32
/** How many filters and JSON values (each array element, object member, scalar) one filter may hold in all. */
export const WEBHOOK_FILTER_MAX_PARTS = 1000

/** Where in a filter a problem is: member names and list indexes from the outermost filter. */
export type WebhookFilterPath = readonly (string | number)[]

export interface WebhookFilterProblem {
  path: WebhookFilterPath
  /** A lower-case phrase, e.g. `unknown filter type "equal"`. */
  message: string
}

interface Walk {
  parts: number
}

class Problem extends Error {
  constructor(
    readonly path: WebhookFilterPath,
    readonly problem: string,
  ) {
    super(problem)
  }
}

function isPlainObject(value: unknown): value is object {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false
  const proto: unknown = Object.getPrototypeOf(value)
  return proto === Object.prototype || proto === null
}

/** A member of an object when it has it as its own, else undefined (never one inherited from a prototype). */
function ownMember(value: object, key: string): unknown {
  return Object.hasOwn(value, key) ? (Reflect.get(value, key) as unknown) : undefined
}

function count(walk: Walk, path: WebhookFilterPath, depth: number): void {
  walk.parts += 1
  if (walk.parts > WEBHOOK_FILTER_MAX_PARTS)
    throw new Problem([], `the filter has more than ${WEBHOOK_FILTER_MAX_PARTS} parts`)
  if (depth > WEBHOOK_FILTER_MAX_DEPTH)
    throw new Problem(path, `filters and values nest deeper than ${WEBHOOK_FILTER_MAX_DEPTH} levels`)
}

function checkJson(value: unknown, path: WebhookFilterPath, depth: number, walk: Walk): void {
  count(walk, path, depth)
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new Problem(path, 'not a JSON value')
    return
  }
  if (Array.isArray(value)) {
    value.forEach((item: unknown, index) => {
      checkJson(item, [...path, index], depth + 1, walk)
    })
    return
  }
  if (!isPlainObject(value)) throw new Problem(path, 'not a JSON value')
  for (const key of Object.keys(value)) checkJson(ownMember(value, key), [...path, key], depth + 1, walk)
}

const describeType = (type: string) => `${/^[aeiou]/.test(type) ? 'an' : 'a'} "${type}" filter`

function checkFilter(input: unknown, path: WebhookFilterPath, depth: number, walk: Walk): void {
  count(walk, path, depth)
  if (!isPlainObject(input)) throw new Problem(path, 'must be a filter object such as {"type": "is_null"}')
  const type = ownMember(input, 'type')
  if (type === undefined) throw new Problem([...path, 'type'], 'missing "type"')
  if (typeof type !== 'string') throw new Problem([...path, 'type'], '"type" must be a string')
  if (!isFilterType(type))
    throw new Problem(
      [...path, 'type'],
      `unknown filter type ${JSON.stringify(type)} (one of ${WEBHOOK_FILTER_TYPES.join(', ')})`,
    )
  const members = MEMBERS[type]
  for (const key of Object.keys(input)) {
    if (key !== 'type' && !members.some((m) => m === key))
      throw new Problem([...path, key], `unknown member ${JSON.stringify(key)} of ${describeType(type)}`)
  }
  for (const member of members) {
    const at = [...path, member]
    if (!Object.hasOwn(input, member)) throw new Problem(at, `${describeType(type)} needs "${member}"`)
    const value = ownMember(input, member)
    switch (member) {
      case 'value':
        checkJson(value, at, depth + 1, walk)
        break
      case 'field':
        if (typeof value !== 'string' || value === '') throw new Problem(at, '"field" must be a non-empty string')
        break
      case 'filter':
        checkFilter(value, at, depth + 1, walk)
        break
      case 'filters':
        if (!Array.isArray(value)) throw new Problem(at, '"filters" must be a list of filters')
        value.forEach((item: unknown, index) => {
          checkFilter(item, [...at, index], depth + 1, walk)
        })
        break
    }
  }
}

/** The first thing wrong with `input` as a webhook filter, with where it is; undefined when it is a filter. */
export function webhookFilterProblem(input: unknown): WebhookFilterProblem | undefined {
  try {
    checkFilter(input, [], 1, { parts: 0 })
    return undefined
  } catch (error) {
    if (error instanceof Problem) return { path: error.path, message: error.problem }
    throw error
  }
}

export function isWebhookFilter(input: unknown): input is WebhookFilter {
  return webhookFilterProblem(input) === undefined
}

/** `extra_filter.filters[1].type` for the path `['filters', 1, 'type']` under `extra_filter`. */
export function formatWebhookFilterPath(path: WebhookFilterPath, root = 'extra_filter'): string {
  return path.reduce<string>((text, part) => (typeof part === 'number' ? `${text}[${part}]` : `${text}.${part}`), root)
}

/** `extra_filter.filters[1].type: unknown filter type "equal" (…)`. */
export function describeWebhookFilterProblem(problem: WebhookFilterProblem, root = 'extra_filter'): string {
  return `${formatWebhookFilterPath(problem.path, root)}: ${problem.message}`
}

/**
 * Deep JSON equality: the same scalars, arrays with equal items in the same order, objects with the same keys and
 * equal values whatever their order. Recursion follows `expected` (a filter's value, whose depth is bounded), so an
 * arbitrarily deep `actual` costs no more than that.
 */
export function jsonEqual(actual: unknown, expected: JsonValue): boolean {
  if (expected === null || typeof expected !== 'object') return actual === expected
  if (isJsonArray(expected)) {
    if (!Array.isArray(actual) || actual.length !== expected.length) return false
    const items: readonly unknown[] = actual
    return expected.every((item, index) => jsonEqual(items[index], item))
  }
  if (typeof actual !== 'object' || actual === null || Array.isArray(actual)) return false
  const keys = Object.keys(expected)
  if (Object.keys(actual).length !== keys.length) return false
  return keys.every((key) => Object.hasOwn(actual, key) && jsonEqual(ownMember(actual, key), expected[key] ?? null))
}

function isJsonArray(value: JsonValue): value is readonly JsonValue[] {
  return Array.isArray(value)
}

function matches(filter: WebhookFilter, current: unknown): boolean {
  switch (filter.type) {
    case 'equals':
      return jsonEqual(current ?? null, filter.value)
    case 'not_equals':
      return !jsonEqual(current ?? null, filter.value)
    case 'is_null':
      return current === null || current === undefined
    case 'non_null':
      return current !== null && current !== undefined
    case 'contains': {
      const wanted = filter.value
      if (Array.isArray(current)) return current.some((item: unknown) => jsonEqual(item ?? null, wanted))
      return typeof current === 'string' && typeof wanted === 'string' && current.includes(wanted)
    }
    case 'and':
      return filter.filters.every((member) => matches(member, current))
    case 'or':
      return filter.filters.some((member) => matches(member, current))
    case 'not':
      return !matches(filter.filter, current)
    case 'field_accessor': {
      const field =
        typeof current === 'object' && current !== null && !Array.isArray(current)
          ? ownMember(current, filter.field)
          : undefined
      return matches(filter.filter, field ?? null)
    }
    case 'any_array_value':
      return Array.isArray(current) && current.some((item: unknown) => matches(filter.filter, item ?? null))
  }
}

/**
 * Whether `event` (an event as `/event/{id}/` answers it: `{user_id, object_type, action, data, previous_data,
 * changed_fields, lead_id, …}`) passes `filter`. A missing field, or a field of something that is not an object, is
 * null; `contains` looks for an equal item in a list or a substring in a string; `any_array_value` never matches
 * anything but a list. Pure and total: it throws on no JSON input.
 */
export function webhookFilterMatches(filter: WebhookFilter, event: unknown): boolean {
  return matches(filter, event ?? null)
}
