import { VALUE_PERIODS } from '@leadline/shared/money'
import { OPPORTUNITY_STATUS_TYPES } from '@leadline/shared/status-schema'
import * as parser from '../../../generated/opportunity-query-parser.js'
import {
  parseSearchTree,
  readSearchTree,
  lookupField,
  checkDateValue,
  SearchQueryError,
  column,
  orList,
  type LeafReader,
  type FieldTable,
  type SearchExpr,
} from '../../platform/text/search-parse.js'
import type { Comparator, SearchTree } from '../../platform/text/search-tree.js'

// Parses and checks an opportunity search (`query` of GET /opportunity/). The terms, errors and limits are the lead
// search's; the fields are the opportunity's own, and `status_change(…)` holds a query over status changes.

type OpportunityLeaf =
  | { kind: 'text'; value: string; offset: number }
  /** `field` is the canonical name (aliases resolved); `value` is as written, checked against the field's kind. */
  | { kind: 'field'; field: string; op: Comparator; value: string; offset: number }
  | { kind: 'status_change'; where: OpportunityExpr | null; offset: number }

export type OpportunityExpr = SearchExpr<OpportunityLeaf>

/**
 * How a field compares: `contains` (text, case-insensitive), `exact` (an id), `named` (a name or label,
 * case-insensitive, or an id), `choice` (one of a few words), `number`, `day` (a calendar date) or `instant` (a
 * timestamp). Only numbers and dates take `>`, `>=`, `<`, `<=`.
 */
type FieldKind = 'contains' | 'exact' | 'named' | 'choice' | 'number' | 'day' | 'instant'

interface FieldSpec {
  kind: FieldKind
  choices?: readonly string[]
}

interface Scope extends FieldTable<FieldSpec> {
  /** How an error names the place: "" at the top, " in status_change(…)" inside a call. */
  where: string
}

const topScope: Scope = {
  where: '',
  fields: {
    note: { kind: 'contains' },
    value: { kind: 'number' },
    confidence: { kind: 'number' },
    value_period: { kind: 'choice', choices: VALUE_PERIODS },
    status: { kind: 'named' },
    status_id: { kind: 'exact' },
    status_type: { kind: 'choice', choices: OPPORTUNITY_STATUS_TYPES },
    pipeline: { kind: 'named' },
    pipeline_id: { kind: 'exact' },
    user: { kind: 'named' },
    user_id: { kind: 'exact' },
    date_won: { kind: 'day' },
    date_created: { kind: 'instant' },
    date_updated: { kind: 'instant' },
    id: { kind: 'exact' },
    lead_id: { kind: 'exact' },
    contact_id: { kind: 'exact' },
  },
  aliases: { created: 'date_created', updated: 'date_updated', status_label: 'status' },
}

const changeScope: Scope = {
  where: ' in status_change(…)',
  fields: {
    old_status: { kind: 'named' },
    new_status: { kind: 'named' },
    old_status_id: { kind: 'exact' },
    new_status_id: { kind: 'exact' },
    old_status_type: { kind: 'choice', choices: OPPORTUNITY_STATUS_TYPES },
    new_status_type: { kind: 'choice', choices: OPPORTUNITY_STATUS_TYPES },
    date: { kind: 'instant' },
    user: { kind: 'named' },
    user_id: { kind: 'exact' },
  },
  aliases: { created: 'date', date_created: 'date' },
}

/** Parses and checks a query; null when it has no terms. Throws SearchQueryError naming the column at fault. */
export function parseOpportunityQuery(text: string): OpportunityExpr | null {
  const raw = parseSearchTree(parser, text)
  return raw === null ? null : readSearchTree(raw, leafReader(topScope))
}

function leafReader(scope: Scope): LeafReader<OpportunityLeaf> {
  return (node, inner) => {
    switch (node.kind) {
      case 'text':
        if (scope !== topScope) {
          throw new SearchQueryError(
            `Unexpected word ${JSON.stringify(node.value)}${scope.where} at ${column(node.offset)}: write field:value with ${orList(Object.keys(scope.fields))}`,
            node.offset,
          )
        }
        return { kind: 'text', value: node.value, offset: node.offset }
      case 'field':
        return fieldExpr(node, scope)
      case 'call': {
        if (node.name.toLowerCase() !== 'status_change') {
          throw new SearchQueryError(
            `Unknown search "${node.name}(…)" at ${column(node.offset)}: the only one is status_change(…)`,
            node.offset,
          )
        }
        if (scope !== topScope) {
          throw new SearchQueryError(
            `Unexpected status_change(…)${scope.where} at ${column(node.offset)}: put each one at the top level`,
            node.offset,
          )
        }
        const where = node.expr === null ? null : inner(node.expr, leafReader(changeScope))
        return { kind: 'status_change', where, offset: node.offset }
      }
    }
  }
}

function fieldExpr(node: Extract<SearchTree, { kind: 'field' }>, scope: Scope): OpportunityExpr {
  const at = column(node.offset)
  const written = node.name.toLowerCase()
  const { field, spec } = lookupField(scope, node.name)
  if (spec === undefined) {
    throw new SearchQueryError(
      `Unknown field "${node.name}"${scope.where} at ${at}: search ${orList(Object.keys(scope.fields))}`,
      node.offset,
    )
  }
  const comparable = spec.kind === 'number' || spec.kind === 'day' || spec.kind === 'instant'
  if (node.op !== ':' && !comparable) {
    throw new SearchQueryError(
      `Unexpected "${node.op}" after ${node.name} at ${at}: only numbers and dates can be compared; write ${written}:value`,
      node.offset,
    )
  }
  const expr = { kind: 'field' as const, field, op: node.op, value: node.value, offset: node.offset }
  switch (spec.kind) {
    case 'number':
      if (!/^-?\d+$/.test(node.value.trim())) {
        const example = field === 'value' ? 'value>=10000 (in cents)' : `${field}<50`
        throw new SearchQueryError(
          `Invalid number "${node.value}" for ${field} at ${at}: expected a whole number like ${example}`,
          node.offset,
        )
      }
      return expr
    case 'choice': {
      const choice = node.value.toLowerCase()
      const choices = spec.choices ?? []
      if (!choices.includes(choice)) {
        throw new SearchQueryError(`Unknown ${field} "${node.value}" at ${at}: use ${orList(choices)}`, node.offset)
      }
      return { ...expr, value: choice }
    }
    case 'day':
    case 'instant':
      checkDate(node.value, spec.kind, node.offset)
      return expr
    default:
      return expr
  }
}

function checkDate(text: string, kind: 'day' | 'instant', offset: number): void {
  if (kind === 'day' && checkDateValue(text, offset).kind === 'time') {
    throw new SearchQueryError(
      `Unexpected time of day "${text}" at ${column(offset)}: date_won holds whole days; use YYYY-MM-DD or a relative date like "30 days ago"`,
      offset,
    )
  }
}
