import { sql, type RawBuilder, type SqlBool } from 'kysely'
import { inTransaction, type Db, type Dialect, type LeadRow } from '../../platform/data/database.js'
import { listCustomFieldDefs, type CustomFieldDef } from '../custom-fields/custom-values.js'
import { ValidationError } from '../../platform/http/errors.js'
import { foldCase } from '../../platform/text/text.js'
import {
  comparison as compared,
  containsIgnoringCase,
  containsPattern,
  dateCondition as dateRangeCondition,
  equalsIgnoringCase as sameTextIgnoringCase,
  folded,
  isAmong,
  joinAll,
  searchCondition,
  TRUE,
  type Condition,
} from '../../platform/data/sql-conditions.js'
import { resolveDateDays, resolveDateValue, type DateRange } from '../../platform/text/search-dates.js'
import { leadSearchRowids, topSearchRowid, type SearchColumn, type SearchRowids } from './lead-search-index.js'
import { isJunction, isNegation, SearchQueryError } from '../../platform/text/search-parse.js'
import { normalizeLeadQuery, parseLeadQuery, type Expr, type SortEntry } from './lead-search-parse.js'
import { dateSortKey } from '../tasks/task-list.js'
import { lastActivityOfLead } from './lead-summary-repo.js'
import {
  leadIndexes,
  INDEXED_COUNTS,
  TEXT_SORTS,
  textKey,
  type FoundText,
  type IndexedCount,
  type IndexSort,
  type TextSort,
  type TextTerms,
} from './lead-index.js'
import { evaluate, numberFields, pageOf, textTermsOf, type Plan } from './lead-index-plan.js'
import type { Bitmap } from '../../platform/data/bitmaps.js'
import type { Comparator } from '../../platform/text/search-tree.js'

// Compiles the lead search language (lead-search-parse.ts) to one SQL condition on `lead`, the same on SQLite and
// Postgres. Free text and text fields go through `lead_search`, whose trigram index (FTS5 / pg_trgm) finds the rows
// that hold a term (see docs/decisions/0007-lead-search-index.md).

interface CompileContext {
  dialect: Dialect
  organizationId: string
  now: Date
  tzOffsetHours: number
  defs: CustomFieldDef[]
  /** SQLite: the organization's range of search rowids; undefined when it has no search rows. */
  rowids: SearchRowids | undefined
  /**
   * The condition is tested on a few leads, one by one, as a page walks its sort index: conditions on a lead's other
   * rows are correlated lookups of that lead's rows, where a count or a sort gathers every matching row first.
   */
  perLead: boolean
}

function queryError(offset: number, message: string): ValidationError {
  return ValidationError.field('query', `${message} (at column ${String(offset + 1)})`)
}

/** A column compared ignoring case, through the shared helpers (platform/data/sql-conditions.ts). */
function contains(column: string, value: string, ctx: CompileContext): Condition {
  return containsIgnoringCase(sql.ref(column), value, ctx.dialect)
}

function equalsIgnoringCase(column: string, value: string, ctx: CompileContext): Condition {
  return sameTextIgnoringCase(sql.ref(column), value, ctx.dialect)
}

/** Leads with at least one row in `table` (scoped to the organization) that meets `condition`. */
function leadHas(table: string, ctx: CompileContext, condition: Condition): Condition {
  // SQLite gathers an `in (select …)` whole before the walk's first step (20,000 custom values for
  // `custom.Employees>4000`), where the walk tests a few hundred leads. Postgres plans either form itself.
  if (ctx.perLead && ctx.dialect === 'sqlite') {
    return sql<SqlBool>`exists (select 1 from ${sql.table(table)} where lead_id = lead.id and organization_id = ${ctx.organizationId} and ${condition})`
  }
  return sql<SqlBool>`lead.id in (select lead_id from ${sql.table(table)} where organization_id = ${ctx.organizationId} and ${condition})`
}

/** Digits with the punctuation people type in phone numbers: `(415) 555-0101`, `+44 20 7946 0958`. */
const PHONE_LIKE = /^\+?[\d\s().\-/]+$/

/**
 * The digits a phone number typed as `typed` is stored with: its own digits and, typed with a trunk prefix
 * (`020 7946 0958`), the national digits without it (`2079460958`, inside `+442079460958`).
 */
function typedPhoneDigits(typed: string): string[] {
  const digits = typed.replace(/\D/g, '')
  const national = digits.replace(/^0+/, '')
  return national !== digits && national.length >= 6 ? [digits, national] : [digits]
}

/** A term a lead's search row answers: one of `forms` (folded) is in `column`. */
interface DocTerm {
  column: SearchColumn
  forms: readonly string[]
}

/** The trigram index finds exactly the rows that hold a folded phrase of three characters (code points) or more. */
function indexable(term: string): boolean {
  return (term.match(/./gsu)?.length ?? 0) >= 3
}

/** A free-text term: the term itself or, for a phone number, any form it is stored in. */
function freeTextTerm(value: string): DocTerm {
  const term = foldCase(value)
  const digits = term.replace(/\D/g, '')
  // The document holds each phone's digits too (lead-search-index.ts), so "415-555-0101" finds +1 415-555-0101.
  if (PHONE_LIKE.test(term) && digits.length >= 3 && digits !== term) {
    return { column: 'body', forms: [term, ...typedPhoneDigits(term)] }
  }
  return { column: 'body', forms: [term] }
}

const TEXT_FIELDS = ['name', 'description', 'url', 'contact_name', 'city', 'state', 'zipcode', 'address'] as const
type TextField = (typeof TEXT_FIELDS)[number]

function isTextField(field: string): field is TextField {
  return TEXT_FIELDS.some((f) => f === field)
}

/**
 * A text field's column holds its values one per line, so a term of three characters or more without a line break
 * is in the column exactly when it is in one of the values. Other terms compare with the values themselves.
 */
function fieldTerm(column: SearchColumn, value: string): DocTerm | undefined {
  const term = foldCase(value)
  return indexable(term) && !term.includes('\n') ? { column, forms: [term] } : undefined
}

/**
 * `phone:…`: one of the digits the number is typed with is in one of the lead's contacts' stored numbers, which its
 * search row holds one per line (the `phone` column, migration 0051): what `phone like '%…%'` finds in
 * `contact_phone`, through the trigram index.
 */
function phoneTerm(value: string, offset: number): DocTerm {
  if (!/\d/.test(value)) throw queryError(offset, 'A phone search needs digits')
  return { column: 'phone', forms: typedPhoneDigits(value) }
}

/** The search-row term an expression is, if it is one. */
function docTerm(expr: Expr): DocTerm | undefined {
  if (expr.kind === 'text') return freeTextTerm(expr.value)
  if (expr.kind === 'field' && expr.op === ':' && expr.field === 'phone') return phoneTerm(expr.value, expr.offset)
  if (expr.kind === 'field' && expr.op === ':' && isTextField(expr.field)) return fieldTerm(expr.field, expr.value)
  return undefined
}

/** A status term, which the search row answers too (it keeps its lead's status): `status:won`, `status_id:stat_…`. */
interface StatusTerm {
  field: string
  value: string
}

function statusTerm(expr: Expr): StatusTerm | undefined {
  if (expr.kind !== 'field' || expr.op !== ':') return undefined
  return ['status', 'status_label', 'status_id'].includes(expr.field)
    ? { field: expr.field, value: expr.value }
    : undefined
}

/** Terms one search row answers together: text terms, and in an AND also statuses. */
interface DocumentGroup {
  terms: readonly DocTerm[]
  op: 'and' | 'or'
  statuses: StatusTerm[]
}

function statusCondition(term: StatusTerm, column: string, ctx: CompileContext): Condition {
  if (term.field === 'status_id') return sql<SqlBool>`${sql.ref(column)} = ${term.value}`
  return sql<SqlBool>`${sql.ref(column)} in (select id from lead_status where organization_id = ${ctx.organizationId} and ${equalsIgnoringCase('label', term.value, ctx)})`
}

function ftsPhrase(column: SearchColumn, form: string): string {
  return `{${column}} : "${form.replace(/"/g, '""')}"`
}

/** A search row holds a term: its column contains one of the term's forms (Postgres: what its trigram index serves). */
function termLike(t: DocTerm): Condition {
  return joinAll(
    t.forms.map((form) => sql<SqlBool>`${sql.ref(t.column)} like ${containsPattern(form)} escape '\\'`),
    'or',
  )
}

/**
 * SQLite: the same test, as `instr`. The columns and the forms are folded (`foldCase` leaves no upper-case ASCII), so
 * LIKE's ASCII case-insensitivity changes nothing, and a plain substring test cost a fifth less than LIKE's pattern
 * walk on the 12,482 rows `main st` checks for `st` (54 against 42 ms).
 */
function termContained(t: DocTerm): Condition {
  return joinAll(
    t.forms.map((form) => sql<SqlBool>`instr(${sql.ref(t.column)}, ${form}) > 0`),
    'or',
  )
}

/**
 * The leads whose search rows hold every term (`and`) or any of them (`or`), as a subquery of search rowids on
 * SQLite (which `lead.search_rowid` refers to) and of lead ids on Postgres. On SQLite the trigram index answers
 * terms of three characters or more in one lookup limited to the organization's rowids; shorter free-text terms are
 * checked on the rows it found (or, alone, on each of the organization's rows).
 */
function documentSet({ terms, op, statuses }: DocumentGroup, ctx: CompileContext): RawBuilder<unknown> {
  const statusHeld = statuses.map((t) => statusCondition(t, 'status_id', ctx))
  if (ctx.dialect === 'postgres') {
    const holds = terms.map(termLike)
    return sql`select lead_id from lead_search where organization_id = ${ctx.organizationId} and ${joinAll(
      [joinAll(holds, op), ...statusHeld],
      'and',
    )}`
  }
  const range = ctx.rowids
  if (range === undefined) return sql`select rowid from lead_search where 1 = 0`
  const indexed = terms.filter((t) => t.forms.every(indexable))
  const checked = terms.filter((t) => !t.forms.every(indexable))
  const likes = checked.map(termContained)
  if (op === 'or' && checked.length > 0) {
    return sql`select rowid from lead_search where rowid between ${range.first} and ${range.last} and ${joinAll(
      [...indexed.map((t) => ftsCondition([t], 'and', range)), ...likes],
      'or',
    )}`
  }
  if (statusHeld.length > 0) {
    // The status's rows, read from its index, each tested against the trigram index's matches (read once).
    const found = indexed.length === 0 ? [] : [sql<SqlBool>`+rowid in (${ftsSet(indexed, op, range)})`]
    return sql`select rowid from lead_search where organization_id = ${ctx.organizationId} and ${joinAll(
      [...statusHeld, ...found, ...likes],
      'and',
    )}`
  }
  if (indexed.length === 0) {
    return sql`select rowid from lead_search where rowid between ${range.first} and ${range.last} and ${joinAll(likes, 'and')}`
  }
  const found = ftsSet(indexed, op, range)
  if (likes.length === 0) return found
  return sql`select rowid from lead_search where rowid in (${found}) and ${joinAll(likes, 'and')}`
}

function ftsMatch(terms: DocTerm[], op: 'and' | 'or'): string {
  return terms
    .map((t) => `(${t.forms.map((form) => ftsPhrase(t.column, form)).join(' OR ')})`)
    .join(op === 'and' ? ' AND ' : ' OR ')
}

function ftsSet(terms: DocTerm[], op: 'and' | 'or', range: SearchRowids): RawBuilder<unknown> {
  return sql`select rowid from lead_search_fts where lead_search_fts match ${ftsMatch(terms, op)} and rowid between ${range.first} and ${range.last}`
}

function ftsCondition(terms: DocTerm[], op: 'and' | 'or', range: SearchRowids): Condition {
  return sql<SqlBool>`rowid in (${ftsSet(terms, op, range)})`
}

/** Leads whose search rows hold the terms: one lookup for `main st city:denver`, not one per term. */
function documentCondition(group: DocumentGroup, ctx: CompileContext): Condition {
  const range = ctx.rowids
  if (ctx.dialect === 'sqlite' && range !== undefined && group.op === 'and' && group.statuses.length === 0) {
    const indexed = group.terms.filter((t) => t.forms.every(indexable))
    const checked = group.terms.filter((t) => !t.forms.every(indexable))
    if (indexed.length > 0 && checked.length > 0) {
      // Short terms are checked on the search rows of the leads the trigram index found, one by one: a page that
      // walks its index then reads only the rows of the leads it passes, not those of every match.
      return sql<SqlBool>`(lead.search_rowid in (${ftsSet(indexed, 'and', range)}) and exists (select 1 from lead_search where rowid = lead.search_rowid and ${joinAll(
        checked.map(termContained),
        'and',
      )}))`
    }
  }
  const set = documentSet(group, ctx)
  return ctx.dialect === 'postgres' ? sql<SqlBool>`lead.id in (${set})` : sql<SqlBool>`lead.search_rowid in (${set})`
}

function comparison(column: string, op: Comparator, value: string | number): Condition {
  return compared(sql.ref(column), op, value)
}

type DateResolver = (text: string, now: Date, tzOffsetHours: number) => DateRange

/**
 * Date values are ranges in the caller's zone: `:` inside, `>` after, `<` before. Timestamps compare with the
 * instants a value covers (`resolveDateValue`), calendar dates with the days it covers (`resolveDateDays`); both are
 * fixed-width text that sorts as it compares.
 */
function dateCondition(
  column: string,
  op: Comparator,
  value: string,
  ctx: CompileContext,
  offset: number,
  resolve: DateResolver = resolveDateValue,
): Condition {
  return dateRangeCondition(sql.ref(column), op, value, ctx, resolve, (error) => queryError(offset, error.message))
}

/**
 * The rows a counted field counts (lead-search-parse.ts's `count` fields): each table has an index on `lead_id`, so a
 * lead's count is an index range. Emails and phones are those of all the lead's contacts; tasks only the open ones.
 */
const COUNTED: Readonly<Record<string, { table: string; where?: RawBuilder<unknown> }>> = {
  contacts: { table: 'contact' },
  opportunities: { table: 'opportunity' },
  tasks: { table: 'task', where: sql`and is_complete = 0` },
  addresses: { table: 'lead_address' },
  emails: { table: 'contact_email' },
  phones: { table: 'contact_phone' },
  activities: { table: 'activity' },
}

function counted(field: string): { table: string; where?: RawBuilder<unknown> } | undefined {
  return Object.hasOwn(COUNTED, field) ? COUNTED[field] : undefined
}

/** How many of a counted field's rows the lead has: a correlated count, for a condition or a sort. */
function countOf(field: string): RawBuilder<unknown> {
  const rows = counted(field)
  if (rows === undefined) throw new Error(`${field} is not a counted field`)
  return sql`(select count(*) from ${sql.table(rows.table)} where lead_id = lead.id and organization_id = lead.organization_id ${rows.where ?? sql``})`
}

/** A counted field against a number. */
function countCondition(field: string, op: Comparator, value: string): Condition {
  // Postgres reads the parameter as a bigint, which a count never comes near: a larger one compares the same.
  const count = Math.min(Number(value), Number.MAX_SAFE_INTEGER)
  return compared(countOf(field), op, count)
}

function findCustomField(name: string, ctx: CompileContext, offset: number): CustomFieldDef {
  const key = name.slice('custom.'.length)
  const def =
    ctx.defs.find((d) => d.id === key) ??
    ctx.defs.find((d) => d.name === key) ??
    ctx.defs.find((d) => d.name.toLowerCase() === key.toLowerCase())
  if (def === undefined) throw queryError(offset, `Unknown custom field "${key}"`)
  return def
}

function customCondition(field: string, op: Comparator, value: string, ctx: CompileContext, offset: number): Condition {
  const def = findCustomField(field, ctx, offset)
  let valueCondition: Condition
  if (def.type === 'number') {
    const number = Number(value)
    if (value.trim() === '' || !Number.isFinite(number)) throw queryError(offset, `"${def.name}" is a number field`)
    valueCondition = comparison('value_number', op, number)
  } else if (def.type === 'date') {
    valueCondition = dateCondition('value_text', op, value, ctx, offset, resolveDateDays)
  } else if (def.type === 'datetime') {
    valueCondition = dateCondition('value_text', op, value, ctx, offset)
  } else if (op === ':' && (def.type === 'choices' || def.type === 'user' || def.type === 'contact')) {
    valueCondition = equalsIgnoringCase('value_text', value, ctx)
  } else if (op === ':') {
    const term = fieldTerm('custom', value)
    const exact = sql<SqlBool>`exists (select 1 from custom_value where object_id = lead.id and field_id = ${def.id} and lead_id = lead.id and organization_id = ${ctx.organizationId} and ${contains('value_text', value, ctx)})`
    if (term === undefined) return exact
    // The search row holds every custom value of the lead, of any field: it finds the candidates, each then checked
    // on its own values of this field.
    return joinAll([documentCondition({ terms: [term], op: 'and', statuses: [] }, ctx), exact], 'and')
  } else {
    valueCondition = comparison('value_text', op, value)
  }
  // A lead field's values are the lead's own (object_id = lead_id); saying so would only mislead Postgres's estimates.
  return leadHas('custom_value', ctx, sql<SqlBool>`field_id = ${def.id} and ${valueCondition}`)
}

/**
 * A whole address (`bruce@acme.com`) is looked up exactly, through the (organization_id, value_lower) index; anything
 * less (`@acme.com`, `acme.com`, `bruce@`, `bruce@acme`) is found inside the addresses.
 */
const WHOLE_EMAIL = /^[^@\s]+@[^@\s.]+(?:\.[^@\s.]+)+$/

function fieldCondition(expr: Extract<Expr, { kind: 'field' }>, ctx: CompileContext): Condition {
  const { field, op, value, offset } = expr
  if (field.startsWith('custom.')) return customCondition(field, op, value, ctx, offset)
  switch (field) {
    case 'name':
    case 'description':
    case 'url':
      return contains(`lead.${field}`, value, ctx)
    case 'id':
    case 'lead_id':
      return sql<SqlBool>`lead.id = ${value}`
    case 'status_id':
    case 'status':
    case 'status_label':
      return statusCondition({ field, value }, 'lead.status_id', ctx)
    case 'contact_name':
      return leadHas('contact', ctx, contains('name', value, ctx))
    case 'email_address':
      return leadHas(
        'contact_email',
        ctx,
        WHOLE_EMAIL.test(value)
          ? sql<SqlBool>`value_lower = ${value.toLowerCase()}`
          : contains('value_lower', value, ctx),
      )
    case 'phone':
      return documentCondition({ terms: [phoneTerm(value, offset)], op: 'and', statuses: [] }, ctx)
    case 'city':
    case 'state':
    case 'zipcode':
      return leadHas('lead_address', ctx, contains(field, value, ctx))
    case 'country':
      return leadHas('lead_address', ctx, equalsIgnoringCase('country', value, ctx))
    case 'address':
      return leadHas(
        'lead_address',
        ctx,
        joinAll(
          ['address_1', 'address_2', 'city', 'state', 'zipcode', 'country'].map((c) => contains(c, value, ctx)),
          'or',
        ),
      )
    case 'date_created':
    case 'date_updated':
      return dateCondition(`lead.${field}`, op, value, ctx, offset)
    default:
      if (counted(field) !== undefined) return countCondition(field, op, value)
      throw queryError(offset, `Unknown field "${field}"`)
  }
}

/** A correlated EXISTS: cheap per lead through each table's lead_id index, unlike an IN over every row. */
function leadHasAny(table: string, where: RawBuilder<unknown> = sql``): Condition {
  return sql<SqlBool>`exists (select 1 from ${sql.table(table)} where lead_id = lead.id and organization_id = lead.organization_id ${where})`
}

/** Text that is a value: neither null nor empty. */
function filled(column: string): RawBuilder<unknown> {
  return sql`(${sql.ref(column)} is not null and ${sql.ref(column)} <> '')`
}

const ADDRESS_PARTS = ['address_1', 'address_2', 'city', 'state', 'zipcode', 'country'] as const

/** Fields every lead has a value of: its id, its status and its dates. */
const ALWAYS_PRESENT = new Set(['id', 'lead_id', 'status', 'status_id', 'status_label', 'date_created', 'date_updated'])

/**
 * `field:*`, the field has a value: text that is neither null nor empty, a list (contacts, emails, addresses, a
 * multiple-value custom field's values) with at least one item, a count of at least one. A lead always has an id, a
 * status and its dates. A contact's name, an address's city (…) has a value when one of the lead's contacts or
 * addresses has one; an address, when one of its parts has one.
 */
function presentCondition(expr: Extract<Expr, { kind: 'present' }>, ctx: CompileContext): Condition {
  const { field, offset } = expr
  if (ALWAYS_PRESENT.has(field)) return TRUE
  if (field.startsWith('custom.')) {
    const def = findCustomField(field, ctx, offset)
    return leadHas('custom_value', ctx, sql<SqlBool>`field_id = ${def.id} and value_text <> ''`)
  }
  switch (field) {
    case 'name':
    case 'url':
      return sql<SqlBool>`${filled(`lead.${field}`)}`
    case 'description':
      return sql<SqlBool>`lead.description <> ''`
    case 'contact_name':
      return leadHasAny('contact', sql`and ${filled('name')}`)
    case 'email_address':
      return leadHasAny('contact_email')
    case 'phone':
      return leadHasAny('contact_phone')
    case 'city':
    case 'state':
    case 'zipcode':
    case 'country':
      return leadHasAny('lead_address', sql`and ${filled(field)}`)
    case 'address':
      return leadHasAny('lead_address', sql`and (${sql.join(ADDRESS_PARTS.map(filled), sql` or `)})`)
    default: {
      const rows = counted(field)
      if (rows !== undefined) return leadHasAny(rows.table, rows.where)
      throw queryError(offset, `Unknown field "${field}"`)
    }
  }
}

function hasCondition(what: string, offset: number): Condition {
  switch (what) {
    case 'contacts':
      return leadHasAny('contact')
    case 'email':
      return leadHasAny('contact_email')
    case 'phone':
      return leadHasAny('contact_phone')
    case 'address':
      return leadHasAny('lead_address')
    case 'url':
      return sql<SqlBool>`(lead.url is not null and lead.url <> '')`
    case 'opportunities':
      return leadHasAny('opportunity')
    case 'tasks':
      return sql<SqlBool>`exists (select 1 from task where lead_id = lead.id and organization_id = lead.organization_id and is_complete = 0)`
    default:
      throw queryError(offset, `Unknown has: value "${what}"`)
  }
}

/**
 * The search-row terms an expression is made of, when it is nothing else: a term, the terms of an AND, or those of
 * an OR that the trigram index answers whole.
 */
function documentGroup(expr: Expr): DocumentGroup | undefined {
  const single = docTerm(expr)
  if (single !== undefined) return { terms: [single], op: 'and', statuses: [] }
  if (expr.kind === 'and') {
    const { terms, statuses, others } = partition(expr.items)
    return terms.length > 0 && others.length === 0 ? { terms, op: 'and', statuses } : undefined
  }
  if (expr.kind !== 'or') return undefined
  const terms = expr.items.map(docTerm)
  if (!terms.every((t) => t !== undefined)) return undefined
  if (!terms.every((t) => t.forms.every(indexable))) return undefined
  return { terms, op: 'or', statuses: [] }
}

/** An AND's items: the search-row terms, statuses (which join them only if there is one), and the rest. */
function partition(items: Expr[]): { terms: DocTerm[]; statuses: StatusTerm[]; others: Expr[] } {
  const terms: DocTerm[] = []
  const statuses: StatusTerm[] = []
  const others: Expr[] = []
  for (const item of items) {
    const term = docTerm(item)
    const status = statusTerm(item)
    if (term !== undefined) terms.push(term)
    else if (status !== undefined) statuses.push(status)
    else others.push(item)
  }
  return { terms, statuses, others }
}

function compile(expr: Expr, ctx: CompileContext): Condition {
  const group = documentGroup(expr)
  if (group !== undefined) return documentCondition(group, ctx)
  if (expr.kind === 'and') {
    const { terms, statuses, others } = partition(expr.items)
    if (terms.length > 0) {
      return joinAll(
        [documentCondition({ terms, op: 'and', statuses }, ctx), ...others.map((e) => compile(e, ctx))],
        'and',
      )
    }
  }
  return searchCondition(
    expr,
    (part) => compile(part, ctx),
    (term) => {
      switch (term.kind) {
        case 'text':
          return documentCondition({ terms: [freeTextTerm(term.value)], op: 'and', statuses: [] }, ctx)
        case 'field':
          return fieldCondition(term, ctx)
        case 'has':
          return hasCondition(term.what, term.offset)
        case 'all':
          return TRUE
        case 'present':
          return presentCondition(term, ctx)
      }
    },
  )
}

type Sort = Pick<SortEntry, 'field' | 'direction'>

interface Page {
  condition: Condition
  sorts: Sort[]
  skip: number
  limit: number
}

/**
 * `order by` terms for the sorts; `walk`: a first sort by date walks its index, else the index is hidden from the
 * planner. A count (`sort:activities`) is computed for each match, which is then sorted: no index holds it.
 */
function sortOrder(sorts: Sort[], ctx: CompileContext, walk: boolean): RawBuilder<unknown>[] {
  return sortTerms(sorts, ctx, walk).map((t) => sql`${t.key} ${t.dir}`)
}

/** One `order by` term: what is compared, and how (`asc`, `desc`, with `nulls last` where it says so). */
interface SortTerm {
  key: RawBuilder<unknown>
  dir: RawBuilder<unknown>
}

function sortTerms(sorts: Sort[], ctx: CompileContext, walk: boolean): SortTerm[] {
  return sorts.flatMap((s, i): SortTerm[] => {
    const dir = sql.raw(s.direction)
    if (s.field === 'name') {
      return [
        // Nameless leads (no name, or an empty one) last in both directions, as walkByName puts them; then
        // case-insensitively by code point, the same on both dialects (Postgres would otherwise use its locale's
        // collation), ties by exact name.
        { key: sql`case when coalesce(lead.name, '') = '' then 1 else 0 end`, dir: sql.raw('asc') },
        { key: sql`${folded(sql`coalesce(lead.name, '')`, ctx.dialect)}${codePoints(ctx)}`, dir },
        { key: sql`coalesce(lead.name, '')${codePoints(ctx)}`, dir },
      ]
    }
    if (counted(s.field) !== undefined) return [{ key: countOf(s.field), dir }]
    const value = valueSort(s.field, ctx)
    // Leads without a value last in both directions; the value read once per lead (a `case` would read it again).
    if (value !== undefined) {
      const key = value.text
        ? sql`${folded(sql`nullif(${value.value}, '')`, ctx.dialect)}${codePoints(ctx)}`
        : value.value
      return [{ key, dir: sql.raw(`${s.direction} nulls last`) }]
    }
    const column = sql.ref(s.field === 'date_created' ? 'lead.date_created' : 'lead.date_updated')
    if (walk || i > 0) return [{ key: column, dir }]
    return [{ key: ctx.dialect === 'postgres' ? sql`${column} || ''` : sql`+${column}`, dir }]
  })
}

/** A sort whose key is worked out for each lead (a count or a column's value) rather than read from the row. */
function computed(sort: Sort): boolean {
  return !['name', 'date_created', 'date_updated'].includes(sort.field)
}

/** A sort by a value read for each lead (`text` ones compare case-insensitively); nothing walks such an order. */
interface ValueSort {
  value: RawBuilder<unknown>
  text: boolean
}

/** Rows of `table` (or its alias) that are the sorted lead's: by the lead and, for the index, its organization. */
function ofLead(table: string): RawBuilder<unknown> {
  return sql`${sql.ref(`${table}.lead_id`)} = lead.id and ${sql.ref(`${table}.organization_id`)} = lead.organization_id`
}

/** The lead's first contact, in the lead's contact order (lead-rows.ts's contactsOfLeads). */
const FIRST_CONTACT = sql`order by c.date_created, c.position, c.id`

/**
 * What a lead is sorted by for the sort keys that are not its name, a date or a count: the values the leads list
 * shows in those columns (web/src/features/leads/lead-columns.ts), each read through an index of the lead's rows.
 */
function valueSort(field: string, ctx: CompileContext): ValueSort | undefined {
  switch (field) {
    case 'status':
      return { value: sql`(select label from lead_status where id = lead.status_id)`, text: true }
    case 'contact_name':
      return {
        value: sql`(select c.name from contact c where ${ofLead('c')} ${FIRST_CONTACT} limit 1)`,
        text: true,
      }
    case 'email_address':
    case 'phone': {
      const [table, column] = field === 'phone' ? ['contact_phone', 'phone'] : ['contact_email', 'email']
      return {
        value: sql`(select i.${sql.ref(column)} from ${sql.table(table)} i join contact c on c.id = i.contact_id
          where ${ofLead('i')} ${FIRST_CONTACT}, i.position limit 1)`,
        text: true,
      }
    }
    case 'url':
      return { value: sql.ref('lead.url'), text: true }
    case 'description':
      return { value: sql.ref('lead.description'), text: true }
    case 'last_activity':
      return { value: lastActivityOfLead(), text: false }
    case 'next_task':
      // When the first open task with a date stands in the caller's zone, as the list's Next task column shows it.
      return {
        value: sql`(select min(${dateSortKey(ctx.dialect, ctx.tzOffsetHours)}${codePoints(ctx)}) from task
          where ${ofLead('task')} and task.is_complete = 0 and task.is_dateless = 0)`,
        text: false,
      }
    case 'opportunity_value':
      // Added up whatever their currency: a list sorts by amount, as most teams sell in one.
      return {
        value: sql`(select sum(o.value) from opportunity o join opportunity_status s on s.id = o.status_id
          where ${ofLead('o')} and s.type = 'active')`,
        text: false,
      }
    default:
      return field.startsWith('custom.') ? customSort(field, ctx) : undefined
  }
}

/** A custom field's first value: a number field's as a number, the rest as text (dates sort as their ISO text). */
function customSort(field: string, ctx: CompileContext): ValueSort {
  // Known to exist: checkSorts refused the search otherwise, at the sort's column.
  const def = findCustomField(field, ctx, 0)
  const column = sql.ref(def.type === 'number' ? 'value_number' : 'value_text')
  return {
    value: sql`(select ${column} from custom_value where object_id = lead.id and field_id = ${def.id}
      and ${ofLead('custom_value')} order by position limit 1)`,
    text: def.type !== 'number',
  }
}

/** The C collation compares by code point, as SQLite does. */
function codePoints(ctx: CompileContext): RawBuilder<unknown> {
  return ctx.dialect === 'postgres' ? sql` collate "C"` : sql``
}

/** Sorts a page can walk an index for: by name (the search rows' index) or by a date (the lead's). */
function walkable(sort: Sort | undefined): boolean {
  return sort === undefined || !computed(sort)
}

/** A page in any order, by walking the first sort's date index (`walk`) or by reading and sorting the matches. */
async function readPage(db: Db, ctx: CompileContext, page: Page, walk: boolean): Promise<LeadRow[]> {
  const [first] = page.sorts
  if (page.sorts.some(computed)) return readComputedPage(db, ctx, page)
  const order = sortOrder(page.sorts, ctx, walk)
  const hint =
    walk && ctx.dialect === 'sqlite' && first !== undefined && first.field !== 'name'
      ? sql.raw(
          first.field === 'date_created'
            ? ' indexed by lead_org_created_search_idx'
            : ' indexed by lead_org_updated_search_idx',
        )
      : sql``
  const { rows } = await sql<LeadRow>`select lead.* from lead${hint}
    where lead.organization_id = ${ctx.organizationId} and ${page.condition}
    order by ${sql.join(order)}, lead.id desc limit ${page.limit} offset ${page.skip}`.execute(db)
  return rows
}

/**
 * A page sorted by keys worked out per lead: the matches' ids are sorted with their keys (each key computed once),
 * and only the page's leads are read whole. Sorting the whole rows instead carried every match's row through the
 * sorter, three times slower at 100,000 leads (decision 0060).
 */
async function readComputedPage(db: Db, ctx: CompileContext, page: Page): Promise<LeadRow[]> {
  const terms = sortTerms(page.sorts, ctx, false)
  const key = (i: number) => `page_key_${String(i)}`
  const keys = terms.map((t, i) => sql`${t.key} as ${sql.ref(key(i))}`)
  const inner = terms.map((t, i) => sql`${sql.ref(key(i))} ${t.dir}`)
  const outer = terms.map((t, i) => sql`${sql.ref(`page.${key(i)}`)} ${t.dir}`)
  const { rows } = await sql<LeadRow>`select lead.* from (
      select lead.id as page_id, ${sql.join(keys)} from lead
      where lead.organization_id = ${ctx.organizationId} and ${page.condition}
      order by ${sql.join(inner)}, lead.id desc limit ${page.limit} offset ${page.skip}
    ) as page join lead on lead.id = page.page_id
    order by ${sql.join(outer)}, lead.id desc`.execute(db)
  return rows
}

/**
 * A page by name, walking the search rows' index of folded names (the same folding and order as `readPage`'s),
 * then, past the named leads, the nameless ones. An empty name sorts with the nameless (the API never stores one).
 */
async function walkByName(db: Db, ctx: CompileContext, page: Page): Promise<LeadRow[]> {
  const [first, ...rest] = page.sorts
  const dir = sql.raw(first?.direction ?? 'asc')
  const hint = ctx.dialect === 'sqlite' ? sql` indexed by lead_search_org_name_idx cross` : sql``
  const { rows: named } = await sql<LeadRow>`select lead.* from lead_search s${hint} join lead on lead.id = s.lead_id
    where s.organization_id = ${ctx.organizationId} and s.name <> '' and lead.organization_id = ${ctx.organizationId}
      and ${page.condition}
    order by s.name${codePoints(ctx)} ${dir}, lead.name${codePoints(ctx)} ${dir}, ${sql.join([
      ...sortOrder(rest, ctx, true),
      sql`lead.id desc`,
    ])} limit ${page.limit} offset ${page.skip}`.execute(db)
  if (named.length === page.limit) return named
  const nameless = sql<SqlBool>`(lead.name is null or lead.name = '')`
  let namedCount = page.skip + named.length
  if (named.length === 0) {
    const { rows } = await sql<{ n: string | number }>`select count(*) as n from lead
      where lead.organization_id = ${ctx.organizationId} and not ${nameless} and ${page.condition}`.execute(db)
    namedCount = Number(rows[0]?.n ?? 0)
  }
  const { rows: unnamed } = await sql<LeadRow>`select lead.* from lead
    where lead.organization_id = ${ctx.organizationId} and ${nameless} and ${page.condition}
    order by ${sql.join([...sortOrder(rest, ctx, true), sql`lead.id desc`])}
    limit ${page.limit - named.length} offset ${Math.max(0, page.skip - namedCount)}`.execute(db)
  return [...named, ...unnamed]
}

/**
 * Postgres: a common word's matches are a fifth of the rows by its estimate, and it would rather read the whole
 * table (every document) than visit them through the trigram index; told not to, it takes the index.
 */
async function countWithoutSeqScan<T>(db: Db, count: RawBuilder<T>) {
  return inTransaction(db, async (tx) => {
    await sql`set local enable_seqscan = off`.execute(tx)
    return count.execute(tx)
  })
}

/**
 * How much cheaper a step of an index walk is than reading and sorting one match. On SQLite a step is an index entry
 * and a lookup in the matches gathered once; on Postgres it also tests the lead's other rows (a semi-join probe and
 * a recheck, about 19 µs), as dear as reading a match through its primary key.
 */
const WALK_ADVANTAGE: Record<Dialect, number> = { sqlite: 3, postgres: 1 }

/** Every lead of the organization, from the count its triggers keep (migration 0007). */
async function countOrganizationLeads(db: Db, organizationId: string): Promise<number> {
  const row = await db
    .selectFrom('organization_lead_count')
    .select('leads')
    .where('organization_id', '=', organizationId)
    .executeTakeFirst()
  return row?.leads ?? 0
}

/**
 * About how many leads the organization has, to weigh a walk against a sort: on SQLite its last search rowid tells
 * (deleted leads still count, and it is read from the range the search already holds); on Postgres its count.
 */
async function organizationSize(db: Db, ctx: CompileContext): Promise<number> {
  if (ctx.dialect === 'postgres') return countOrganizationLeads(db, ctx.organizationId)
  const range = ctx.rowids
  if (range === undefined) return 0
  return (await topSearchRowid(db, range)) - range.first
}

export interface LeadSearch {
  dialect: Dialect
  organizationId: string
  query: string
  skip: number
  limit: number
  now: Date
  tzOffsetHours: number
  /**
   * 'index': the in-memory index answers the searches whose sorts it keeps the keys of, outside a transaction (whose
   * writes the index cannot see yet); decision 0061. 'sql' (when left out) answers from the database alone. GET
   * /lead/ passes the process's setting (`LEADLINE_LEAD_SEARCH`, `index` unless set).
   */
  engine?: 'index' | 'sql'
}

/** The query parsed and normalized, `*` as no condition; a syntax error is a ValidationError on `query`. */
function parseSearch(text: string): { where: Expr | null; sort: SortEntry[] } {
  try {
    const normalized = normalizeLeadQuery(parseLeadQuery(text))
    // A key sorted by again orders nothing more: kept once, so a query cannot ask for hundreds of per-lead lookups.
    const seen = new Set<string>()
    const sort = normalized.sort.filter((entry) => !seen.has(entry.field) && seen.add(entry.field))
    const query = { ...normalized, sort }
    return query.where?.kind === 'all' ? { ...query, where: null } : query
  } catch (error) {
    if (error instanceof SearchQueryError) throw ValidationError.field('query', error.message)
    throw error
  }
}

/** A search's sorts by custom fields name fields the organization has. */
function checkSorts(sorts: readonly SortEntry[], ctx: CompileContext): void {
  for (const entry of sorts) if (entry.field.startsWith('custom.')) findCustomField(entry.field, ctx, entry.offset)
}

function sortsByCustomField(sorts: readonly SortEntry[]): boolean {
  return sorts.some((entry) => entry.field.startsWith('custom.'))
}

/** What compiling a search's condition needs of the organization: its lead fields, and on SQLite its rowids. */
async function compileContext(db: Db, search: Omit<LeadSearch, 'skip' | 'limit'>, empty: boolean) {
  const [defs, rowids] = empty
    ? [[], undefined]
    : await Promise.all([
        listCustomFieldDefs(db, search.organizationId, 'lead'),
        search.dialect === 'sqlite' ? leadSearchRowids(db, search.organizationId) : undefined,
      ])
  const ctx: CompileContext = {
    dialect: search.dialect,
    organizationId: search.organizationId,
    now: search.now,
    tzOffsetHours: search.tzOffsetHours,
    defs,
    rowids,
    perLead: false,
  }
  return ctx
}

/** A page of a search's leads, with the count of all it matches. */
export interface LeadPage<Row> {
  has_more: boolean
  total_results: number
  data: Row[]
}

/** All a page of cached lead views needs of a lead to say whether its view is current. */
export type LeadVersion = Pick<LeadRow, 'id' | 'revision'>

/** Runs a search: the page of leads, whether there are more, and how many match in all. */
export async function searchLeads(db: Db, search: LeadSearch): Promise<LeadPage<LeadRow>> {
  return searchLeadRows(db, search, 'all')
}

/**
 * The same search, for a list served from cached views: where the index answers it, the page is read as ids and
 * revisions only (a page of 100 whole leads was most of what a cached page made the api parse and collect on
 * Postgres); where SQL answers it, its rows are whole anyway.
 */
export async function searchLeadVersions(db: Db, search: LeadSearch): Promise<LeadPage<LeadVersion>> {
  return searchLeadRows(db, search, 'versions')
}

async function searchLeadRows(db: Db, search: LeadSearch, columns: 'all'): Promise<LeadPage<LeadRow>>
async function searchLeadRows(db: Db, search: LeadSearch, columns: 'versions'): Promise<LeadPage<LeadVersion>>
async function searchLeadRows(db: Db, search: LeadSearch, columns: 'all' | 'versions'): Promise<LeadPage<LeadVersion>> {
  const parsed = parseSearch(search.query)
  const ctx = await compileContext(db, search, parsed.where === null && !sortsByCustomField(parsed.sort))
  checkSorts(parsed.sort, ctx)
  const condition = parsed.where === null ? TRUE : compile(parsed.where, ctx)
  const base = db.selectFrom('lead').where('lead.organization_id', '=', search.organizationId).where(condition)

  const sorts = parsed.sort.length > 0 ? parsed.sort : [{ field: 'date_updated', direction: 'desc' as const }]
  if (search.engine === 'index' && !db.isTransaction) {
    const answer = await searchInIndex(db, ctx, parsed.where, sorts, search, columns)
    if (answer !== undefined) return answer
  }

  // The count comes first: a search of the search rows alone counts them without reading a lead, and a search
  // nothing matches (or a page past the last match) needs no second query.
  const group = parsed.where === null ? undefined : documentGroup(parsed.where)
  let total: number
  if (parsed.where === null) {
    total = await countOrganizationLeads(db, search.organizationId)
  } else if (group === undefined) {
    total = Number((await base.select((eb) => eb.fn.countAll<string | number>().as('n')).executeTakeFirstOrThrow()).n)
  } else {
    const count = sql<{ n: string | number }>`select count(*) as n from (${documentSet(group, ctx)}) as matches`
    total = Number(
      (ctx.dialect === 'sqlite' ? await count.execute(db) : await countWithoutSeqScan(db, count)).rows[0]?.n ?? 0,
    )
  }
  if (total <= search.skip) return { has_more: false, total_results: total, data: [] }

  // A page walks its sort index and tests each lead until the page is full, when the matches are many enough for
  // that to be short (about (skip + limit) × leads / matches steps); otherwise it reads the matches and sorts them.
  // Each database is told which, since neither planner knows how many leads a search matches.
  // A sort by a count has no index to walk.
  const walk =
    walkable(sorts[0]) &&
    (parsed.where === null ||
      (search.skip + search.limit) * (await organizationSize(db, ctx)) < total * total * WALK_ADVANTAGE[ctx.dialect])
  // Only SQLite compiles a condition differently for a walk (leadHas); Postgres keeps the one it counted with.
  const pageCondition =
    walk && ctx.dialect === 'sqlite' && parsed.where !== null
      ? compile(parsed.where, { ...ctx, perLead: true })
      : condition
  const page = { condition: pageCondition, sorts, skip: search.skip, limit: search.limit }
  const data =
    walk && sorts[0]?.field === 'name' ? await walkByName(db, ctx, page) : await readPage(db, ctx, page, walk)
  return { has_more: search.skip + data.length < total, total_results: total, data }
}

/**
 * A group of search-row terms as the index answers it: the matches of its text terms, which the index keeps once
 * found (textFound), and its statuses, which the index holds.
 */
async function documentPlan(db: Db, group: DocumentGroup, ctx: CompileContext): Promise<Plan> {
  const text: Plan = { kind: 'text', text: { op: group.op, terms: group.terms } }
  if (group.statuses.length === 0) return text
  const statuses = await Promise.all(group.statuses.map((t) => statusPlan(db, t.field, t.value, ctx)))
  return { kind: 'and', items: [text, ...statuses] }
}

/** The search rows that hold text terms, as documentSet finds them: search rowids on SQLite, else lead ids. */
async function textFound(db: Db, text: TextTerms, ctx: CompileContext): Promise<FoundText> {
  const set = documentSet({ terms: text.terms, op: text.op, statuses: [] }, ctx)
  if (ctx.dialect === 'sqlite') {
    // One row holding the rowids as a JSON array, not a row object a match: a common word's 288,000 matches among a
    // million leads took 240-470 ms as objects and 100-160 ms as one array (the trigram lookup alone 55-130). Not on
    // Postgres: its rows stream to the api while it finds more, and one aggregated text made new words slower there.
    const { rows } = await sql<{ rowids: string }>`select json_group_array(rowid) as rowids from (${set})`.execute(db)
    return { kind: 'rowids', values: numbersOf(rows[0]?.rowids ?? '[]') }
  }
  const { rows } = await countWithoutSeqScan(db, sql<{ lead_id: string }>`${set}`)
  return { kind: 'ids', values: rows.map((r) => r.lead_id) }
}

/** The numbers of a JSON array SQL built. */
function numbersOf(json: string): number[] {
  const parsed: unknown = JSON.parse(json)
  if (!Array.isArray(parsed) || !parsed.every((value) => typeof value === 'number')) {
    throw new Error('The search rows were not read as a JSON array of numbers')
  }
  return parsed
}

/** A term the index does not hold: the leads the database finds for its condition. */
async function leafPlan(db: Db, condition: Condition, ctx: CompileContext): Promise<Plan> {
  const { rows } = await sql<{ id: string }>`select lead.id as id from lead
    where lead.organization_id = ${ctx.organizationId} and ${condition}`.execute(db)
  return { kind: 'ids', values: rows.map((r) => r.id) }
}

function indexedCount(field: string): IndexedCount | undefined {
  return INDEXED_COUNTS.find((c) => c === field)
}

function isTextSort(field: string): field is TextSort {
  return (TEXT_SORTS as readonly string[]).includes(field)
}

/** `has:` as the index holds it: a count above zero, or a URL. */
function hasPlan(what: string): Plan | undefined {
  const counts: Record<string, IndexedCount> = {
    contacts: 'contacts',
    email: 'emails',
    phone: 'phones',
    address: 'addresses',
    opportunities: 'opportunities',
    tasks: 'tasks',
  }
  if (what === 'url') return { kind: 'filled', which: 'url' }
  const which = Object.hasOwn(counts, what) ? counts[what] : undefined
  return which === undefined ? undefined : { kind: 'count', which, op: '>', value: 0 }
}

/** `status_id:…`, `status:…` or `status_label:…` as the index holds it: the statuses' ids. */
async function statusPlan(db: Db, field: string, value: string, ctx: CompileContext): Promise<Plan> {
  if (field === 'status_id') return { kind: 'statuses', ids: [value] }
  const rows = await db
    .selectFrom('lead_status')
    .select('id')
    .where('organization_id', '=', ctx.organizationId)
    .where(equalsIgnoringCase('label', value, ctx))
    .execute()
  return { kind: 'statuses', ids: rows.map((r) => r.id) }
}

async function fieldPlan(
  db: Db,
  expr: Extract<Expr, { kind: 'field' }>,
  ctx: CompileContext,
): Promise<Plan | undefined> {
  const { field, op, value, offset } = expr
  if (field.startsWith('custom.')) {
    const def = findCustomField(field, ctx, offset)
    // The value was checked as a number when the condition was compiled.
    return def.type === 'number' ? { kind: 'number', fieldId: def.id, op, value: Number(value) } : undefined
  }
  switch (field) {
    case 'id':
    case 'lead_id':
      return { kind: 'ids', values: [value] }
    case 'status_id':
    case 'status':
    case 'status_label':
      return statusPlan(db, field, value, ctx)
    case 'date_created':
    case 'date_updated': {
      const range = resolveDateValue(value, ctx.now, ctx.tzOffsetHours)
      return { kind: 'date', column: field, op, start: range.start, end: range.end }
    }
    default: {
      const which = indexedCount(field)
      const count = Math.min(Number(value), Number.MAX_SAFE_INTEGER)
      return which === undefined || Number.isNaN(count) ? undefined : { kind: 'count', which, op, value: count }
    }
  }
}

function presentPlan(field: string): Plan | undefined {
  if (ALWAYS_PRESENT.has(field)) return { kind: 'all' }
  switch (field) {
    case 'name':
    case 'url':
    case 'description':
      return { kind: 'filled', which: field }
    default: {
      const which = indexedCount(field)
      return which === undefined ? undefined : { kind: 'count', which, op: '>', value: 0 }
    }
  }
}

/**
 * A search as the in-memory index answers it (decision 0061), read by the same functions as `compile`: the search
 * rows' terms as the trigram index finds them, what the index holds from it, and any other term from the database.
 */
async function planOf(db: Db, expr: Expr, ctx: CompileContext): Promise<Plan> {
  const group = documentGroup(expr)
  if (group !== undefined) return documentPlan(db, group, ctx)
  if (isJunction(expr)) {
    if (expr.kind === 'and') {
      const { terms, statuses, others } = partition(expr.items)
      if (terms.length > 0) {
        const parts = [documentPlan(db, { terms, op: 'and', statuses }, ctx), ...others.map((e) => planOf(db, e, ctx))]
        return { kind: 'and', items: await Promise.all(parts) }
      }
    }
    return { kind: expr.kind, items: await Promise.all(expr.items.map((e) => planOf(db, e, ctx))) }
  }
  if (isNegation(expr)) return { kind: 'not', plan: await planOf(db, expr.expr, ctx) }
  switch (expr.kind) {
    case 'text':
      return documentPlan(db, { terms: [freeTextTerm(expr.value)], op: 'and', statuses: [] }, ctx)
    case 'all':
      return { kind: 'all' }
    case 'has':
      return hasPlan(expr.what) ?? leafPlan(db, hasCondition(expr.what, expr.offset), ctx)
    case 'field':
      return (await fieldPlan(db, expr, ctx)) ?? leafPlan(db, fieldCondition(expr, ctx), ctx)
    case 'present':
      return presentPlan(expr.field) ?? leafPlan(db, presentCondition(expr, ctx), ctx)
  }
}

/**
 * The sorts the index keeps the keys of (dates, status, counts, number fields, the first contact's texts, the URL,
 * the opportunities' value, the last activity, the next task); undefined when another is asked for.
 */
function indexSorts(sorts: readonly Sort[], ctx: CompileContext): IndexSort[] | undefined {
  const kept: IndexSort[] = []
  for (const { field, direction } of sorts) {
    const which = indexedCount(field)
    if (field === 'date_created' || field === 'date_updated' || field === 'status') kept.push({ field, direction })
    else if (which !== undefined) kept.push({ field: 'count', which, direction })
    else if (isTextSort(field)) kept.push({ field: 'text', which: field, direction })
    else if (field === 'opportunity_value' || field === 'last_activity') kept.push({ field, direction })
    else if (field === 'next_task') kept.push({ field, direction, offsetHours: ctx.tzOffsetHours })
    else if (field.startsWith('custom.')) {
      // Known to exist: checkSorts refused the search otherwise. Text fields' values are not kept.
      const def = findCustomField(field, ctx, 0)
      if (def.type !== 'number') return undefined
      kept.push({ field: 'number', fieldId: def.id, direction })
    } else return undefined
  }
  return kept
}

/**
 * A search answered by the organization's in-memory index: the count is the matches' cardinality, and the page
 * their first leads in the order asked for, read by id (whole, or only their ids and revisions: `columns`). Undefined
 * when the index keeps no key of a sort, or cannot place a lead's tasks in the caller's zone.
 */
async function searchInIndex(
  db: Db,
  ctx: CompileContext,
  where: Expr | null,
  sorts: readonly Sort[],
  search: LeadSearch,
  columns: 'all' | 'versions',
): Promise<LeadPage<LeadVersion> | undefined> {
  const kept = indexSorts(sorts, ctx)
  if (kept === undefined) return undefined
  const plan: Plan = where === null ? { kind: 'all' } : await planOf(db, where, ctx)
  const texts = new Map<string, Bitmap>()
  const found = await leadIndexes(db, ctx.dialect).use(
    ctx.organizationId,
    async (index) => {
      for (const text of textTermsOf(plan)) {
        texts.set(textKey(text), await index.textMatchesOf(db, text, (terms) => textFound(db, terms, ctx)))
      }
      const sortedBy = kept.flatMap((sort) => (sort.field === 'number' ? [sort.fieldId] : []))
      for (const fieldId of new Set([...numberFields(plan), ...sortedBy])) await index.numberColumn(db, fieldId)
      for (const sort of kept) {
        if (sort.field === 'status') await index.loadStatusRanks(db)
        else if (sort.field === 'text') await index.textColumn(db, sort.which)
        else if (sort.field === 'opportunity_value') await index.opportunityValueColumn(db)
        else if (sort.field === 'last_activity') await index.lastActivityColumn(db)
        else if (sort.field === 'next_task') await index.nextTaskColumn(db)
      }
    },
    (index) => {
      // A task date of a form the index cannot place in the caller's zone: SQL sorts by next task instead.
      if (kept.some((sort) => sort.field === 'next_task') && !index.regularNextTasks) return undefined
      const matches = evaluate(plan, index, texts)
      const total = matches.size
      return { total, ids: total <= search.skip ? [] : pageOf(index, matches, kept, search.skip, search.limit) }
    },
  )
  if (found === undefined) return undefined
  const { total, ids } = found
  if (ids.length === 0) return { has_more: false, total_results: total, data: [] }
  const selected = columns === 'all' ? sql`lead.*` : sql`lead.id, lead.revision`
  const among = isAmong(sql`lead.id`, ids, ctx.dialect)
  const { rows } = await sql<LeadVersion>`select ${selected} from lead
    where lead.organization_id = ${ctx.organizationId} and ${among}`.execute(db)
  const byId = new Map(rows.map((row) => [row.id, row]))
  // A lead deleted since the index caught up is left out of the page (and still counted: the count is as of then).
  const data = ids.flatMap((id) => {
    const row = byId.get(id)
    return row === undefined ? [] : [row]
  })
  return { has_more: search.skip + ids.length < total, total_results: total, data }
}

/** Checks a search as `searchLeads` reads it, without running it: a ValidationError on `query` when it cannot be. */
export async function checkLeadSearch(db: Db, search: Omit<LeadSearch, 'skip' | 'limit'>): Promise<void> {
  const parsed = parseSearch(search.query)
  if (parsed.where === null && !sortsByCustomField(parsed.sort)) return
  const ctx = await compileContext(db, search, false)
  checkSorts(parsed.sort, ctx)
  if (parsed.where !== null) compile(parsed.where, ctx)
}

/**
 * The ids of the organization's leads a search matches, as a subquery, for lists of a lead's objects filtered by their
 * lead (`lead_query` of GET /opportunity/); undefined when the search has no terms. Errors are ValidationErrors on
 * `query`, as in searchLeads, for the caller to name its own parameter.
 */
export async function leadSearchIds(
  db: Db,
  search: Omit<LeadSearch, 'skip' | 'limit'>,
): Promise<RawBuilder<unknown> | undefined> {
  const parsed = parseSearch(search.query)
  const [sort] = parsed.sort
  if (sort !== undefined) {
    throw queryError(sort.offset, 'Unexpected sort: this search only chooses leads, it does not order anything')
  }
  if (parsed.where === null) return undefined
  const ctx = await compileContext(db, search, false)
  return sql`select lead.id from lead where lead.organization_id = ${search.organizationId} and ${compile(parsed.where, ctx)}`
}
