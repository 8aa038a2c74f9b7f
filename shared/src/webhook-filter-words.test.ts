import { describe, expect, it } from 'vitest'
import type { WebhookFilter } from './webhook-filter.js'
import { describeWebhookFilter } from './webhook-filter-words.js'

const field = (name: string, filter: WebhookFilter): WebhookFilter => ({ type: 'field_accessor', field: name, filter })
const data = (name: string, filter: WebhookFilter) => field('data', field(name, filter))

describe('describeWebhookFilter', () => {
  it('says a field test in words, the event’s data without a prefix', () => {
    expect(describeWebhookFilter(data('status_label', { type: 'equals', value: 'Won' }))).toBe(
      'Events where status label is "Won".',
    )
    expect(
      describeWebhookFilter(field('previous_data', field('status_label', { type: 'not_equals', value: 'Won' }))),
    ).toBe('Events where previous status label is not "Won".')
    expect(describeWebhookFilter(field('lead_id', { type: 'is_null' }))).toBe('Events where lead id is empty.')
    expect(describeWebhookFilter(data('value', { type: 'non_null' }))).toBe('Events where value is set.')
    expect(describeWebhookFilter(field('changed_fields', { type: 'contains', value: 'status_id' }))).toBe(
      'Events where changed fields contains "status_id".',
    )
    expect(describeWebhookFilter({ type: 'equals', value: 3 })).toBe('Events where the event is 3.')
    expect(describeWebhookFilter(data('user_id', { type: 'equals', value: null }))).toBe(
      'Events where user id is empty.',
    )
  })

  it('joins and, or and not, keeping an or inside an and grouped', () => {
    const won = data('status_label', { type: 'equals', value: 'Won' })
    const lost = data('status_label', { type: 'equals', value: 'Lost' })
    const changed = field('changed_fields', { type: 'contains', value: 'status_label' })
    expect(describeWebhookFilter({ type: 'and', filters: [changed, won] })).toBe(
      'Events where changed fields contains "status_label" and status label is "Won".',
    )
    expect(describeWebhookFilter({ type: 'and', filters: [changed, { type: 'or', filters: [won, lost] }] })).toBe(
      'Events where changed fields contains "status_label" and (status label is "Won" or status label is "Lost").',
    )
    expect(describeWebhookFilter({ type: 'or', filters: [won, { type: 'or', filters: [lost] }] })).toBe(
      'Events where status label is "Won" or status label is "Lost".',
    )
    expect(describeWebhookFilter({ type: 'not', filter: won })).toBe('Events where not (status label is "Won").')
    expect(describeWebhookFilter({ type: 'and', filters: [] })).toBe('Events where anything.')
  })

  it('says a test on a list’s items', () => {
    const filter = data('emails', {
      type: 'any_array_value',
      filter: field('type', { type: 'equals', value: 'office' }),
    })
    expect(describeWebhookFilter(filter)).toBe('Events where some item of emails matches: type is "office".')
    expect(
      describeWebhookFilter(data('tags', { type: 'any_array_value', filter: { type: 'equals', value: 'vip' } })),
    ).toBe('Events where some item of tags matches: the item is "vip".')
  })
})
