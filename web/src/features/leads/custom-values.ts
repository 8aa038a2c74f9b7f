import type { CustomField, CustomValue } from '@leadline/shared/custom-field-schema'
import { fromDateTimeLocalInput, toDateTimeLocalInput } from '../../lib/wall-clock'

// Custom values between the API's shape and an editor's text; no React, so the rules are unit-tested.

/** The values stored for one field on a lead or contact (`custom.<field id>`), always as a list. */
export function customValuesOf(record: Record<string, unknown>, field: CustomField): CustomValue[] {
  const raw = record[`custom.${field.id}`]
  const list: unknown[] = Array.isArray(raw) ? raw : [raw]
  return list.filter((v): v is CustomValue => typeof v === 'string' || typeof v === 'number')
}

/** Multiple values are edited one per line. */
export const CUSTOM_VALUE_SEPARATOR = '\n'

/** The editor's text for the stored values. */
export function customDraftOf(field: CustomField, values: CustomValue[]): string {
  const texts = values.map((v) => (field.type === 'datetime' ? toDateTimeLocalInput(String(v)) : String(v)))
  return texts.join(CUSTOM_VALUE_SEPARATOR)
}

/** The editor's text as the value the API takes: null unsets, numbers for number fields, lists for multiples. */
export function customValueFromDraft(field: CustomField, draft: string): CustomValue | CustomValue[] | null {
  const one = (text: string): CustomValue => {
    if (field.type === 'number') {
      const number = Number(text)
      // Anything else goes as typed, and the API says what is wrong with it.
      return text.trim() !== '' && Number.isFinite(number) ? number : text
    }
    if (field.type === 'datetime') return fromDateTimeLocalInput(text)
    return text
  }
  const texts = draft
    .split(CUSTOM_VALUE_SEPARATOR)
    .map((t) => t.trim())
    .filter((t) => t !== '')
  if (texts.length === 0) return null
  if (field.accepts_multiple_values) return texts.map(one)
  return one(field.type === 'textarea' ? draft.trim() : (texts[0] ?? ''))
}
