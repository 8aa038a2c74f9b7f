import { describe, expect, it } from 'vitest'
import { ApiError } from '../../lib/api'
import { eventsSummary, filterSummary, placeWebhookErrors, readFilterText } from './webhook-form-text'

const won = {
  type: 'field_accessor',
  field: 'data',
  filter: { type: 'field_accessor', field: 'status_label', filter: { type: 'equals', value: 'Won' } },
}
const refused = (fieldErrors: Record<string, string>) => new ApiError(400, { errors: [], 'field-errors': fieldErrors })

describe('readFilterText', () => {
  it('reads nothing as no filter, a filter as its words, and says what is wrong with anything else', () => {
    expect(readFilterText('  ')).toEqual({ kind: 'none' })
    expect(readFilterText(JSON.stringify(won))).toEqual({
      kind: 'filter',
      filter: won,
      words: 'Events where status label is "Won".',
    })
    expect(readFilterText('{"type": ')).toEqual({
      kind: 'problem',
      problem: 'Not valid JSON yet: check its quotes, commas and brackets.',
    })
    expect(readFilterText('{"type": "and", "filters": [{"type": "is_null", "value": 1}]}')).toEqual({
      kind: 'problem',
      problem: 'filter.filters[0].value: unknown member "value" of an "is_null" filter',
    })
    expect(readFilterText('[]')).toMatchObject({ kind: 'problem' })
  })
})

describe('the summaries of a subscription', () => {
  it('names each kind of event once, and each filter in words or that every event goes', () => {
    const events = [
      { object_type: 'lead', action: 'updated', extra_filter: won },
      { object_type: 'lead', action: 'created', extra_filter: won },
      { object_type: 'contact', action: 'created', extra_filter: null },
    ]
    expect(eventsSummary(events)).toBe('lead updated, lead created, contact created')
    expect(filterSummary(events)).toBe('Events where status label is "Won". Or: Every event.')
    expect(filterSummary(events.slice(2))).toBe('Every event.')
  })
})

describe('placeWebhookErrors', () => {
  it('puts the API’s errors beside the URL, object type, actions and filter, and the rest in one message', () => {
    expect(
      placeWebhookErrors(
        refused({
          url: 'Must be https.',
          'events.0.object_type': 'Not an object type.',
          'events.1.action': 'Must be one of created, updated.',
          'events.0.extra_filter.filters.1.type': 'Unknown filter type.',
        }),
      ),
    ).toEqual({
      beside: {
        url: 'Must be https.',
        object_type: 'Not an object type.',
        actions: 'Must be one of created, updated.',
        filter: 'Unknown filter type.',
      },
      general: undefined,
    })
    expect(placeWebhookErrors(refused({ verify_ssl: 'Must be a boolean.', url: 'Bad.' }))).toEqual({
      beside: { url: 'Bad.' },
      general: 'verify_ssl: Must be a boolean.',
    })
    expect(placeWebhookErrors(new ApiError(403, { error: 'Only an admin can do this.' }))).toEqual({
      beside: {},
      general: 'Only an admin can do this.',
    })
    expect(placeWebhookErrors(null)).toEqual({ beside: {}, general: undefined })
  })
})
