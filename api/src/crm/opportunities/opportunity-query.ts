import { sql, type RawBuilder, type SqlBool } from 'kysely'
import type { Db, Dialect } from '../../platform/data/database.js'
import { resolveDateDays, resolveDateValue, type DateRange } from '../../platform/text/search-dates.js'
import { leadSearchIds } from '../leads/lead-search.js'
import { ValidationError } from '../../platform/http/errors.js'
import { displayNameSql } from '../users/user-names.js'
import {
  comparison,
  containsIgnoringCase,
  dateCondition as dateRangeCondition,
  equalsIgnoringCase as sameTextIgnoringCase,
  joinAll,
  searchCondition,
  TRUE,
  type Condition,
} from '../../platform/data/sql-conditions.js'
import { dateRefusal, SearchQueryError } from '../../platform/text/search-parse.js'
import { parseOpportunityQuery, type OpportunityExpr } from './opportunity-query-parse.js'

// Compiles `query` (the opportunity search) and `lead_query` (the lead search, choosing opportunities by their lead)
// to conditions on `opportunity` joined to `opportunity_status`, the same on SQLite and Postgres.

export interface OpportunitySearchContext {
  dialect: Dialect
  organizationId: string
  now: Date
  tzOffsetHours: number
}

function contains(text: RawBuilder<unknown>, value: string, ctx: OpportunitySearchContext): Condition {
  return containsIgnoringCase(text, value, ctx.dialect)
}

function equalsIgnoringCase(text: RawBuilder<unknown>, value: string, ctx: OpportunitySearchContext): Condition {
  return sameTextIgnoringCase(text, value, ctx.dialect)
}

/**
 * A whole number within `limit` of zero. Anything past it compares the same with every stored value, and Postgres
 * reads the parameter as the column's type, which a larger one would overflow.
 */
function bounded(text: string, limit: number): number {
  return Math.max(-limit, Math.min(limit, Number(text)))
}

const displayName = displayNameSql('u')

/** The organization's members whose display name is `value`, ignoring case. */
function membersNamed(value: string, ctx: OpportunitySearchContext): RawBuilder<unknown> {
  return sql`select u.id from membership m join "user" u on u.id = m.user_id
    where m.organization_id = ${ctx.organizationId} and ${equalsIgnoringCase(displayName, value, ctx)}`
}

function statusesLabelled(value: string, ctx: OpportunitySearchContext): RawBuilder<unknown> {
  return sql`select id from opportunity_status where organization_id = ${ctx.organizationId} and ${equalsIgnoringCase(sql.ref('label'), value, ctx)}`
}

/**
 * Date values are ranges in the caller's zone (platform/text/search-dates.ts): `:` inside, `>` after, `<` before. Timestamps
 * compare with the instants a value covers, `date_won` with the days; both are text that sorts as it compares.
 */
function dateCondition(
  column: RawBuilder<unknown>,
  expr: FieldExpr,
  ctx: OpportunitySearchContext,
  resolve: (text: string, now: Date, tzOffsetHours: number) => DateRange,
): Condition {
  return dateRangeCondition(column, expr.op, expr.value, ctx, resolve, (error) => dateRefusal(error, expr.offset))
}

type FieldExpr = Extract<OpportunityExpr, { kind: 'field' }>

function fieldCondition(expr: FieldExpr, ctx: OpportunitySearchContext): Condition {
  const { field, op, value } = expr
  switch (field) {
    case 'note':
      return contains(sql.ref('opportunity.note'), value, ctx)
    case 'value':
      return comparison(sql.ref('opportunity.value'), op, bounded(value, Number.MAX_SAFE_INTEGER))
    case 'confidence':
      return comparison(sql.ref('opportunity.confidence'), op, bounded(value, 1000))
    case 'value_period':
      return sql<SqlBool>`opportunity.value_period = ${value}`
    case 'status':
      return sql<SqlBool>`(opportunity.status_id = ${value} or ${equalsIgnoringCase(sql.ref('opportunity_status.label'), value, ctx)})`
    case 'status_type':
      return sql<SqlBool>`opportunity_status.type = ${value}`
    case 'pipeline':
      return sql<SqlBool>`opportunity_status.pipeline_id in (select id from pipeline where organization_id = ${ctx.organizationId} and (id = ${value} or ${equalsIgnoringCase(sql.ref('name'), value, ctx)}))`
    case 'pipeline_id':
      return sql<SqlBool>`opportunity_status.pipeline_id = ${value}`
    case 'user':
      return sql<SqlBool>`(opportunity.user_id = ${value} or opportunity.user_id in (${membersNamed(value, ctx)}))`
    case 'date_won':
      return dateCondition(sql.ref('opportunity.date_won'), expr, ctx, resolveDateDays)
    case 'date_created':
    case 'date_updated':
      return dateCondition(sql.ref(`opportunity.${field}`), expr, ctx, resolveDateValue)
    case 'id':
    case 'status_id':
    case 'user_id':
    case 'lead_id':
    case 'contact_id':
      return sql<SqlBool>`${sql.ref(`opportunity.${field}`)} = ${value}`
    default:
      throw new Error(`opportunity search field ${field} has no condition`)
  }
}

/** A string of a status change's JSON `data` (written by opportunity-routes.ts recordStatusChange). */
function changeData(key: string, ctx: OpportunitySearchContext): RawBuilder<string | null> {
  return ctx.dialect === 'sqlite'
    ? sql<string | null>`json_extract(a.data, ${`$.${key}`})`
    : sql<string | null>`(cast(a.data as jsonb) ->> ${key})`
}

/**
 * A status as a change recorded it: by id, by the label it had then, or by the label it has now (a status renamed
 * since is still found by its new name).
 */
function changedStatus(side: 'old' | 'new', value: string, ctx: OpportunitySearchContext): Condition {
  const id = changeData(`${side}_status_id`, ctx)
  return joinAll(
    [
      sql<SqlBool>`${id} = ${value}`,
      equalsIgnoringCase(changeData(`${side}_status_label`, ctx), value, ctx),
      sql<SqlBool>`${id} in (${statusesLabelled(value, ctx)})`,
    ],
    'or',
  )
}

function changeFieldCondition(expr: FieldExpr, ctx: OpportunitySearchContext): Condition {
  const { field, value } = expr
  switch (field) {
    case 'old_status':
      return changedStatus('old', value, ctx)
    case 'new_status':
      return changedStatus('new', value, ctx)
    case 'old_status_id':
    case 'new_status_id':
    case 'old_status_type':
    case 'new_status_type':
      return sql<SqlBool>`${changeData(field, ctx)} = ${value}`
    case 'date':
      return dateCondition(sql.ref('a.date_created'), expr, ctx, resolveDateValue)
    case 'user':
      return sql<SqlBool>`(a.user_id = ${value} or a.user_id in (${membersNamed(value, ctx)}))`
    case 'user_id':
      return sql<SqlBool>`a.user_id = ${value}`
    default:
      throw new Error(`status change field ${field} has no condition`)
  }
}

type FieldCompiler = (expr: FieldExpr, ctx: OpportunitySearchContext) => Condition

function compile(expr: OpportunityExpr, ctx: OpportunitySearchContext, onField: FieldCompiler): Condition {
  return searchCondition(
    expr,
    (part) => compile(part, ctx, onField),
    (term) => {
      switch (term.kind) {
        case 'text':
          return contains(sql.ref('opportunity.note'), term.value, ctx)
        case 'field':
          return onField(term, ctx)
        case 'status_change': {
          const where = term.where === null ? TRUE : compile(term.where, ctx, changeFieldCondition)
          return sql<SqlBool>`exists (select 1 from activity a where a.organization_id = ${ctx.organizationId}
        and a.opportunity_id = opportunity.id and a.type = 'OpportunityStatusChange' and ${where})`
        }
      }
    },
  )
}

/** The condition an opportunity search puts on the list; undefined when it has no terms. Throws SearchQueryError. */
export function opportunityQueryCondition(text: string, ctx: OpportunitySearchContext): Condition | undefined {
  const expr = parseOpportunityQuery(text)
  return expr === null ? undefined : compile(expr, ctx, fieldCondition)
}

/**
 * The conditions `query` and `lead_query` put on GET /opportunity/ (none for absent or empty ones). A query that
 * cannot run is a 400 naming the parameter and the column at fault, both parameters at once when both are wrong.
 */
export async function opportunitySearchConditions(
  db: Db,
  ctx: OpportunitySearchContext,
  params: { query?: string | undefined; lead_query?: string | undefined },
): Promise<Condition[]> {
  const conditions: Condition[] = []
  const errors: Record<string, string> = {}
  if (params.query !== undefined) {
    try {
      const condition = opportunityQueryCondition(params.query, ctx)
      if (condition !== undefined) conditions.push(condition)
    } catch (error) {
      if (!(error instanceof SearchQueryError)) throw error
      errors.query = error.message
    }
  }
  if (params.lead_query !== undefined) {
    try {
      const leads = await leadSearchIds(db, { ...ctx, query: params.lead_query })
      if (leads !== undefined) conditions.push(sql<SqlBool>`opportunity.lead_id in (${leads})`)
    } catch (error) {
      const message = error instanceof ValidationError ? error.fieldErrors.query : undefined
      if (message === undefined) throw error
      errors.lead_query = message
    }
  }
  if (Object.keys(errors).length > 0) throw new ValidationError(errors)
  return conditions
}
