import type { Db, Tx } from '../../platform/data/database.js'
import { isCustomFieldType, type CustomFieldType, type CustomObjectType } from '@leadline/shared/custom-field-schema'
import { normalizeDatetime, parseCalendarDate } from '../../platform/data/calendar-dates.js'
import { readInChunks } from '../../platform/data/collections.js'

type Queryable = Db | Tx

/** A stored value: numbers for `number` fields only, text (ids, dates, datetimes, choices…) for every other type. */
export type CustomValue = string | number

export interface CustomFieldDef {
  id: string
  name: string
  type: CustomFieldType
  choices: string[] | null
  accepts_multiple_values: boolean
}

export const CUSTOM_TEXT_MAX = 10_000

/** The `choices` column holds a JSON array of strings. */
export function parseChoicesColumn(raw: string | null): string[] | null {
  if (raw === null) return null
  const parsed: unknown = JSON.parse(raw)
  if (!Array.isArray(parsed)) return null
  return parsed.filter((c): c is string => typeof c === 'string')
}

export function toCustomFieldDef(row: {
  id: string
  name: string
  type: string
  choices: string | null
  accepts_multiple_values: boolean | number
}): CustomFieldDef {
  if (!isCustomFieldType(row.type)) throw new Error(`custom field ${row.id} has the unknown type "${row.type}"`)
  return {
    id: row.id,
    name: row.name,
    type: row.type,
    choices: parseChoicesColumn(row.choices),
    accepts_multiple_values: Boolean(row.accepts_multiple_values),
  }
}

/** The organization's custom fields of one object type, in its order (the order values are shown in). */
export async function listCustomFieldDefs(
  db: Queryable,
  organizationId: string,
  objectType: CustomObjectType,
): Promise<CustomFieldDef[]> {
  const rows = await db
    .selectFrom('custom_field')
    .select(['id', 'name', 'type', 'choices', 'accepts_multiple_values'])
    .where('organization_id', '=', organizationId)
    .where('object_type', '=', objectType)
    .orderBy('position')
    .orderBy('date_created')
    .orderBy('id')
    .execute()
  return rows.map(toCustomFieldDef)
}

// --- input ---

type Checked = { value: CustomValue } | { blank: true } | { error: string }

const DECIMAL = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/
function checkText(raw: unknown): Checked {
  if (typeof raw === 'number' && Number.isFinite(raw)) return { value: String(raw) }
  if (typeof raw !== 'string') return { error: 'Must be a string.' }
  if (raw.length > CUSTOM_TEXT_MAX) {
    return { error: `Ensure this value has no more than ${CUSTOM_TEXT_MAX} characters.` }
  }
  return { value: raw }
}

function checkNumber(raw: unknown): Checked {
  if (typeof raw === 'number') return Number.isFinite(raw) ? { value: raw } : { error: 'A valid number is required.' }
  if (typeof raw === 'string') {
    const text = raw.trim()
    if (text === '') return { blank: true }
    const number = Number(text)
    if (DECIMAL.test(text) && Number.isFinite(number)) return { value: number }
  }
  return { error: 'A valid number is required.' }
}

/** Strings only: `''` (or spaces) means "no value" for the non-text types. */
function checkString(raw: unknown, error: string, accept: (text: string) => string | undefined): Checked {
  if (typeof raw !== 'string') return { error }
  const text = raw.trim()
  if (text === '') return { blank: true }
  const value = accept(text)
  return value === undefined ? { error } : { value }
}

function checkChoice(raw: unknown, choices: string[]): Checked {
  const error = 'Not a valid choice.'
  const text = typeof raw === 'number' && Number.isFinite(raw) ? String(raw) : raw
  if (typeof text !== 'string') return { error }
  if (choices.includes(text)) return { value: text }
  return checkString(text, error, (trimmed) => {
    const lower = trimmed.toLowerCase()
    return choices.find((c) => c === trimmed) ?? choices.find((c) => c.toLowerCase() === lower)
  })
}

function checkOne(raw: unknown, def: CustomFieldDef, memberUserIds: Set<string>): Checked {
  switch (def.type) {
    case 'text':
    case 'textarea':
    case 'hidden':
      return checkText(raw)
    case 'number':
      return checkNumber(raw)
    case 'date':
      return checkString(raw, 'Enter a valid date in the form YYYY-MM-DD.', parseCalendarDate)
    case 'datetime':
      return checkString(
        raw,
        'Enter a valid date and time in ISO 8601 form, e.g. 2026-03-01T10:00:00+02:00.',
        normalizeDatetime,
      )
    case 'choices':
      return checkChoice(raw, def.choices ?? [])
    case 'user':
      return checkString(raw, 'Not a user of your organization.', (id) => (memberUserIds.has(id) ? id : undefined))
    case 'contact':
      return checkString(raw, 'A contact id (cont_…) is required.', (id) => (id.startsWith('cont_') ? id : undefined))
  }
}

/** One field's incoming value → its values (null unsets), or the message for its field error. */
function parseFieldValue(
  raw: unknown,
  def: CustomFieldDef,
  memberUserIds: Set<string>,
): { values: CustomValue[] | null } | { error: string } {
  if (raw === null) return { values: null }
  if (!Array.isArray(raw)) {
    const checked = checkOne(raw, def, memberUserIds)
    if ('error' in checked) return checked
    return { values: 'blank' in checked ? null : [checked.value] }
  }
  if (!def.accepts_multiple_values) return { error: 'This field accepts a single value, not a list.' }
  const values: CustomValue[] = []
  for (const [index, item] of raw.entries()) {
    const checked: Checked = item === null ? { error: 'Must not be null.' } : checkOne(item, def, memberUserIds)
    if ('error' in checked) return { error: `Value ${index + 1}: ${checked.error}` }
    if ('value' in checked && !values.includes(checked.value)) values.push(checked.value)
  }
  return { values: values.length === 0 ? null : values }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** A field by id, then by exact name, then by name ignoring case. */
function resolveField(defs: CustomFieldDef[], ref: string): CustomFieldDef | undefined {
  const lower = ref.toLowerCase()
  return (
    defs.find((d) => d.id === ref) ??
    defs.find((d) => d.name === ref) ??
    defs.find((d) => d.name.toLowerCase() === lower)
  )
}

/**
 * Reads the custom values of a request body: `custom.<field id>` and `custom.<field name>` keys, and the deprecated
 * `custom` dictionary keyed by field name (or id). When several entries name the same field, top-level keys win
 * over the dictionary (clients send a fetched object back with both forms) and an id beats a name.
 * Field errors are keyed by the key the client used (`custom.<name>` for dictionary entries).
 */
export function parseCustomInput(
  body: Record<string, unknown>,
  defs: CustomFieldDef[],
  ctx: { memberUserIds: Set<string> },
): CustomInput {
  const entries: { key: string; raw: unknown; def: CustomFieldDef; rank: number }[] = []
  const fieldErrors: Record<string, string> = {}
  const add = (key: string, ref: string, raw: unknown, dictionary: boolean) => {
    const def = resolveField(defs, ref)
    if (def === undefined) {
      fieldErrors[key] = 'Unknown custom field.'
      return
    }
    entries.push({ key, raw, def, rank: (dictionary ? 2 : 0) + (def.id === ref ? 0 : 1) })
  }

  for (const [key, raw] of Object.entries(body)) {
    if (key.startsWith('custom.')) add(key, key.slice('custom.'.length), raw, false)
  }
  const dictionary = body.custom
  if (isPlainObject(dictionary)) {
    for (const [ref, raw] of Object.entries(dictionary)) add(`custom.${ref}`, ref, raw, true)
  } else if (dictionary !== undefined && dictionary !== null) {
    fieldErrors.custom = 'Must be an object of custom field names and values.'
  }

  const winners = new Map<string, (typeof entries)[number]>()
  for (const entry of entries) {
    const current = winners.get(entry.def.id)
    if (current === undefined || entry.rank < current.rank) winners.set(entry.def.id, entry)
  }
  const changes = new Map<string, CustomValue[] | null>()
  const contactRefs: ContactReference[] = []
  for (const { key, raw, def } of winners.values()) {
    const parsed = parseFieldValue(raw, def, ctx.memberUserIds)
    if ('error' in parsed) {
      fieldErrors[key] = parsed.error
    } else {
      changes.set(def.id, parsed.values)
      if (def.type === 'contact' && parsed.values !== null) contactRefs.push({ key, ids: parsed.values.map(String) })
    }
  }
  return { changes, fieldErrors, contactRefs }
}

/** The contact ids a `contact` field's value names, with the key the client sent it under. */
export interface ContactReference {
  key: string
  ids: string[]
}

export interface CustomInput {
  changes: Map<string, CustomValue[] | null>
  fieldErrors: Record<string, string>
  /** Checked against the database by `unknownContactErrors`: parsing sees only the `cont_` prefix. */
  contactRefs: ContactReference[]
}

/** A field error (keyed `prefix` + key) for each reference to a contact that is not in the organization. */
export async function unknownContactErrors(
  db: Queryable,
  organizationId: string,
  refs: ContactReference[],
  prefix = '',
): Promise<Record<string, string>> {
  const wanted = [...new Set(refs.flatMap((r) => r.ids))]
  if (wanted.length === 0) return {}
  const rows = await readInChunks(wanted, (part) =>
    db
      .selectFrom('contact')
      .select('id')
      .where('organization_id', '=', organizationId)
      .where('id', 'in', part)
      .execute(),
  )
  const found = new Set(rows.map((row) => row.id))
  const errors: Record<string, string> = {}
  for (const ref of refs) {
    const missing = ref.ids.find((id) => !found.has(id))
    if (missing !== undefined) errors[prefix + ref.key] = `Not a contact of your organization: "${missing}".`
  }
  return errors
}

// --- storage ---

/**
 * Replaces the values of each changed field of one object (a null or empty list removes them).
 * `value_number` is filled for numbers, which `parseCustomInput` produces for number fields only.
 */
export async function writeCustomValues(
  tx: Queryable,
  target: { organizationId: string; leadId: string; objectId: string },
  changes: Map<string, CustomValue[] | null>,
): Promise<void> {
  if (changes.size === 0) return
  await tx
    .deleteFrom('custom_value')
    .where('organization_id', '=', target.organizationId)
    .where('object_id', '=', target.objectId)
    .where('field_id', 'in', [...changes.keys()])
    .execute()
  const rows = [...changes.entries()].flatMap(([fieldId, values]) =>
    (values ?? []).map((value, position) => ({
      object_id: target.objectId,
      field_id: fieldId,
      position,
      organization_id: target.organizationId,
      lead_id: target.leadId,
      value_text: String(value),
      value_number: typeof value === 'number' ? value : null,
    })),
  )
  if (rows.length > 0) await tx.insertInto('custom_value').values(rows).execute()
}

/** Deletes a contact or an opportunity with its custom values, which have no foreign key to it. */
export async function deleteWithCustomValues(
  tx: Queryable,
  table: 'contact' | 'opportunity',
  organizationId: string,
  id: string,
): Promise<void> {
  await tx
    .deleteFrom('custom_value')
    .where('organization_id', '=', organizationId)
    .where('object_id', '=', id)
    .execute()
  await tx.deleteFrom(table).where('organization_id', '=', organizationId).where('id', '=', id).execute()
}

/** The stored values of the given objects (leads, contacts, opportunities), by object id, then field id, in order. */
export async function readCustomValues(
  db: Queryable,
  organizationId: string,
  objectIds: string[],
): Promise<Map<string, Map<string, CustomValue[]>>> {
  const byObject = new Map<string, Map<string, CustomValue[]>>()
  const ids = [...new Set(objectIds)]
  const rows = await readInChunks(ids, (part) =>
    db
      .selectFrom('custom_value')
      .select(['object_id', 'field_id', 'value_text', 'value_number'])
      .where('organization_id', '=', organizationId)
      .where('object_id', 'in', part)
      .orderBy('object_id')
      .orderBy('field_id')
      .orderBy('position')
      .execute(),
  )
  for (const row of rows) {
    const fields = byObject.get(row.object_id) ?? new Map<string, CustomValue[]>()
    byObject.set(row.object_id, fields)
    const values = fields.get(row.field_id) ?? []
    fields.set(row.field_id, values)
    values.push(row.value_number ?? row.value_text)
  }
  return byObject
}

/** `{'custom.<field id>': value, …, custom: {'<field name>': value, …}}`: a list for multiple-value fields. */
export type CustomFieldsView = Record<string, unknown> & { custom: Record<string, CustomValue | CustomValue[]> }

/**
 * The wire form of one object's values: `custom.<field id>` keys plus the deprecated `custom` dictionary keyed by
 * name. Unset fields are left out, as Close does; `custom` is always there.
 */
export function customFieldsView(
  values: Map<string, CustomValue[]> | undefined,
  defs: CustomFieldDef[],
): CustomFieldsView {
  const view: Record<string, unknown> = {}
  const dictionary: Record<string, CustomValue | CustomValue[]> = {}
  for (const def of defs) {
    const stored = values?.get(def.id)
    const first = stored?.[0]
    if (stored === undefined || first === undefined) continue
    const value = def.accepts_multiple_values ? [...stored] : first
    view[`custom.${def.id}`] = value
    dictionary[def.name] = value
  }
  return { ...view, custom: dictionary }
}

/** Lead merge: every field the destination has no value for takes the source's values. */
export async function copyMissingCustomValues(
  tx: Queryable,
  organizationId: string,
  fromObjectId: string,
  toObjectId: string,
  toLeadId: string,
): Promise<void> {
  const existing = await tx
    .selectFrom('custom_value')
    .select('field_id')
    .where('organization_id', '=', organizationId)
    .where('object_id', '=', toObjectId)
    .execute()
  const taken = new Set(existing.map((row) => row.field_id))
  const source = await tx
    .selectFrom('custom_value')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('object_id', '=', fromObjectId)
    .execute()
  const rows = source
    .filter((row) => !taken.has(row.field_id))
    .map((row) => ({ ...row, object_id: toObjectId, lead_id: toLeadId }))
  if (rows.length > 0) await tx.insertInto('custom_value').values(rows).execute()
}
