import { sql, type RawBuilder, type SqlBool } from 'kysely'
import type { Db, Dialect, LeadRow } from '../db/database.js'
import { listCustomFieldDefs, type CustomFieldDef } from '../custom-fields/custom-values.js'
import { ValidationError } from '../platform/errors.js'
import { foldCase } from '../platform/text.js'
import { DateValueError, resolveDateDays, resolveDateValue, type DateRange } from './lead-search-dates.js'
import { LeadQueryError, normalizeLeadQuery, parseLeadQuery, type Comparator, type Expr } from './lead-search-parse.js'

// Compiles the lead search language (lead-search-parse.ts) to one SQL condition on `lead`, the same on SQLite and
// Postgres. Free text goes through `lead_search`, whose trigram index (FTS5 / pg_trgm) serves `LIKE '%term%'`.

type Condition = RawBuilder<SqlBool>

interface CompileContext {
  dialect: Dialect
  organizationId: string
  now: Date
  tzOffsetHours: number
  defs: CustomFieldDef[]
}

const TRUE: Condition = sql<SqlBool>`1 = 1`
const FALSE: Condition = sql<SqlBool>`1 = 0`

/**
 * Joins conditions with `and` or `or` as a balanced tree. SQLite refuses expressions nested more than 1000 deep,
 * and `a and b and c …` nests one level per term; balanced, 200 terms are 8 levels.
 */
function joinAll(conditions: Condition[], op: 'and' | 'or'): Condition {
  const [first, ...rest] = conditions
  if (first === undefined) return op === 'and' ? TRUE : FALSE
  if (rest.length === 0) return first
  const half = Math.ceil(conditions.length / 2)
  return sql<SqlBool>`(${joinAll(conditions.slice(0, half), op)} ${sql.raw(op)} ${joinAll(conditions.slice(half), op)})`
}

function queryError(offset: number, message: string): ValidationError {
  return ValidationError.field('query', `${message} (at column ${String(offset + 1)})`)
}

/** `%`, `_` and `\` are literal in a search term. */
function containsPattern(value: string): string {
  return `%${foldCase(value).replace(/[\\%_]/g, (c) => `\\${c}`)}%`
}

/** A column lower-cased the same way on both dialects: Postgres's lower() in a UTF-8 database, `foldCase` on SQLite. */
function folded(column: string, ctx: CompileContext): RawBuilder<string> {
  return ctx.dialect === 'sqlite'
    ? sql<string>`leadline_lower(${sql.ref(column)})`
    : sql<string>`lower(${sql.ref(column)})`
}

const NON_ASCII = /[^\p{ASCII}]/u

/**
 * On SQLite, a column compared with an all-ASCII value: LIKE and NOCASE already ignore ASCII case and need no call
 * into JavaScript per row. Only two letters outside ASCII fold into it (İ to i, the Kelvin sign to k); they are
 * replaced first, so the result is the same as comparing `leadline_lower(column)`.
 */
function asciiFolded(column: string): RawBuilder<string> {
  return sql<string>`replace(replace(${sql.ref(column)}, ${'\u0130'}, 'i'), ${'\u212A'}, 'k')`
}

function contains(column: string, value: string, ctx: CompileContext): Condition {
  const pattern = containsPattern(value)
  if (ctx.dialect === 'sqlite' && !NON_ASCII.test(pattern))
    return sql<SqlBool>`${asciiFolded(column)} like ${pattern} escape '\\'`
  return sql<SqlBool>`${folded(column, ctx)} like ${pattern} escape '\\'`
}

function equalsIgnoringCase(column: string, value: string, ctx: CompileContext): Condition {
  const target = foldCase(value)
  if (ctx.dialect === 'sqlite' && !NON_ASCII.test(target))
    return sql<SqlBool>`${asciiFolded(column)} = ${target} collate nocase`
  return sql<SqlBool>`${folded(column, ctx)} = ${target}`
}

/** Leads with at least one row in `table` (scoped to the organization) that meets `condition`. */
function leadHas(table: string, ctx: CompileContext, condition: Condition, leadColumn = 'lead_id'): Condition {
  return sql<SqlBool>`lead.id in (select ${sql.ref(leadColumn)} from ${sql.table(table)} where organization_id = ${ctx.organizationId} and ${condition})`
}

/** A condition on one `lead_search` row: its document contains `term`. */
function documentContains(term: string, ctx: CompileContext): Condition {
  // FTS5's trigram index answers phrases of three characters or more; shorter terms are checked on each document,
  // which is cheap when another term of the same search has already narrowed them (see `freeTexts`).
  if (ctx.dialect === 'sqlite' && term.length >= 3) {
    const phrase = `"${term.replace(/"/g, '""')}"`
    return sql<SqlBool>`rowid in (select rowid from lead_search_fts where lead_search_fts match ${phrase})`
  }
  return sql<SqlBool>`body like ${containsPattern(term)} escape '\\'`
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

/** A free-text term as a condition on a document: the term itself or, for a phone number, any form it is stored in. */
function documentMatches(value: string, ctx: CompileContext): Condition {
  const term = foldCase(value)
  const digits = term.replace(/\D/g, '')
  // The document holds each phone's digits too (lead-search-index.ts), so "415-555-0101" finds +1 415-555-0101.
  if (PHONE_LIKE.test(term) && digits.length >= 3 && digits !== term) {
    const forms = [term, ...typedPhoneDigits(term)].map((form) => documentContains(form, ctx))
    return joinAll(forms, 'or')
  }
  return documentContains(term, ctx)
}

/** Leads whose one document holds every term: one lookup for `main st`, not one per word. */
function freeTexts(values: string[], ctx: CompileContext): Condition {
  return leadHas(
    'lead_search',
    ctx,
    joinAll(
      values.map((v) => documentMatches(v, ctx)),
      'and',
    ),
  )
}

function comparison(column: string, op: Comparator, value: string | number): Condition {
  const operator = op === ':' ? '=' : op
  return sql<SqlBool>`${sql.ref(column)} ${sql.raw(operator)} ${value}`
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
  let range: DateRange
  try {
    range = resolve(value, ctx.now, ctx.tzOffsetHours)
  } catch (error) {
    if (error instanceof DateValueError) throw queryError(offset, error.message)
    throw error
  }
  const col = sql.ref(column)
  switch (op) {
    case ':':
      return sql<SqlBool>`(${col} >= ${range.start} and ${col} < ${range.end})`
    case '>':
      return sql<SqlBool>`${col} >= ${range.end}`
    case '>=':
      return sql<SqlBool>`${col} >= ${range.start}`
    case '<':
      return sql<SqlBool>`${col} < ${range.start}`
    case '<=':
      return sql<SqlBool>`${col} < ${range.end}`
  }
}

function countCondition(table: string, op: Comparator, value: string): Condition {
  const operator = op === ':' ? '=' : op
  // Postgres reads the parameter as a bigint, which a count never comes near: a larger one compares the same.
  const count = Math.min(Number(value), Number.MAX_SAFE_INTEGER)
  return sql<SqlBool>`(select count(*) from ${sql.table(table)} where lead_id = lead.id and organization_id = lead.organization_id) ${sql.raw(operator)} ${count}`
}

/** Opportunities and tasks arrive with later issues; until then every lead has none of them. */
function noRowsCondition(op: Comparator, value: number): Condition {
  const holds =
    op === ':' ? value === 0 : op === '>' ? 0 > value : op === '>=' ? 0 >= value : op === '<' ? 0 < value : 0 <= value
  return holds ? TRUE : FALSE
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
  } else if (op === ':') {
    valueCondition =
      def.type === 'choices' || def.type === 'user' || def.type === 'contact'
        ? equalsIgnoringCase('value_text', value, ctx)
        : contains('value_text', value, ctx)
  } else {
    valueCondition = comparison('value_text', op, value)
  }
  return leadHas('custom_value', ctx, sql<SqlBool>`field_id = ${def.id} and object_id = lead_id and ${valueCondition}`)
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
      return sql<SqlBool>`lead.status_id = ${value}`
    case 'status':
    case 'status_label':
      return sql<SqlBool>`lead.status_id in (select id from lead_status where organization_id = ${ctx.organizationId} and ${equalsIgnoringCase('label', value, ctx)})`
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
    case 'phone': {
      if (!/\d/.test(value)) throw queryError(offset, 'A phone search needs digits')
      const forms = typedPhoneDigits(value).map((digits) => sql<SqlBool>`phone like ${`%${digits}%`}`)
      return leadHas('contact_phone', ctx, joinAll(forms, 'or'))
    }
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
    case 'contacts':
      return countCondition('contact', op, value)
    case 'opportunities':
    case 'tasks':
      return noRowsCondition(op, Number(value))
    default:
      throw queryError(offset, `Unknown field "${field}"`)
  }
}

/** A correlated EXISTS: cheap per lead through each table's lead_id index, unlike an IN over every row. */
function leadHasAny(table: string): Condition {
  return sql<SqlBool>`exists (select 1 from ${sql.table(table)} where lead_id = lead.id and organization_id = lead.organization_id)`
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
    // Stub: the opportunity and task tables do not exist yet, so no lead has any.
    case 'opportunities':
    case 'tasks':
      return FALSE
    default:
      throw queryError(offset, `Unknown has: value "${what}"`)
  }
}

function compile(expr: Expr, ctx: CompileContext): Condition {
  switch (expr.kind) {
    case 'and': {
      const texts = expr.items.flatMap((e) => (e.kind === 'text' ? [e.value] : []))
      const others = expr.items.filter((e) => e.kind !== 'text').map((e) => compile(e, ctx))
      return joinAll(texts.length > 0 ? [freeTexts(texts, ctx), ...others] : others, 'and')
    }
    case 'or':
      return joinAll(
        expr.items.map((e) => compile(e, ctx)),
        'or',
      )
    case 'not':
      return sql<SqlBool>`not (${compile(expr.expr, ctx)})`
    case 'text':
      return freeTexts([expr.value], ctx)
    case 'field':
      return fieldCondition(expr, ctx)
    case 'has':
      return hasCondition(expr.what, expr.offset)
  }
}

/** Every lead of the organization, from the count its triggers keep (migration 0007). */
async function countOrganizationLeads(db: Db, organizationId: string): Promise<number> {
  const row = await db
    .selectFrom('organization_lead_count')
    .select('leads')
    .where('organization_id', '=', organizationId)
    .executeTakeFirst()
  return row?.leads ?? 0
}

/** Only the lead's own dates: an index range answers them, so counting them again is cheap. */
function onlyDates(expr: Expr): boolean {
  switch (expr.kind) {
    case 'and':
    case 'or':
      return expr.items.every(onlyDates)
    case 'not':
      return onlyDates(expr.expr)
    case 'field':
      return expr.field === 'date_created' || expr.field === 'date_updated'
    default:
      return false
  }
}

export interface LeadSearch {
  dialect: Dialect
  organizationId: string
  query: string
  skip: number
  limit: number
  now: Date
  tzOffsetHours: number
}

/** Runs a search: the page of leads, whether there are more, and how many match in all. */
export async function searchLeads(
  db: Db,
  search: LeadSearch,
): Promise<{ has_more: boolean; total_results: number; data: LeadRow[] }> {
  let parsed
  try {
    parsed = normalizeLeadQuery(parseLeadQuery(search.query))
  } catch (error) {
    if (error instanceof LeadQueryError) throw ValidationError.field('query', error.message)
    throw error
  }
  const defs = parsed.where === null ? [] : await listCustomFieldDefs(db, search.organizationId, 'lead')
  const ctx: CompileContext = {
    dialect: search.dialect,
    organizationId: search.organizationId,
    now: search.now,
    tzOffsetHours: search.tzOffsetHours,
    defs,
  }
  const condition = parsed.where === null ? TRUE : compile(parsed.where, ctx)
  const base = db.selectFrom('lead').where('lead.organization_id', '=', search.organizationId).where(condition)

  // Every lead, or a date range: the page walks a sort index and stops after one page, and a second query counts
  // through an index range. Any other search counts its matches in the pass that finds them (`count(*) over ()`),
  // instead of evaluating its condition twice; that pass reads every match anyway, so Postgres is kept from walking
  // the sort index and testing each lead (`|| ''` hides the index), which its planner would otherwise pick for the
  // LIMIT and which is ten times slower than sorting the matches.
  const countsApart = parsed.where === null || onlyDates(parsed.where)
  const hideIndex = !countsApart && search.dialect === 'postgres' ? sql` || ''` : sql``
  let page = base.selectAll('lead')
  const sorts = parsed.sort.length > 0 ? parsed.sort : [{ field: 'date_updated', direction: 'desc' as const }]
  for (const s of sorts) {
    if (s.field === 'name') {
      // Nameless leads last in both directions; then case-insensitively by code point, the same on both dialects
      // (Postgres would otherwise use its locale's collation), ties by exact name.
      const code = search.dialect === 'postgres' ? sql` collate "C"` : sql``
      page = page
        .orderBy(sql`case when lead.name is null then 1 else 0 end`)
        .orderBy(sql`${folded('lead.name', ctx)}${code}`, s.direction)
        .orderBy(sql`lead.name${code}`, s.direction)
    } else {
      const column = s.field === 'date_created' ? 'lead.date_created' : 'lead.date_updated'
      page = page.orderBy(sql`${sql.ref(column)}${hideIndex}`, s.direction)
    }
  }
  page = page
    .orderBy('lead.id', 'desc')
    .offset(search.skip)
    .limit(search.limit + 1)
  const countAll = async () =>
    parsed.where === null
      ? countOrganizationLeads(db, search.organizationId)
      : Number((await base.select((eb) => eb.fn.countAll<string | number>().as('n')).executeTakeFirstOrThrow()).n)
  if (countsApart) {
    const [rows, total] = await Promise.all([page.execute(), countAll()])
    return { has_more: rows.length > search.limit, total_results: total, data: rows.slice(0, search.limit) }
  }
  const counted = await page.select(sql<string | number>`count(*) over ()`.as('total_results')).execute()
  const data = counted.slice(0, search.limit).map(({ total_results, ...lead }) => lead)
  const first = counted[0]
  // A page past the last match has no row to carry the count.
  const total = first === undefined ? (search.skip === 0 ? 0 : await countAll()) : Number(first.total_results)
  return { has_more: counted.length > search.limit, total_results: total, data }
}
