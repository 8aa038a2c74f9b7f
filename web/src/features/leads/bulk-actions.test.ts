import { describe, expect, it } from 'vitest'
import { editBody, selectionBody, withoutSort } from './bulk-actions'
import { typedCount } from './bulk-dialogs'
import { NOTHING_SELECTED, selectedCount } from './bulk-selection'

describe('what a bulk action is over', () => {
  it('names picked rows by id, and every matching lead by the search without its sort', () => {
    expect(selectionBody({ all: false, ids: new Set(['lead_a', 'lead_b']) }, 'acme')).toEqual({
      lead_ids: ['lead_a', 'lead_b'],
    })
    expect(selectionBody({ all: true }, 'name:"acme co" sort:-created status:potential')).toEqual({
      query: 'name:"acme co" status:potential',
    })
    expect(selectionBody({ all: true }, undefined)).toEqual({ query: '' })
  })

  it('keeps a sort: inside quotes or parentheses, which is text, not a clause', () => {
    expect(withoutSort('"sort:name" (a or sort:b) sort:name')).toBe('"sort:name" (a or sort:b)')
  })

  it('counts what is selected', () => {
    expect(selectedCount(NOTHING_SELECTED, 12_482)).toBe(0)
    expect(selectedCount({ all: false, ids: new Set(['lead_a']) }, 12_482)).toBe(1)
    expect(selectedCount({ all: true }, 12_482)).toBe(12_482)
  })
})

describe('what a bulk edit sends', () => {
  it('one value, or several for a field that takes several, with the operation', () => {
    expect(editBody({ type: 'set_lead_status', lead_status_id: 'stat_1' })).toEqual({
      type: 'set_lead_status',
      lead_status_id: 'stat_1',
    })
    expect(editBody({ type: 'set_custom_field', custom_field_id: 'cf_1', value: 'red', operation: 'replace' })).toEqual(
      {
        type: 'set_custom_field',
        custom_field_id: 'cf_1',
        custom_field_value: 'red',
        custom_field_operation: 'replace',
      },
    )
    expect(editBody({ type: 'set_custom_field', custom_field_id: 'cf_1', value: ['red'], operation: 'add' })).toEqual({
      type: 'set_custom_field',
      custom_field_id: 'cf_1',
      custom_field_values: ['red'],
      custom_field_operation: 'add',
    })
    expect(editBody({ type: 'clear_custom_field', custom_field_id: 'cf_1' })).toEqual({
      type: 'clear_custom_field',
      custom_field_id: 'cf_1',
    })
  })
})

describe('the count typed to confirm a delete', () => {
  it('takes digits, with or without separators, and nothing else', () => {
    expect(typedCount('12482')).toBe(12_482)
    expect(typedCount(' 12,482 ')).toBe(12_482)
    expect(typedCount('12.482')).toBe(12_482)
    expect(typedCount('')).toBeUndefined()
    expect(typedCount('12482 leads')).toBeUndefined()
    expect(typedCount('-3')).toBeUndefined()
  })
})
