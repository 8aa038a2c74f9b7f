import { sql, type RawBuilder, type SqlBool } from 'kysely'
import { Type, type TOptional, type TString } from '@sinclair/typebox'
import { localDateAt } from '@leadline/shared/tz-offset'
import { ValidationError } from '../http/errors.js'
import { commaValues, parseDirected } from '../http/list.js'
import {
  DATE_OR_TIMESTAMP,
  parseCalendarDate,
  parseDayOrInstant,
  parseTimestampBound,
  type DayOrInstant,
} from './calendar-dates.js'
import { FALSE } from './sql-conditions.js'

// The list-filter kit: a resource declares its filters once, as data, and gets the query string's schema (and so
// its OpenAPI text), the checking of the values (a 400 naming the parameter) and the SQL conditions.

export type Comparator = 'lt' | 'lte' | 'gt' | 'gte'
export type FilterOp = 'eq' | 'in' | Comparator
export const COMPARATORS = { lt: '<', lte: '<=', gt: '>', gte: '>=' } as const
/** The ranges in the order most lists document them. */
export const RANGE_OPS: readonly Comparator[] = ['lt', 'gt', 'lte', 'gte']

export interface FilterSpec {
  /** The parameters' stem, when not the key (a field whose parameters the document lists apart). */
  name?: string
  /**
   * The column compared (`table.column`, or an expression for joined and computed ones). Without one, the kit
   * declares and checks the filter and the resource applies it.
   */
  column?: string | RawBuilder<unknown>
  /**
   * `text` (the default) compares as given; `boolean` reads true/false/1/0; `date` is a calendar day (a range bound
   * may be an instant, read as a day in the caller's zone); `timestamp` compares stored instants.
   */
  kind?: 'text' | 'boolean' | 'date' | 'timestamp'
  /** The parameters, in the order the document lists them: `x`, `x__in`, `x__lt`, … */
  ops: readonly FilterOp[]
  /** The only values accepted. */
  values?: readonly string[]
  /** The field error for a value outside `values`; by default `"v" is not one of a, b.` */
  refusal?: string
  /** Compared lower-cased (the column is lower-cased by its expression). */
  lowercase?: boolean
  /** A timestamp's reader, when not the usual day-or-instant one. */
  read?: (text: string) => string | undefined
  /** The parameters' descriptions: one for all of them, or by operator. */
  description?: string | Partial<Record<FilterOp, string>>
}

/** A filter the request gave, checked: its values for `eq` and `in`, its bound for a range. */
export type CheckedFilter = CheckedValues | CheckedRange
interface CheckedBase {
  field: string
  param: string
  spec: FilterSpec
}
export interface CheckedValues extends CheckedBase {
  op: 'eq' | 'in'
  values: (string | number)[]
}
export interface CheckedRange extends CheckedBase {
  op: Comparator
  bound: DayOrInstant
}

/** How one filter becomes a condition, when a resource compares it its own way. */
export type ConditionOf = (filter: CheckedFilter) => RawBuilder<SqlBool>

export interface ConditionOptions {
  /** The caller's zone (X-TZ-Offset), in which an instant bounding a `date` filter is read as a day. */
  tzOffsetHours?: number
  /** Other columns than the declared ones (a rollup table), or other conditions, by field. */
  columns?: Record<string, string | RawBuilder<unknown> | ConditionOf>
}

function paramOf(field: string, op: FilterOp): string {
  return op === 'eq' ? field : `${field}__${op}`
}

function descriptionOf(spec: FilterSpec, op: FilterOp): string | undefined {
  return typeof spec.description === 'string' ? spec.description : spec.description?.[op]
}

function columnRef(column: string | RawBuilder<unknown>): RawBuilder<unknown> {
  return typeof column === 'string' ? sql.ref(column) : column
}

/** The values of `param` must be among `allowed`; a 400 naming it otherwise. */
export function checkValues(param: string, wanted: string[], allowed: readonly string[], refusal?: string): void {
  const wrong = wanted.find((v) => !allowed.includes(v))
  if (wrong !== undefined) {
    throw ValidationError.field(param, refusal ?? `${JSON.stringify(wrong)} is not one of ${allowed.join(', ')}.`)
  }
}

function readBoolean(param: string, raw: string): number {
  const value = raw.trim().toLowerCase()
  if (['true', '1'].includes(value)) return 1
  if (['false', '0'].includes(value)) return 0
  throw ValidationError.field(param, 'Must be true or false.')
}

function readBound(spec: FilterSpec, param: string, raw: string): DayOrInstant {
  if (spec.kind === 'timestamp') {
    const instant = (spec.read ?? parseTimestampBound)(raw)
    if (instant === undefined) throw ValidationError.field(param, DATE_OR_TIMESTAMP)
    return { instant }
  }
  const bound = parseDayOrInstant(raw)
  if (bound === undefined) throw ValidationError.field(param, DATE_OR_TIMESTAMP)
  return bound
}

function check(field: string, spec: FilterSpec, op: FilterOp, param: string, raw: string): CheckedFilter {
  if (op !== 'eq' && op !== 'in') return { field, param, spec, op, bound: readBound(spec, param, raw) }
  if (spec.kind === 'boolean') return { field, param, spec, op, values: [readBoolean(param, raw)] }
  if (spec.kind === 'date' && op === 'eq' && parseCalendarDate(raw) === undefined) {
    throw ValidationError.field(param, 'Enter a date (YYYY-MM-DD).')
  }
  const wanted = op === 'eq' ? [raw] : commaValues(raw)
  if (spec.values !== undefined) checkValues(param, wanted, spec.values, spec.refusal)
  return { field, param, spec, op, values: spec.lowercase === true ? wanted.map((v) => v.toLowerCase()) : wanted }
}

/** A bound as the column holds it: a day for a `date` column, a stored instant for a `timestamp` one. */
function boundValue(filter: CheckedRange, tzOffsetHours: number): string {
  const { bound } = filter
  if ('day' in bound) return filter.spec.kind === 'date' ? bound.day : `${bound.day}T00:00:00.000000+00:00`
  return filter.spec.kind === 'date' ? localDateAt(new Date(bound.instant), tzOffsetHours) : bound.instant
}

/** The condition a checked filter makes on `column`. */
export function columnCondition(
  column: string | RawBuilder<unknown>,
  filter: CheckedFilter,
  tzOffsetHours = 0,
): RawBuilder<SqlBool> {
  const ref = columnRef(column)
  if ('values' in filter) {
    if (filter.values.length === 0) return FALSE
    return filter.op === 'eq' && filter.values.length === 1
      ? sql<SqlBool>`${ref} = ${filter.values[0]}`
      : sql<SqlBool>`${ref} in (${sql.join(filter.values)})`
  }
  return sql<SqlBool>`${ref} ${sql.raw(COMPARATORS[filter.op])} ${boundValue(filter, tzOffsetHours)}`
}

type ParamOf<K extends string, O> = O extends 'eq' ? K : O extends FilterOp ? `${K}__${O}` : never
/** The parameter names a set of filter declarations takes. */
export type FilterParams<S> = {
  [K in keyof S & string]: S[K] extends { ops: readonly (infer O)[] }
    ? ParamOf<S[K] extends { name: infer N extends string } ? N : K, O>
    : never
}[keyof S & string]

export interface ListFilters<P extends string = string> {
  resource: string
  /** The query string's properties, in declaration order, for the route's schema (and the OpenAPI document). */
  properties: Record<P, TOptional<TString>>
  /** Every parameter name the filters take. */
  params: ReadonlySet<string>
  /** The filters given in `raw`, checked (a 400 naming the first wrong one), in declaration order. */
  check(raw: Record<string, unknown>, skip?: (param: string) => boolean): CheckedFilter[]
  /** The conditions of the checked filters that have a column (or a condition in `options.columns`). */
  conditions(checked: CheckedFilter[], options?: ConditionOptions): RawBuilder<SqlBool>[]
  /**
   * The query string's filters with those of a body's `_params` added: an object of filters, each a filter of
   * this resource (a field error `_params.<name>` otherwise, added to `errors`).
   */
  withParams(
    query: Record<string, unknown>,
    extra: unknown,
    errors: Record<string, string>,
  ): Record<string, string | undefined>
}

/** Declares a resource's filters once: see `ListFilters` for what the kit makes of them. */
export function defineFilters<const S extends Record<string, FilterSpec>>(
  resource: string,
  specs: S,
): ListFilters<FilterParams<S>> {
  const entries: [string, FilterSpec][] = Object.entries(specs)
  const declared = entries.flatMap(([field, spec]) =>
    spec.ops.map((op) => {
      const description = descriptionOf(spec, op)
      const schema = Type.Optional(description === undefined ? Type.String() : Type.String({ description }))
      return [paramOf(spec.name ?? field, op), schema] as const
    }),
  )
  // The names are the ones FilterParams<S> spells out from the same declarations.
  const properties = Object.fromEntries(declared) as Record<FilterParams<S>, TOptional<TString>>
  const params = new Set(declared.map(([param]) => param))
  return {
    resource,
    properties,
    params,
    check(raw, skip = () => false) {
      const checked: CheckedFilter[] = []
      for (const [field, spec] of entries) {
        for (const op of spec.ops) {
          const param = paramOf(spec.name ?? field, op)
          const given = raw[param]
          if (typeof given === 'string' && !skip(param)) checked.push(check(field, spec, op, param, given))
        }
      }
      return checked
    },
    conditions(checked, options = {}) {
      const conditions: RawBuilder<SqlBool>[] = []
      for (const filter of checked) {
        const how = options.columns?.[filter.field] ?? filter.spec.column
        if (how === undefined) continue
        conditions.push(
          typeof how === 'function' ? how(filter) : columnCondition(how, filter, options.tzOffsetHours ?? 0),
        )
      }
      return conditions
    },
    withParams(query, extra, errors) {
      const raw: Record<string, string | undefined> = {}
      for (const [key, value] of Object.entries(query)) if (typeof value === 'string') raw[key] = value
      if (extra === undefined) return raw
      if (typeof extra !== 'object' || extra === null || Array.isArray(extra)) {
        throw ValidationError.field('_params', 'Must be an object of filters.')
      }
      for (const [key, value] of Object.entries(extra)) {
        if (!params.has(key)) errors[`_params.${key}`] = `Not a ${resource} filter.`
        else raw[key] = typeof value === 'string' ? value : JSON.stringify(value)
      }
      return raw
    },
  }
}

/** The values of one `eq` or `in` filter the request gave, if it gave it. */
export function givenValues(checked: CheckedFilter[], param: string): (string | number)[] | undefined {
  const found = checked.find((f) => f.param === param)
  return found === undefined || !('values' in found) ? undefined : found.values
}

export interface ListOrder<F extends string> {
  fields: readonly F[]
  /** `_order_by`: one of the fields, a leading "-" reversing it; a 400 on anything else. */
  parse(raw: string | undefined): { field: F; descending: boolean } | undefined
  /**
   * The ORDER BY terms: nulls last either way (`NULLS LAST`, which an index of the column serves on SQLite in both
   * directions; a column declared not null says none), then by `idColumn` in the same direction, so pages never
   * repeat or skip a row. Postgres compares ids byte-wise, as SQLite does.
   */
  terms(
    order: { field: F; descending: boolean },
    idColumn: string,
    dialect: 'sqlite' | 'postgres',
  ): RawBuilder<unknown>[]
}

/** A column that is never null: its order needs no rule for nulls, and any index of it gives the order as it is. */
export function notNull(column: string): { notNull: string } {
  return { notNull: column }
}

/**
 * Declares a list's `_order_by` fields, each with the column or expression it sorts by (ties by id): a column's name,
 * `notNull(name)` for one that is never null, or a function of the id's collation for an expression.
 */
export function defineOrder<F extends string>(
  columns: Record<F, string | { notNull: string } | ((collate: RawBuilder<unknown>) => RawBuilder<unknown>)>,
): ListOrder<F> {
  const fields = Object.keys(columns).filter((f): f is F => Object.hasOwn(columns, f))
  return {
    fields,
    parse: (raw) => parseDirected(raw, '_order_by', fields),
    terms(order, idColumn, dialect) {
      const collate = dialect === 'postgres' ? sql` collate "C"` : sql``
      const column = columns[order.field]
      const direction = sql.raw(order.descending ? 'desc' : 'asc')
      const expression =
        typeof column === 'string'
          ? sql`${sql.ref(column)} ${direction} nulls last`
          : typeof column === 'function'
            ? sql`${column(collate)} ${direction} nulls last`
            : sql`${sql.ref(column.notNull)} ${direction}`
      return [expression, sql`${sql.ref(idColumn)}${collate} ${direction}`]
    },
  }
}
