import { afterEach, describe, expect, it } from 'vitest'
import type { CustomField, CustomFieldType } from '@leadline/shared/custom-field-schema'
import { customDraftOf, customValueFromDraft, customValuesOf } from './custom-values'

function field(type: CustomFieldType, accepts_multiple_values = false): CustomField {
  return {
    id: 'cf_1',
    name: 'Field',
    description: null,
    type,
    choices: type === 'choices' ? ['A', 'B'] : null,
    accepts_multiple_values,
    position: 0,
    organization_id: 'orga_1',
    created_by: null,
    updated_by: null,
    date_created: '2026-01-01T00:00:00.000000+00:00',
    date_updated: '2026-01-01T00:00:00.000000+00:00',
  }
}

const zone = process.env.TZ
afterEach(() => {
  process.env.TZ = zone
})

describe('customValuesOf', () => {
  it('reads one value, a list, or nothing as a list', () => {
    expect(customValuesOf({ 'custom.cf_1': 'x' }, field('text'))).toEqual(['x'])
    expect(customValuesOf({ 'custom.cf_1': ['x', 2] }, field('text', true))).toEqual(['x', 2])
    expect(customValuesOf({ 'custom.cf_1': null }, field('text'))).toEqual([])
    expect(customValuesOf({}, field('text'))).toEqual([])
  })
})

describe('customValueFromDraft', () => {
  it('sends numbers for number fields and leaves anything else for the API to refuse', () => {
    expect(customValueFromDraft(field('number'), ' 4000 ')).toBe(4000)
    expect(customValueFromDraft(field('number'), '12.5')).toBe(12.5)
    expect(customValueFromDraft(field('number'), 'abc')).toBe('abc')
  })

  it('unsets with null when the draft is blank', () => {
    expect(customValueFromDraft(field('text'), '  \n ')).toBeNull()
    expect(customValueFromDraft(field('number', true), '')).toBeNull()
  })

  it('sends one value per non-blank line for multiple-value fields', () => {
    expect(customValueFromDraft(field('text', true), 'a\n\n b \n')).toEqual(['a', 'b'])
    expect(customValueFromDraft(field('number', true), '1\n2')).toEqual([1, 2])
  })

  it('keeps the lines of a textarea and only the first line of a one-line field', () => {
    expect(customValueFromDraft(field('textarea'), ' line one\nline two \n')).toBe('line one\nline two')
    expect(customValueFromDraft(field('text'), 'first\nsecond')).toBe('first')
  })

  it('turns the wall-clock time of a datetime field into the instant, in the user’s zone', () => {
    process.env.TZ = 'Asia/Tokyo'
    expect(customValueFromDraft(field('datetime'), '2026-03-01T09:30')).toBe('2026-03-01T00:30:00.000Z')
    process.env.TZ = 'America/New_York'
    expect(customValueFromDraft(field('datetime'), '2026-03-01T09:30')).toBe('2026-03-01T14:30:00.000Z')
  })
})

describe('customDraftOf', () => {
  it('shows a datetime as the wall-clock time of the user’s zone, and round-trips it', () => {
    process.env.TZ = 'America/New_York'
    const draft = customDraftOf(field('datetime'), ['2026-07-04T16:00:00.000000+00:00'])
    expect(draft).toBe('2026-07-04T12:00')
    expect(customValueFromDraft(field('datetime'), draft)).toBe('2026-07-04T16:00:00.000Z')
  })

  it('puts multiple values one per line', () => {
    const multi = field('choices', true)
    expect(customDraftOf(multi, ['A', 'B'])).toBe('A\nB')
    expect(customValueFromDraft(multi, customDraftOf(multi, ['A', 'B']))).toEqual(['A', 'B'])
  })
})
