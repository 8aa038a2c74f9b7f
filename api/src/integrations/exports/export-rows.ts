import type { CustomFieldDef } from '../../crm/custom-fields/custom-values.js'

// The rows of a CSV export (decision 0052): one per lead, contact or opportunity, in Close's column names, custom
// fields as `custom.<name>`. Cells are strings, numbers or empty; timestamps are written as `date_format` says, and
// text that a spreadsheet would run as a formula is escaped.

export type Cell = string | number | boolean | null
export type CsvRow = Record<string, Cell>
type Obj = Record<string, unknown>

/** Who made and last changed the object, and when: the last columns of every export. */
const STAMP_COLUMNS = [
  'created_by',
  'created_by_name',
  'updated_by',
  'updated_by_name',
  'date_created',
  'date_updated',
] as const

export const LEAD_COLUMNS = [
  'id',
  'display_name',
  'name',
  'status_id',
  'status_label',
  'description',
  'url',
  'html_url',
  'address_1',
  'address_2',
  'city',
  'state',
  'zipcode',
  'country',
  'primary_contact_name',
  'primary_contact_title',
  'primary_contact_primary_email',
  'primary_contact_primary_phone',
  'num_contacts',
  'num_opportunities',
  ...STAMP_COLUMNS,
] as const

export const CONTACT_COLUMNS = [
  'id',
  'lead_id',
  'lead_display_name',
  'lead_status_label',
  'name',
  'title',
  'primary_email',
  'emails',
  'primary_phone',
  'phones',
  'urls',
  'created_by',
  'updated_by',
  'date_created',
  'date_updated',
] as const

export const OPPORTUNITY_COLUMNS = [
  'id',
  'lead_id',
  'lead_name',
  'contact_id',
  'contact_name',
  'status_id',
  'status_label',
  'status_type',
  'pipeline_id',
  'pipeline_name',
  'value',
  'value_period',
  'value_currency',
  'value_formatted',
  'annualized_value',
  'expected_value',
  'confidence',
  'date_won',
  'date_lost',
  'note',
  'user_id',
  'user_name',
  ...STAMP_COLUMNS,
] as const

function cell(value: unknown): Cell {
  if (value === undefined || value === null) return null
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return value
  if (Array.isArray(value)) return value.map((v) => String(cell(v) ?? '')).join(', ')
  return JSON.stringify(value)
}

/** A text field of a contact's email, phone or URL entry. */
function text(value: unknown): string {
  return typeof value === 'string' ? value : ''
}

function list(value: unknown): Obj[] {
  return Array.isArray(value) ? value.filter((v): v is Obj => typeof v === 'object' && v !== null) : []
}

/** `custom.<name>` of every field of the kind, from the view's `custom` dictionary (keyed by field name). */
function customCells(view: Obj, defs: CustomFieldDef[]): CsvRow {
  const dictionary = (typeof view.custom === 'object' && view.custom !== null ? view.custom : {}) as Obj
  return Object.fromEntries(defs.map((def) => [`custom.${def.name}`, cell(dictionary[def.name])]))
}

export function customColumns(defs: CustomFieldDef[]): string[] {
  return defs.map((def) => `custom.${def.name}`)
}

export function leadRow(lead: Obj, defs: CustomFieldDef[]): CsvRow {
  const [address] = list(lead.addresses)
  const contacts = list(lead.contacts)
  const [contact] = contacts
  const row: CsvRow = {}
  for (const column of LEAD_COLUMNS) row[column] = cell(lead[column])
  for (const part of ['address_1', 'address_2', 'city', 'state', 'zipcode', 'country'] as const) {
    row[part] = cell(address?.[part])
  }
  row.primary_contact_name = cell(contact?.name)
  row.primary_contact_title = cell(contact?.title)
  row.primary_contact_primary_email = cell(list(contact?.emails)[0]?.email)
  row.primary_contact_primary_phone = cell(list(contact?.phones)[0]?.phone)
  row.num_contacts = contacts.length
  row.num_opportunities = list(lead.opportunities).length
  return { ...row, ...customCells(lead, defs) }
}

export function contactRow(contact: Obj, lead: Obj, defs: CustomFieldDef[]): CsvRow {
  const row: CsvRow = {}
  for (const column of CONTACT_COLUMNS) row[column] = cell(contact[column])
  const emails = list(contact.emails).map((e) => text(e.email))
  const phones = list(contact.phones).map((p) => text(p.phone))
  row.lead_display_name = cell(lead.display_name)
  row.lead_status_label = cell(lead.status_label)
  row.primary_email = emails[0] ?? null
  row.emails = emails.join(', ')
  row.primary_phone = phones[0] ?? null
  row.phones = phones.join(', ')
  row.urls = list(contact.urls)
    .map((u) => text(u.url))
    .join(', ')
  return { ...row, ...customCells(contact, defs) }
}

export function opportunityRow(opportunity: Obj, defs: CustomFieldDef[]): CsvRow {
  const row: CsvRow = {}
  for (const column of OPPORTUNITY_COLUMNS) row[column] = cell(opportunity[column])
  return { ...row, ...customCells(opportunity, defs) }
}

// A stored timestamp: `2017-09-29T10:40:23.140000+00:00` (also read with fewer digits or a `Z`).
const TIMESTAMP = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:\d{2})$/

/** A timestamp in Close's `original` (`2017-09-29 10:40:23.140000+00:00`) or `iso8601` (`2017-09-29T10:40:23+00:00`). */
export function formatDateCell(text: string, dateFormat: 'original' | 'iso8601'): string {
  const m = TIMESTAMP.exec(text)
  if (m === null) return text
  const [, day, time, fraction, zone] = m
  const offset = zone === 'Z' ? '+00:00' : (zone ?? '+00:00')
  if (dateFormat === 'iso8601') return `${day ?? ''}T${time ?? ''}${offset}`
  return `${day ?? ''} ${time ?? ''}.${(fraction ?? '').padEnd(6, '0').slice(0, 6)}${offset}`
}

/**
 * Text a spreadsheet would read as a formula (`=`, `+`, `-`, `@`, a tab or a carriage return first) gets a `'`
 * before it. Numbers are written as numbers: a negative value stays a number, and no formula.
 */
export function escapeFormula(text: string): string {
  return /^[=+\-@\t\r]/.test(text) ? `'${text}` : text
}

/** A cell `escapeFormula` wrote, read back (an import): the `'` before `=`, `+`, `-`, `@`, a tab or a CR taken off. */
export function unescapeFormula(text: string): string {
  return /^'[=+\-@\t\r]/.test(text) ? text.slice(1) : text
}

/** A row's cells as written: text formatted (timestamps) and escaped, numbers as they are, null as empty. */
export function writtenCells(row: CsvRow, columns: string[], dateFormat: 'original' | 'iso8601'): (string | number)[] {
  return columns.map((column) => {
    const value = Object.hasOwn(row, column) ? row[column] : undefined
    if (value === undefined || value === null) return ''
    if (typeof value === 'number') return value
    if (typeof value === 'boolean') return value ? 'true' : 'false'
    return escapeFormula(formatDateCell(value, dateFormat))
  })
}
