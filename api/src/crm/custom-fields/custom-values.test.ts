import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { newId } from '../../platform/security/ids.js'
import { formatTimestamp } from '../../platform/data/time.js'
import { normalizeDatetime, parseCalendarDate } from '../../platform/data/calendar-dates.js'
import { call, createTestContext, type TestContext, type TestOrg } from '../../tooling/test-support/test-app.js'
import {
  copyMissingCustomValues,
  customFieldsView,
  listCustomFieldDefs,
  parseCustomInput,
  readCustomValues,
  writeCustomValues,
  type CustomFieldDef,
  type CustomValue,
} from './custom-values.js'

const member = 'user_member'
const ctx = { memberUserIds: new Set([member, 'user_other']) }

function def(id: string, name: string, type: CustomFieldDef['type'], extra: Partial<CustomFieldDef> = {}) {
  return { id, name, type, choices: null, accepts_multiple_values: false, ...extra }
}

const defs: CustomFieldDef[] = [
  def('cf_text', 'Lead initials', 'text'),
  def('cf_area', 'Notes', 'textarea'),
  def('cf_hidden', 'Secret', 'hidden'),
  def('cf_num', 'Deal size', 'number'),
  def('cf_date', 'Signed on', 'date'),
  def('cf_dt', 'Called at', 'datetime'),
  def('cf_choice', 'Source', 'choices', { choices: ['Google', 'Referral', 'Trade show'] }),
  def('cf_multi', 'Products', 'choices', { choices: ['Alpha', 'Beta', 'Gamma'], accepts_multiple_values: true }),
  def('cf_user', 'Owner', 'user'),
  def('cf_users', 'Helpers', 'user', { accepts_multiple_values: true }),
  def('cf_contact', 'Champion', 'contact'),
  def('cf_nums', 'Scores', 'number', { accepts_multiple_values: true }),
]

function byFieldThenPosition(x: { field_id: string; position: number }, y: { field_id: string; position: number }) {
  return x.field_id < y.field_id ? -1 : x.field_id > y.field_id ? 1 : x.position - y.position
}

function parse(body: Record<string, unknown>) {
  const { changes, fieldErrors } = parseCustomInput(body, defs, ctx)
  return { changes: Object.fromEntries(changes), fieldErrors }
}

/** The stored values of one field, or the field error of its key. */
function one(fieldId: string, raw: unknown): CustomValue[] | null | { error: string | undefined } {
  const key = `custom.${fieldId}`
  const { changes, fieldErrors } = parse({ [key]: raw })
  if (key in fieldErrors) return { error: fieldErrors[key] }
  expect(fieldErrors).toEqual({})
  const values = changes[fieldId]
  if (values === undefined) throw new Error(`no change for ${fieldId}`)
  return values
}

describe('parseCustomInput: forms of the body', () => {
  it('reads custom.<field id> keys and ignores every other key', () => {
    expect(parse({ name: 'Acme', 'custom.cf_text': 'AB', 'custom.cf_num': 3, description: 'x' })).toEqual({
      changes: { cf_text: ['AB'], cf_num: [3] },
      fieldErrors: {},
    })
  })

  it('reads custom.<field name> keys, exact name first, then ignoring case', () => {
    expect(parse({ 'custom.Lead initials': 'AB', 'custom.deal SIZE': '12' })).toEqual({
      changes: { cf_text: ['AB'], cf_num: [12] },
      fieldErrors: {},
    })
    const twins = [def('cf_upper', 'CODE', 'text'), def('cf_lower', 'code', 'text')]
    expect(Object.fromEntries(parseCustomInput({ 'custom.code': 'x' }, twins, ctx).changes)).toEqual({
      cf_lower: ['x'],
    })
    expect(Object.fromEntries(parseCustomInput({ 'custom.Code': 'y' }, twins, ctx).changes)).toEqual({
      cf_upper: ['y'],
    })
  })

  it('reads the deprecated custom dictionary, keyed by name or by id', () => {
    expect(parse({ custom: { Source: 'google', 'lead initials': 'XY', cf_num: '7.5' } })).toEqual({
      changes: { cf_choice: ['Google'], cf_text: ['XY'], cf_num: [7.5] },
      fieldErrors: {},
    })
  })

  it('lets top-level keys win over the dictionary, and an id win over a name', () => {
    expect(
      parse({
        custom: { Source: 'Referral', 'Deal size': 'not even a number' },
        'custom.Source': 'Trade show',
        'custom.cf_num': 5,
      }),
    ).toEqual({ changes: { cf_choice: ['Trade show'], cf_num: [5] }, fieldErrors: {} })
    expect(parse({ 'custom.Lead initials': 'BY NAME', 'custom.cf_text': 'BY ID' }).changes).toEqual({
      cf_text: ['BY ID'],
    })
  })

  it('unsets a field with null, in every form', () => {
    expect(parse({ 'custom.cf_text': null, 'custom.Deal size': null, custom: { Source: null } })).toEqual({
      changes: { cf_text: null, cf_num: null, cf_choice: null },
      fieldErrors: {},
    })
  })

  it('refuses unknown fields on the key the client used', () => {
    expect(parse({ 'custom.cf_nope': 1, 'custom.Nope': 'x', 'custom.': 'x', custom: { Missing: 'y' } })).toEqual({
      changes: {},
      fieldErrors: {
        'custom.cf_nope': 'Unknown custom field.',
        'custom.Nope': 'Unknown custom field.',
        'custom.': 'Unknown custom field.',
        'custom.Missing': 'Unknown custom field.',
      },
    })
  })

  it('keys value errors by the key the client used, dictionary entries as custom.<name>', () => {
    expect(
      parse({ 'custom.cf_num': 'abc', 'custom.Lead initials': true, custom: { 'signed on': '2026-02-30' } })
        .fieldErrors,
    ).toEqual({
      'custom.cf_num': 'A valid number is required.',
      'custom.Lead initials': 'Must be a string.',
      'custom.signed on': 'Enter a valid date in the form YYYY-MM-DD.',
    })
  })

  it('refuses a custom dictionary that is not an object, and ignores custom: null', () => {
    expect(parse({ custom: ['Google'] }).fieldErrors).toEqual({ custom: expect.any(String) })
    expect(parse({ custom: 'Google' }).fieldErrors).toEqual({ custom: expect.any(String) })
    expect(parse({ custom: null })).toEqual({ changes: {}, fieldErrors: {} })
  })

  it('reports every error and keeps the valid changes beside them', () => {
    const result = parse({ 'custom.cf_num': 'x', 'custom.cf_date': 'y', 'custom.cf_text': 'ok' })
    expect(Object.keys(result.fieldErrors).sort()).toEqual(['custom.cf_date', 'custom.cf_num'])
    expect(result.changes).toEqual({ cf_text: ['ok'] })
  })
})

describe('parseCustomInput: values by type', () => {
  it.each(['cf_text', 'cf_area', 'cf_hidden'])('%s keeps strings, turns numbers into text, caps the length', (id) => {
    expect(one(id, '  spaced  ')).toEqual(['  spaced  '])
    expect(one(id, 42.5)).toEqual(['42.5'])
    expect(one(id, '')).toEqual([''])
    expect(one(id, 'x'.repeat(10_000))).toEqual(['x'.repeat(10_000)])
    expect(one(id, 'x'.repeat(10_001))).toEqual({ error: 'Ensure this value has no more than 10000 characters.' })
    expect(one(id, true)).toEqual({ error: 'Must be a string.' })
    expect(one(id, { a: 1 })).toEqual({ error: 'Must be a string.' })
  })

  it('number: finite numbers and numeric strings become numbers', () => {
    expect(one('cf_num', 12)).toEqual([12])
    expect(one('cf_num', -0.5)).toEqual([-0.5])
    expect(one('cf_num', ' 1.25e3 ')).toEqual([1250])
    expect(one('cf_num', '-7')).toEqual([-7])
    expect(one('cf_num', '')).toBeNull()
    for (const bad of ['abc', '12abc', '0x10', '1e999', 'Infinity', 'NaN', true, [1]]) {
      expect(one('cf_num', bad), String(bad)).toEqual({
        error: Array.isArray(bad) ? 'This field accepts a single value, not a list.' : 'A valid number is required.',
      })
    }
  })

  it('date: YYYY-MM-DD of a real calendar day', () => {
    expect(one('cf_date', '2026-02-28')).toEqual(['2026-02-28'])
    expect(one('cf_date', '2024-02-29')).toEqual(['2024-02-29'])
    expect(one('cf_date', ' 2026-12-31 ')).toEqual(['2026-12-31'])
    expect(one('cf_date', '')).toBeNull()
    for (const bad of [
      '2026-02-30',
      '2025-02-29',
      '1900-02-29',
      '2026-13-01',
      '2026-04-31',
      '2026-00-10',
      '2026-1-5',
    ]) {
      expect(one('cf_date', bad), bad).toEqual({ error: 'Enter a valid date in the form YYYY-MM-DD.' })
    }
    for (const bad of ['2026-03-01T10:00:00Z', 'tomorrow', 20260301]) {
      expect(one('cf_date', bad), String(bad)).toEqual({ error: 'Enter a valid date in the form YYYY-MM-DD.' })
    }
  })

  it('datetime: stored in UTC with six fractional digits', () => {
    expect(one('cf_dt', '2026-03-01T10:00:00+02:00')).toEqual(['2026-03-01T08:00:00.000000+00:00'])
    expect(one('cf_dt', '2026-03-01T10:00:00Z')).toEqual(['2026-03-01T10:00:00.000000+00:00'])
    expect(one('cf_dt', '2026-03-01T23:30:00.5-05:30')).toEqual(['2026-03-02T05:00:00.500000+00:00'])
    expect(one('cf_dt', '2026-03-01T10:00:00.123456789+0000')).toEqual(['2026-03-01T10:00:00.123456+00:00'])
    expect(one('cf_dt', '2026-03-01T00:15:00+01:00')).toEqual(['2026-02-28T23:15:00.000000+00:00'])
    expect(one('cf_dt', '2026-03-01 10:00')).toEqual(['2026-03-01T10:00:00.000000+00:00'])
    expect(one('cf_dt', '')).toBeNull()
    for (const bad of [
      '2026-02-30T10:00:00Z',
      '2026-03-01T24:00:00Z',
      '2026-03-01T10:60:00Z',
      '2026-03-01T10:00:00+24:00',
      '2026-03-01',
      'now',
    ]) {
      expect(one('cf_dt', bad), bad).toEqual({ error: expect.stringContaining('ISO 8601') })
    }
    expect(one('cf_dt', 1772359200000)).toEqual({ error: expect.stringContaining('ISO 8601') })
  })

  it('choices: one of the choices, mapped to the canonical spelling when only the case differs', () => {
    expect(one('cf_choice', 'Google')).toEqual(['Google'])
    expect(one('cf_choice', 'trade SHOW')).toEqual(['Trade show'])
    expect(one('cf_choice', ' referral ')).toEqual(['Referral'])
    expect(one('cf_choice', '')).toBeNull()
    expect(one('cf_choice', 'Bing')).toEqual({ error: 'Not a valid choice.' })
    expect(one('cf_choice', 3)).toEqual({ error: 'Not a valid choice.' })
    const numbered = [def('cf_n', 'Tier', 'choices', { choices: ['1', '2', 'Big'] })]
    expect(Object.fromEntries(parseCustomInput({ 'custom.cf_n': 2 }, numbered, ctx).changes)).toEqual({ cf_n: ['2'] })
  })

  it('prefers an exact choice over one that differs only in case', () => {
    const cased = [def('cf_c', 'Size', 'choices', { choices: ['XL', 'xl'] })]
    expect(Object.fromEntries(parseCustomInput({ 'custom.cf_c': 'xl' }, cased, ctx).changes)).toEqual({ cf_c: ['xl'] })
    expect(Object.fromEntries(parseCustomInput({ 'custom.cf_c': 'Xl' }, cased, ctx).changes)).toEqual({ cf_c: ['XL'] })
  })

  it('user: a member of the organization', () => {
    expect(one('cf_user', member)).toEqual([member])
    expect(one('cf_user', '')).toBeNull()
    expect(one('cf_user', 'user_stranger')).toEqual({ error: 'Not a user of your organization.' })
    expect(one('cf_user', 7)).toEqual({ error: 'Not a user of your organization.' })
  })

  it('contact: a contact id (existence is the caller’s check)', () => {
    expect(one('cf_contact', 'cont_abc')).toEqual(['cont_abc'])
    expect(one('cf_contact', '')).toBeNull()
    expect(one('cf_contact', 'lead_abc')).toEqual({ error: 'A contact id (cont_…) is required.' })
    expect(one('cf_contact', 5)).toEqual({ error: 'A contact id (cont_…) is required.' })
  })
})

describe('parseCustomInput: multiple values', () => {
  it('takes a list, checking and mapping each value, dropping blanks and repeats', () => {
    expect(one('cf_multi', ['gamma', 'Alpha', '', 'GAMMA'])).toEqual(['Gamma', 'Alpha'])
    expect(one('cf_users', [member, 'user_other'])).toEqual([member, 'user_other'])
    expect(one('cf_nums', [1, '2', 3.5])).toEqual([1, 2, 3.5])
  })

  it('wraps a single value in a list', () => {
    expect(one('cf_multi', 'beta')).toEqual(['Beta'])
  })

  it('unsets with null, an empty list or a list of blanks', () => {
    expect(one('cf_multi', null)).toBeNull()
    expect(one('cf_multi', [])).toBeNull()
    expect(one('cf_multi', ['', ' '])).toBeNull()
  })

  it('names the position of a bad value in a list', () => {
    expect(one('cf_multi', ['Alpha', 'Omega'])).toEqual({ error: 'Value 2: Not a valid choice.' })
    expect(one('cf_users', ['user_stranger'])).toEqual({ error: 'Value 1: Not a user of your organization.' })
    expect(one('cf_multi', ['Alpha', null])).toEqual({ error: 'Value 2: Must not be null.' })
    expect(one('cf_multi', [['Alpha']])).toEqual({ error: 'Value 1: Not a valid choice.' })
  })

  it('refuses a list for a single-valued field', () => {
    for (const id of ['cf_choice', 'cf_text', 'cf_user']) {
      expect(one(id, ['Google'])).toEqual({ error: 'This field accepts a single value, not a list.' })
    }
  })
})

describe('date and datetime helpers', () => {
  it('parseCalendarDate checks the parts of the date', () => {
    expect(parseCalendarDate('2000-02-29')).toBe('2000-02-29')
    expect(parseCalendarDate('2026-02-30')).toBeUndefined()
    expect(parseCalendarDate('0000-01-01')).toBeUndefined()
  })

  it('normalizeDatetime refuses instants outside years 1 to 9999 once in UTC', () => {
    expect(normalizeDatetime('9999-12-31T23:00:00-02:00')).toBeUndefined()
    expect(normalizeDatetime('0001-01-01T00:30:00+01:00')).toBeUndefined()
    expect(normalizeDatetime('0050-06-01T12:00:00Z')).toBe('0050-06-01T12:00:00.000000+00:00')
  })
})

describe('customFieldsView', () => {
  it('shows set fields as custom.<id> keys and in the custom dictionary by name, lists for multiple values', () => {
    const values = new Map<string, CustomValue[]>([
      ['cf_text', ['AB']],
      ['cf_num', [12.5]],
      ['cf_multi', ['Gamma', 'Alpha']],
      ['cf_users', [member]],
      ['cf_gone', ['a field that no longer exists']],
    ])
    expect(customFieldsView(values, defs)).toEqual({
      'custom.cf_text': 'AB',
      'custom.cf_num': 12.5,
      'custom.cf_multi': ['Gamma', 'Alpha'],
      'custom.cf_users': [member],
      custom: { 'Lead initials': 'AB', 'Deal size': 12.5, Products: ['Gamma', 'Alpha'], Helpers: [member] },
    })
  })

  it('leaves unset fields out and always has the custom dictionary', () => {
    expect(customFieldsView(undefined, defs)).toEqual({ custom: {} })
    expect(customFieldsView(new Map([['cf_text', []]]), defs)).toEqual({ custom: {} })
  })

  it('shows the first value of a single-valued field', () => {
    expect(customFieldsView(new Map([['cf_text', ['first', 'second']]]), defs)).toEqual({
      'custom.cf_text': 'first',
      custom: { 'Lead initials': 'first' },
    })
  })
})

describe('stored values (on the test database)', () => {
  let t: TestContext
  beforeAll(async () => {
    t = await createTestContext()
  })
  afterAll(async () => {
    await t.close()
  })

  async function createField(org: TestOrg, objectType: string, body: Record<string, unknown>): Promise<string> {
    const res = await call(t.app, org.admin.key, 'POST', `/custom_field/${objectType}/`, { body })
    expect(res.statusCode).toBe(200)
    return res.json().id
  }

  async function insertLead(org: TestOrg): Promise<string> {
    const status = await t.database.db
      .selectFrom('lead_status')
      .select('id')
      .where('organization_id', '=', org.id)
      .executeTakeFirstOrThrow()
    const id = newId('lead')
    const now = formatTimestamp(t.clock.now())
    await t.database.db
      .insertInto('lead')
      .values({
        id,
        organization_id: org.id,
        name: 'Test lead',
        description: '',
        url: null,
        status_id: status.id,
        created_by: null,
        updated_by: null,
        date_created: now,
        date_updated: now,
      })
      .execute()
    return id
  }

  /** Sorted here: Postgres may collate mixed-case ids differently from SQLite. */
  async function rows(objectId: string) {
    const found = await t.database.db
      .selectFrom('custom_value')
      .select(['field_id', 'position', 'lead_id', 'value_text', 'value_number'])
      .where('object_id', '=', objectId)
      .execute()
    return found.sort(byFieldThenPosition)
  }

  it('lists the definitions of one object type, oldest first', async () => {
    const org = await t.createOrg('Defs')
    const a = await createField(org, 'lead', { name: 'A', type: 'text' })
    const b = await createField(org, 'lead', {
      name: 'B',
      type: 'choices',
      choices: ['x', 'y'],
      accepts_multiple_values: true,
    })
    await createField(org, 'contact', { name: 'C', type: 'number' })
    expect(await listCustomFieldDefs(t.database.db, org.id, 'lead')).toEqual([
      { id: a, name: 'A', type: 'text', choices: null, accepts_multiple_values: false },
      { id: b, name: 'B', type: 'choices', choices: ['x', 'y'], accepts_multiple_values: true },
    ])
    expect(await listCustomFieldDefs(t.database.db, t.other.id, 'lead')).toEqual([])
  })

  it('writes, replaces, unsets and reads values back', async () => {
    const org = await t.createOrg('Round trip')
    const text = await createField(org, 'lead', { name: 'Initials', type: 'text' })
    const num = await createField(org, 'lead', { name: 'Size', type: 'number' })
    const multi = await createField(org, 'lead', {
      name: 'Products',
      type: 'choices',
      choices: ['Alpha', 'Beta', 'Gamma'],
      accepts_multiple_values: true,
    })
    const when = await createField(org, 'lead', { name: 'Called at', type: 'datetime' })
    const defsNow = await listCustomFieldDefs(t.database.db, org.id, 'lead')
    const leadId = await insertLead(org)
    const target = { organizationId: org.id, leadId, objectId: leadId }

    const first = parseCustomInput(
      {
        'custom.Initials': 'AB',
        [`custom.${num}`]: '1234.5',
        custom: { products: ['gamma', 'alpha'] },
        'custom.Called at': '2026-03-01T10:00:00+02:00',
      },
      defsNow,
      { memberUserIds: new Set() },
    )
    expect(first.fieldErrors).toEqual({})
    await t.database.db.transaction().execute((tx) => writeCustomValues(tx, target, first.changes))
    expect(await rows(leadId)).toEqual(
      [
        { field_id: text, position: 0, lead_id: leadId, value_text: 'AB', value_number: null },
        { field_id: num, position: 0, lead_id: leadId, value_text: '1234.5', value_number: 1234.5 },
        { field_id: multi, position: 0, lead_id: leadId, value_text: 'Gamma', value_number: null },
        { field_id: multi, position: 1, lead_id: leadId, value_text: 'Alpha', value_number: null },
        {
          field_id: when,
          position: 0,
          lead_id: leadId,
          value_text: '2026-03-01T08:00:00.000000+00:00',
          value_number: null,
        },
      ].sort(byFieldThenPosition),
    )
    const read = await readCustomValues(t.database.db, org.id, [leadId])
    expect(customFieldsView(read.get(leadId), defsNow)).toEqual({
      [`custom.${text}`]: 'AB',
      [`custom.${num}`]: 1234.5,
      [`custom.${multi}`]: ['Gamma', 'Alpha'],
      [`custom.${when}`]: '2026-03-01T08:00:00.000000+00:00',
      custom: {
        Initials: 'AB',
        Size: 1234.5,
        Products: ['Gamma', 'Alpha'],
        'Called at': '2026-03-01T08:00:00.000000+00:00',
      },
    })

    // Only the fields named change: Products shrinks to one value, Initials goes, Size stays.
    const second = parseCustomInput({ [`custom.${multi}`]: 'Beta', 'custom.Initials': null }, defsNow, {
      memberUserIds: new Set(),
    })
    await writeCustomValues(t.database.db, target, second.changes)
    const after = await readCustomValues(t.database.db, org.id, [leadId])
    expect(Object.fromEntries(after.get(leadId) ?? [])).toEqual({
      [num]: [1234.5],
      [multi]: ['Beta'],
      [when]: ['2026-03-01T08:00:00.000000+00:00'],
    })
    expect(await readCustomValues(t.database.db, t.other.id, [leadId])).toEqual(new Map())
  })

  it('reads the values of more objects than one IN list holds', async () => {
    const org = await t.createOrg('Many')
    const field = await createField(org, 'contact', { name: 'Rank', type: 'number' })
    const leadId = await insertLead(org)
    // Contacts are not needed for the values table: object ids are not foreign keys.
    const objectIds = Array.from({ length: 1203 }, (_, i) => `cont_${String(i).padStart(5, '0')}`)
    for (const [i, objectId] of objectIds.entries()) {
      if (i % 2 === 0) continue
      await writeCustomValues(t.database.db, { organizationId: org.id, leadId, objectId }, new Map([[field, [i]]]))
    }
    const read = await readCustomValues(t.database.db, org.id, [...objectIds, 'cont_none'])
    expect(read.size).toBe(601)
    expect(read.get('cont_00001')?.get(field)).toEqual([1])
    expect(read.get('cont_01201')?.get(field)).toEqual([1201])
    expect(read.has('cont_01200')).toBe(false)
  })

  it('copies only the fields the destination lacks when leads merge', async () => {
    const org = await t.createOrg('Merge')
    const a = await createField(org, 'lead', { name: 'A', type: 'text' })
    const b = await createField(org, 'lead', { name: 'B', type: 'number' })
    const c = await createField(org, 'lead', { name: 'C', type: 'user', accepts_multiple_values: true })
    const source = await insertLead(org)
    const destination = await insertLead(org)
    await writeCustomValues(
      t.database.db,
      { organizationId: org.id, leadId: source, objectId: source },
      new Map<string, CustomValue[]>([
        [a, ['from source']],
        [b, [7]],
        [c, [org.admin.id, org.member.id]],
      ]),
    )
    await writeCustomValues(
      t.database.db,
      { organizationId: org.id, leadId: destination, objectId: destination },
      new Map<string, CustomValue[]>([[a, ['kept']]]),
    )
    await t.database.db
      .transaction()
      .execute((tx) => copyMissingCustomValues(tx, org.id, source, destination, destination))
    const read = await readCustomValues(t.database.db, org.id, [source, destination])
    expect(Object.fromEntries(read.get(destination) ?? [])).toEqual({
      [a]: ['kept'],
      [b]: [7],
      [c]: [org.admin.id, org.member.id],
    })
    expect(await rows(destination)).toEqual(
      expect.arrayContaining([
        { field_id: b, position: 0, lead_id: destination, value_text: '7', value_number: 7 },
        { field_id: c, position: 1, lead_id: destination, value_text: org.member.id, value_number: null },
      ]),
    )
    // The source keeps its own values until the merge deletes it.
    expect(Object.fromEntries(read.get(source) ?? [])).toEqual({
      [a]: ['from source'],
      [b]: [7],
      [c]: [org.admin.id, org.member.id],
    })
  })
})
