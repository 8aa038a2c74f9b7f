import { describeWebhookFilterProblem, webhookFilterProblem, type WebhookFilter } from '@leadline/shared/webhook-filter'
import { describeWebhookFilter } from '@leadline/shared/webhook-filter-words'
import type { WebhookEvent } from '@leadline/shared/webhook-schema'
import { isApiError } from '../../lib/api'

// What the Webhooks screen says of filters, events and refusals; no React, so the rules are unit-tested.

/** A filter typed as JSON: none (empty), a filter with its plain words, or what is wrong with it. */
export type FilterText =
  { kind: 'none' } | { kind: 'filter'; filter: WebhookFilter; words: string } | { kind: 'problem'; problem: string }

/** Reads the filter box as the user types: the shared validator's first problem, or the filter in words. */
export function readFilterText(text: string): FilterText {
  if (text.trim() === '') return { kind: 'none' }
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    return { kind: 'problem', problem: 'Not valid JSON yet: check its quotes, commas and brackets.' }
  }
  const problem = webhookFilterProblem(value)
  if (problem !== undefined) return { kind: 'problem', problem: describeWebhookFilterProblem(problem, 'filter') }
  // The validator accepted it: it is a filter.
  const filter = value as WebhookFilter
  return { kind: 'filter', filter, words: describeWebhookFilter(filter) }
}

/** `lead updated, lead created`. */
export function eventsSummary(events: readonly WebhookEvent[]): string {
  return [...new Set(events.map((e) => `${e.object_type} ${e.action}`))].join(', ')
}

/** The filters of a subscription's events in words, or that it takes every event of its kinds. */
export function filterSummary(events: readonly WebhookEvent[]): string {
  const texts = new Set<string>()
  for (const event of events) {
    const read = event.extra_filter === null ? undefined : readFilterText(JSON.stringify(event.extra_filter))
    texts.add(read?.kind === 'filter' ? read.words : 'Every event.')
  }
  return [...texts].join(' Or: ')
}

export type WebhookFormField = 'url' | 'object_type' | 'actions' | 'filter'

/** A refused create's field errors beside the form's fields (`events.0.extra_filter.type` beside the filter). */
export function placeWebhookErrors(error: Error | null): {
  beside: Partial<Record<WebhookFormField, string>>
  general: string | undefined
} {
  if (error === null) return { beside: {}, general: undefined }
  const errors = isApiError(error) ? error.fieldErrors : {}
  const beside: Partial<Record<WebhookFormField, string>> = {}
  const rest: string[] = []
  for (const [key, message] of Object.entries(errors)) {
    const field = fieldOf(key)
    if (field === undefined) rest.push(`${key}: ${message}`)
    else beside[field] ??= message
  }
  if (rest.length > 0) return { beside, general: rest.join(' ') }
  return { beside, general: Object.keys(beside).length === 0 ? error.message : undefined }
}

function fieldOf(key: string): WebhookFormField | undefined {
  if (key === 'url') return 'url'
  const [first, , member] = key.split('.')
  if (first !== 'events') return undefined
  if (member === 'extra_filter') return 'filter'
  if (member === 'object_type') return 'object_type'
  if (member === 'action' || member === undefined) return 'actions'
  return undefined
}
