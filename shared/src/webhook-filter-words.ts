import type { JsonValue, WebhookFilter } from './webhook-filter.js'

// A webhook filter in plain words, for the screen that edits one: `status label is "Won" and previous status label
// is not "Won"`. Pure; it takes a filter the validator accepted (so its depth is bounded).

/** The fields a filter has stepped into, outermost first (`['data', 'status_label']`). */
type Subject = readonly string[]

const words = (field: string) => field.replace(/_/g, ' ').trim()

/** `status label`, `previous status label`, `lead id`: what the event's `data` holds needs no prefix. */
function subjectText(subject: Subject): string {
  if (subject.length === 0) return 'the event'
  const [first, ...rest] = subject
  if (first === 'data' && rest.length > 0) return rest.map(words).join(' ')
  if (first === 'previous_data' && rest.length > 0) return `previous ${rest.map(words).join(' ')}`
  return subject.map(words).join(' ')
}

function valueText(value: JsonValue): string {
  if (value === null) return 'empty'
  return JSON.stringify(value)
}

function part(filter: WebhookFilter, subject: Subject, within: 'and' | 'or' | 'top'): string {
  const about = subjectText(subject)
  switch (filter.type) {
    case 'equals':
      return filter.value === null ? `${about} is empty` : `${about} is ${valueText(filter.value)}`
    case 'not_equals':
      return filter.value === null ? `${about} is set` : `${about} is not ${valueText(filter.value)}`
    case 'is_null':
      return `${about} is empty`
    case 'non_null':
      return `${about} is set`
    case 'contains':
      return `${about} contains ${valueText(filter.value)}`
    case 'and':
    case 'or': {
      if (filter.filters.length === 0) return filter.type === 'and' ? 'anything' : 'nothing'
      const text = filter.filters.map((f) => part(f, subject, filter.type)).join(` ${filter.type} `)
      // An `or` inside an `and` (or the reverse) keeps its grouping.
      return filter.filters.length > 1 && within !== 'top' && within !== filter.type ? `(${text})` : text
    }
    case 'not':
      return `not (${part(filter.filter, subject, 'top')})`
    case 'field_accessor':
      return part(filter.filter, [...subject, filter.field], within)
    case 'any_array_value':
      return `some item of ${about} matches: ${part(filter.filter, [], 'top').replace(/^the event /, 'the item ')}`
  }
}

/** The events a filter lets through, as a sentence: `Events where status label is "Won".` */
export function describeWebhookFilter(filter: WebhookFilter): string {
  return `Events where ${part(filter, [], 'top')}.`
}
