import type { ImportProblem } from '@leadline/shared/import-schema'
import type { CustomObjectType, Db } from '../../platform/data/database.js'
import { parseCalendarDate } from '../../platform/data/calendar-dates.js'
import { cleanText, foldCase, isEmail, isWebAddress } from '../../platform/text/text.js'
import { normalizeContactPhone } from '../../platform/text/phone-format.js'
import {
  listCustomFieldDefs,
  parseCustomInput,
  type CustomFieldDef,
  type CustomValue,
} from '../../crm/custom-fields/custom-values.js'
import type { AddressValues } from '../../crm/leads/lead-input.js'
import type { ContactValues } from '../../crm/contacts/contact-input.js'
import { loadOpportunitySetting, type StatusChoice } from '../../crm/opportunities/opportunity-input.js'
import { isFixedTarget } from './import-input.js'
import { unescapeFormula } from '../exports/export-rows.js'

// One CSV row read as what it brings in (decision 0053): a lead's fields and values, one contact, one address and
// one opportunity, each cell checked as the run writes it; a row that cannot be read whole is a row with problems.

export interface ImportSetting {
  organizationId: string
  country: string
  columns: string[]
  /** Column index → target. */
  targets: Map<number, string>
  leadStatuses: { id: string; label: string }[]
  opportunityStatuses: StatusChoice[]
  currency: string
  fields: Map<string, { def: CustomFieldDef; object: CustomObjectType }>
  /** Member by email and by full name, case ignored → user id. */
  members: Map<string, string>
  memberUserIds: Set<string>
}

export interface RowOpportunity {
  value: number | null
  value_period: 'one_time' | 'monthly' | 'annual'
  confidence: number
  status: StatusChoice | undefined
  note: string
  date_won: string | null
  custom: Map<string, CustomValue[] | null>
}

export interface RowPlan {
  row: number
  /** The company, case and surrounding spaces ignored; a row without one is its own key. */
  key: string
  name: string
  url: string | undefined
  description: string | undefined
  status: { id: string; label: string } | undefined
  leadCustom: Map<string, CustomValue[] | null>
  contact: { values: ContactValues; custom: Map<string, CustomValue[] | null> } | undefined
  address: AddressValues | undefined
  opportunity: RowOpportunity | undefined
  /** What the duplicate rule matches on. */
  email: string | undefined
  phone: string | undefined
  host: string | undefined
}

export async function loadImportSetting(
  db: Db,
  organizationId: string,
  columns: string[],
  mapping: Record<string, string>,
): Promise<ImportSetting> {
  const [org, leadStatuses, opportunity, members, lead, contact, opp] = await Promise.all([
    db.selectFrom('organization').select('country').where('id', '=', organizationId).executeTakeFirstOrThrow(),
    db
      .selectFrom('lead_status')
      .select(['id', 'label'])
      .where('organization_id', '=', organizationId)
      .orderBy('position')
      .orderBy('id')
      .execute(),
    loadOpportunitySetting(db, organizationId),
    db
      .selectFrom('membership')
      .innerJoin('user', 'user.id', 'membership.user_id')
      .select(['user.id', 'user.email_lower', 'user.first_name', 'user.last_name'])
      .where('membership.organization_id', '=', organizationId)
      .execute(),
    listCustomFieldDefs(db, organizationId, 'lead'),
    listCustomFieldDefs(db, organizationId, 'contact'),
    listCustomFieldDefs(db, organizationId, 'opportunity'),
  ])
  const fields: ImportSetting['fields'] = new Map()
  for (const [object, defs] of [
    ['lead', lead],
    ['contact', contact],
    ['opportunity', opp],
  ] as const) {
    for (const def of defs) fields.set(def.id, { def, object })
  }
  const byName = new Map<string, string>()
  for (const m of members) {
    const name = [m.first_name, m.last_name].filter((p) => p !== null && p !== '').join(' ')
    if (name !== '') byName.set(foldCase(name), m.id)
    byName.set(m.email_lower, m.id)
  }
  const targets = new Map<number, string>()
  for (const [column, target] of Object.entries(mapping)) {
    const index = columns.indexOf(column)
    if (index >= 0) targets.set(index, target)
  }
  return {
    organizationId,
    country: org.country,
    columns,
    targets,
    leadStatuses,
    opportunityStatuses: opportunity.statuses,
    currency: opportunity.currency,
    fields,
    members: byName,
    memberUserIds: new Set(members.map((m) => m.id)),
  }
}

const SLASHED = /^(\d{4})\/(\d{1,2})\/(\d{1,2})$/
const AMERICAN = /^(\d{1,2})\/(\d{1,2})\/(\d{4})$/
const ISO_TIMESTAMP = /^(\d{4}-\d{2}-\d{2})[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?$/

/** A date a file gives, as `YYYY-MM-DD`: `YYYY-MM-DD`, `YYYY/MM/DD`, `M/D/YYYY` or an ISO timestamp's day. */
export function importDate(text: string): string | undefined {
  const pad = (n: string) => n.padStart(2, '0')
  const slashed = SLASHED.exec(text)
  if (slashed !== null)
    return parseCalendarDate(`${slashed[1] ?? ''}-${pad(slashed[2] ?? '')}-${pad(slashed[3] ?? '')}`)
  const american = AMERICAN.exec(text)
  if (american !== null) {
    return parseCalendarDate(`${american[3] ?? ''}-${pad(american[1] ?? '')}-${pad(american[2] ?? '')}`)
  }
  const stamp = ISO_TIMESTAMP.exec(text)
  return parseCalendarDate(stamp?.[1] ?? text)
}

const NUMBER = /^[+-]?(\d{1,3}(,\d{3})+|\d+)?(\.\d+)?$/

/** A number a file gives: `1200.5`, `1,200.50`, `$1,200.50`, `-3`; undefined when it is none. */
export function importNumber(text: string): number | undefined {
  const bare = text.replace(/^([+-]?)\s*[$€£]\s*/, '$1').trim()
  if (bare === '' || !NUMBER.test(bare) || !/\d/.test(bare)) return undefined
  const value = Number(bare.replace(/,/g, ''))
  return Number.isFinite(value) ? value : undefined
}

/** A URL's host without `www.`, lower case; undefined when it has none. */
export function urlHost(text: string): string | undefined {
  try {
    const url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `https://${text}`)
    const host = url.hostname.toLowerCase().replace(/^www\./, '')
    return host === '' ? undefined : host
  } catch {
    return undefined
  }
}

const PERIODS: Record<string, RowOpportunity['value_period']> = {
  'one time': 'one_time',
  one_time: 'one_time',
  once: 'one_time',
  monthly: 'monthly',
  month: 'monthly',
  annual: 'annual',
  annually: 'annual',
  yearly: 'annual',
  year: 'annual',
}

/** The key of a row's company (`c:` and its name folded), or of a row without one (`r:` and its number). */
function companyKey(company: string | undefined, row: number): string {
  return company === undefined ? `r:${String(row)}` : `c:${foldCase(company)}`
}

/** The company a key names, folded; undefined for a row without one. */
export function companyOfKey(key: string): string | undefined {
  return key.startsWith('c:') ? key.slice(2) : undefined
}

/**
 * Reads one row: its plan, or its problems (a row with any is not imported). `newFields` names the fields made for
 * `new_custom_field` columns (absent in a dry run, where those cells are plain text and cannot fail).
 */
export function prepareRow(
  setting: ImportSetting,
  row: number,
  cells: readonly string[],
  newFields: ReadonlyMap<number, string> = new Map(),
): { plan: RowPlan } | { problems: ImportProblem[] } {
  const problems: ImportProblem[] = []
  const problem = (index: number | null, message: string) => {
    problems.push({
      row,
      column: index === null ? null : (setting.columns[index] ?? null),
      value: index === null ? null : (cells[index] ?? null),
      problem: message,
    })
  }
  if (cells.length !== setting.columns.length) {
    problem(null, `a ragged row: ${String(cells.length)} cells where the header has ${String(setting.columns.length)}`)
  }
  const fixed = new Map<string, { index: number; text: string }>()
  const custom: { index: number; fieldId: string; text: string }[] = []
  for (const [index, target] of setting.targets) {
    const text = unescapeFormula((cells[index] ?? '').trim())
    if (text === '') continue
    if (isFixedTarget(target)) fixed.set(target, { index, text })
    else if (target.startsWith('custom.')) custom.push({ index, fieldId: target.slice('custom.'.length), text })
    else {
      const made = newFields.get(index)
      if (made !== undefined) custom.push({ index, fieldId: made, text })
    }
  }
  const get = (target: string) => fixed.get(target)?.text

  const company = get('lead.name')
  const first = get('contact.first_name')
  const last = get('contact.last_name')
  const contactName = get('contact.name') ?? ([first, last].filter((p) => p !== undefined).join(' ') || undefined)
  if (company === undefined && contactName === undefined) problem(null, 'neither a company nor a contact')

  const url = fixed.get('lead.url')
  if (url !== undefined && !isWebAddress(url.text)) problem(url.index, 'not a web address')
  let status: RowPlan['status']
  const statusCell = fixed.get('lead.status')
  if (statusCell !== undefined) {
    status = setting.leadStatuses.find((s) => foldCase(s.label) === foldCase(statusCell.text))
    if (status === undefined) problem(statusCell.index, 'unknown lead status')
  }

  const email = fixed.get('contact.email')
  if (email !== undefined && !isEmail(email.text)) problem(email.index, 'not an email address')
  const phoneCell = fixed.get('contact.phone')
  const phone = phoneCell === undefined ? undefined : normalizeContactPhone(phoneCell.text, setting.country)
  if (phoneCell !== undefined && phone === undefined) problem(phoneCell.index, 'a phone number that cannot be read')
  const contactUrl = fixed.get('contact.url')
  if (contactUrl !== undefined && !isWebAddress(contactUrl.text)) problem(contactUrl.index, 'not a web address')

  // Custom values, each read for its field's type the way the API reads it, after the file's own forms are taken.
  const values: Record<CustomObjectType, Record<string, unknown>> = { lead: {}, contact: {}, opportunity: {} }
  for (const cell of custom) {
    const field = setting.fields.get(cell.fieldId)
    if (field === undefined) continue
    const { def, object } = field
    let raw: unknown = cell.text
    if (def.type === 'date') raw = importDate(cell.text) ?? cell.text
    else if (def.type === 'datetime') {
      const day = importDate(cell.text)
      if (day !== undefined && !cell.text.includes(':')) raw = `${day}T00:00:00+00:00`
    } else if (def.type === 'number') raw = importNumber(cell.text) ?? cell.text
    else if (def.type === 'user') {
      const member = setting.members.get(foldCase(cell.text))
      if (member === undefined) {
        problem(cell.index, 'no member with this email or name')
        continue
      }
      raw = member
    } else if (def.type === 'contact') {
      problem(cell.index, 'a contact field cannot be imported')
      continue
    }
    if (def.accepts_multiple_values && typeof raw === 'string' && def.type !== 'text' && def.type !== 'textarea') {
      raw = raw
        .split(/[,;]/)
        .map((part) => part.trim())
        .filter((part) => part !== '')
    }
    const parsed = parseCustomInput({ [`custom.${def.id}`]: raw }, [def], { memberUserIds: setting.memberUserIds })
    const error = Object.values(parsed.fieldErrors)[0]
    if (error !== undefined) {
      const message =
        def.type === 'number'
          ? 'not a number'
          : def.type === 'choices'
            ? 'not one of the field’s choices'
            : def.type === 'date' || def.type === 'datetime'
              ? 'a date that cannot be read'
              : error
      problem(cell.index, message)
      continue
    }
    values[object][`custom.${def.id}`] = raw
  }
  const customOf = (object: CustomObjectType) =>
    parseCustomInput(
      values[object],
      [...setting.fields.values()].filter((f) => f.object === object).map((f) => f.def),
      {
        memberUserIds: setting.memberUserIds,
      },
    ).changes

  // The opportunity, when any of its cells is given.
  let opportunity: RowOpportunity | undefined
  if ([...fixed.keys()].some((t) => t.startsWith('opportunity.')) || Object.keys(values.opportunity).length > 0) {
    const valueCell = fixed.get('opportunity.value')
    const value = valueCell === undefined ? undefined : importNumber(valueCell.text)
    if (valueCell !== undefined && value === undefined) problem(valueCell.index, 'not a number')
    const periodCell = fixed.get('opportunity.value_period')
    const period = periodCell === undefined ? 'one_time' : PERIODS[foldCase(periodCell.text).replace(/[-_]/g, ' ')]
    if (periodCell !== undefined && period === undefined) problem(periodCell.index, 'not a value period')
    const confidenceCell = fixed.get('opportunity.confidence')
    const confidence = confidenceCell === undefined ? 0 : importNumber(confidenceCell.text.replace(/%$/, ''))
    if (confidenceCell !== undefined && (confidence === undefined || confidence < 0 || confidence > 100)) {
      problem(confidenceCell.index, 'not a number from 0 to 100')
    }
    const statusOf = fixed.get('opportunity.status')
    const oppStatus =
      statusOf === undefined
        ? setting.opportunityStatuses[0]
        : setting.opportunityStatuses.find((s) => foldCase(s.label) === foldCase(statusOf.text))
    if (statusOf !== undefined && oppStatus === undefined) problem(statusOf.index, 'unknown opportunity status')
    const wonCell = fixed.get('opportunity.date_won')
    const dateWon = wonCell === undefined ? null : (importDate(wonCell.text) ?? null)
    if (wonCell !== undefined && dateWon === null) problem(wonCell.index, 'a date that cannot be read')
    opportunity = {
      value: value === undefined ? null : Math.round(value * 100),
      value_period: period ?? 'one_time',
      confidence: Math.round(confidence ?? 0),
      status: oppStatus,
      note: get('opportunity.note') ?? '',
      date_won: dateWon,
      custom: new Map(),
    }
  }
  if (problems.length > 0) return { problems }

  const address: AddressValues | undefined = [
    'address.address_1',
    'address.address_2',
    'address.city',
    'address.state',
    'address.zipcode',
    'address.country',
  ].some((t) => fixed.has(t))
    ? {
        label: 'business',
        address_1: get('address.address_1') ?? null,
        address_2: get('address.address_2') ?? null,
        city: get('address.city') ?? null,
        state: get('address.state') ?? null,
        zipcode: get('address.zipcode') ?? null,
        country: get('address.country') ?? null,
      }
    : undefined
  const hasContact = contactName !== undefined || email !== undefined || phone !== undefined || contactUrl !== undefined
  const contactValues: ContactValues = {
    name: cleanText(contactName) ?? null,
    title: get('contact.title') ?? null,
    emails: email === undefined ? [] : [{ type: 'office', email: email.text }],
    phones: phone === undefined ? [] : [{ type: 'office', phone }],
    urls: contactUrl === undefined ? [] : [{ type: 'url', url: contactUrl.text }],
  }
  if (opportunity !== undefined) opportunity.custom = customOf('opportunity')
  return {
    plan: {
      row,
      key: companyKey(company, row),
      name: company ?? contactName ?? '',
      url: url?.text,
      description: get('lead.description'),
      status,
      leadCustom: customOf('lead'),
      contact: hasContact ? { values: contactValues, custom: customOf('contact') } : undefined,
      address,
      opportunity,
      email: email === undefined ? undefined : email.text.toLowerCase(),
      phone,
      host: url === undefined ? undefined : urlHost(url.text),
    },
  }
}

/** The words of a row's problems, for the failed-rows CSV's `reason`. */
export function reasonOf(problems: readonly ImportProblem[]): string {
  return problems.map((p) => (p.column === null ? p.problem : `${p.column}: ${p.problem}`)).join('; ')
}
