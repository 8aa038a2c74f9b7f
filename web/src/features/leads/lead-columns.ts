import type { CustomField } from '@leadline/shared/custom-field-schema'
import type { Lead } from '@leadline/shared/lead-schema'
import { formatMoney } from '@leadline/shared/money'

// The leads list's columns (issue 33): which there are, what a lead shows in each, and how a header's sort is
// written into the search. No React, so the rules are unit-tested.

export interface LeadColumn {
  id: string
  label: string
  /** The search's `sort:` key a click on the header sorts by (every column has one). */
  sort: string
}

/** Name is always the first column: it is the row's link. */
export const NAME_COLUMN: LeadColumn = { id: 'name', label: 'Name', sort: 'name' }

const FIXED: LeadColumn[] = [
  { id: 'status', label: 'Status', sort: 'status' },
  { id: 'contact', label: 'Primary contact', sort: 'contact_name' },
  { id: 'email', label: 'Primary email', sort: 'email' },
  { id: 'phone', label: 'Primary phone', sort: 'phone' },
  { id: 'url', label: 'Website', sort: 'url' },
  { id: 'description', label: 'Description', sort: 'description' },
  { id: 'opportunity_value', label: 'Open opportunities', sort: 'opportunity_value' },
  { id: 'last_activity', label: 'Last activity', sort: 'last_activity' },
  { id: 'next_task', label: 'Next task', sort: 'next_task' },
  { id: 'date_created', label: 'Created', sort: 'created' },
  { id: 'date_updated', label: 'Updated', sort: 'updated' },
]

/** The columns a list shows when its view has chosen none: as the list always was. */
export const DEFAULT_COLUMN_IDS = ['status', 'contact', 'date_updated']

/** Every column a list can show after Name: the fixed ones, then each lead custom field in the organization's order. */
export function availableColumns(fields: readonly CustomField[]): LeadColumn[] {
  return [...FIXED, ...fields.map((f) => ({ id: `custom.${f.id}`, label: f.name, sort: `custom.${f.id}` }))]
}

/** The chosen columns that exist, in the chosen order; unknown ids (a deleted field) are left out. */
export function chosenColumns(
  ids: readonly string[] | null | undefined,
  available: readonly LeadColumn[],
): LeadColumn[] {
  const byId = new Map(available.map((c) => [c.id, c]))
  const picked = (ids ?? DEFAULT_COLUMN_IDS).flatMap((id) => {
    const column = byId.get(id)
    return column === undefined ? [] : [column]
  })
  return [...new Map(picked.map((c) => [c.id, c])).values()]
}

/** What a lead shows in a column, as text; '' for nothing. */
export function cellText(lead: Lead, column: LeadColumn): string {
  const contact = lead.contacts[0]
  switch (column.id) {
    case 'name':
      return lead.display_name
    case 'status':
      return lead.status_label
    case 'contact':
      return contact?.display_name ?? ''
    case 'email':
      return lead.contacts.flatMap((c) => c.emails)[0]?.email ?? ''
    case 'phone':
      return lead.contacts.flatMap((c) => c.phones)[0]?.phone_formatted ?? ''
    case 'url':
      return lead.url ?? ''
    case 'description':
      return lead.description ?? ''
    case 'opportunity_value':
      return openOpportunityValue(lead)
    case 'last_activity':
      // Not part of the lead: the page reads it through lead-summaries.tsx.
      return ''
    case 'next_task':
      return nextTaskDate(lead) ?? ''
    case 'date_created':
      return lead.date_created
    case 'date_updated':
      return lead.date_updated
    default: {
      const value = (lead as Record<string, unknown>)[column.id]
      return Array.isArray(value) ? value.map(valueText).join(', ') : valueText(value)
    }
  }
}

/** A custom value as text: a string as it is, a number or yes/no as written, nothing as ''. */
function valueText(value: unknown): string {
  if (value === undefined || value === null) return ''
  if (typeof value === 'string') return value
  if (typeof value === 'number' || typeof value === 'boolean') return String(value)
  return JSON.stringify(value)
}

/** The value of the lead's active opportunities, added up per currency (`$1,500`, or `$1,500 + €200`). */
export function openOpportunityValue(lead: Pick<Lead, 'opportunities'>): string {
  const sums = new Map<string, number>()
  for (const o of lead.opportunities) {
    if (o.status_type !== 'active' || o.value === null) continue
    sums.set(o.value_currency, (sums.get(o.value_currency) ?? 0) + o.value)
  }
  return [...sums].map(([currency, cents]) => formatMoney(cents, currency)).join(' + ')
}

/**
 * The date (`YYYY-MM-DD`) or time of the lead's next task: its first open task that has a date. The lead's open
 * tasks come earliest first in the caller's zone (as GET /task/ orders them), a date-only one at the start of its day.
 */
export function nextTaskDate(lead: Pick<Lead, 'tasks'>): string | null {
  for (const task of lead.tasks) {
    if (typeof task !== 'object' || task === null || !('date' in task) || !('is_dateless' in task)) continue
    const isDone = 'is_complete' in task && task.is_complete === true
    if (!isDone && task.is_dateless === false && typeof task.date === 'string') return task.date
  }
  return null
}

/** Other names the search language takes for a header's sort key (lead-search-parse.ts in the API). */
const SORT_ALIASES = new Map([
  ['date_created', 'created'],
  ['date_updated', 'updated'],
  ['company', 'name'],
  ['email_address', 'email'],
  ['status_label', 'status'],
  ['primary_contact', 'contact_name'],
])

/** The direction a search sorts by `key`, when its `sort:` clauses lead with it. */
export function sortOf(query: string, key: string): 'asc' | 'desc' | undefined {
  const first = searchTerms(query).find((t) => t.toLowerCase().startsWith('sort:'))
  if (first === undefined) return undefined
  // The API reads sort keys without regard to case (a custom field's id aside, which is unique either way).
  const value = first.slice('sort:'.length).toLowerCase()
  const name = value.replace(/^-/, '')
  if ((SORT_ALIASES.get(name) ?? name) !== key.toLowerCase()) return undefined
  return value.startsWith('-') ? 'desc' : 'asc'
}

/** The search with its `sort:` clauses replaced by one on `key`. */
export function withSort(query: string, key: string, direction: 'asc' | 'desc'): string {
  const kept = searchTerms(query).filter((t) => !t.toLowerCase().startsWith('sort:'))
  return [...kept, `sort:${direction === 'desc' ? '-' : ''}${key}`].join(' ')
}

/**
 * The search's terms split on spaces outside quotes and parentheses, each as typed; a loop over the characters, so
 * any text is read in one pass. Only terms at the top level are `sort:` clauses the header may replace.
 */
export function searchTerms(query: string): string[] {
  const terms: string[] = []
  let current = ''
  let quoted = false
  let depth = 0
  for (const c of query) {
    if (c === '"') quoted = !quoted
    else if (!quoted && c === '(') depth += 1
    else if (!quoted && c === ')') depth = Math.max(0, depth - 1)
    if (!quoted && depth === 0 && /\s/.test(c)) {
      if (current !== '') terms.push(current)
      current = ''
    } else current += c
  }
  if (current !== '') terms.push(current)
  return terms
}

const STORE_PREFIX = 'leadline:lead-columns:'

/** The columns this browser keeps for a view (or for all leads), if any. */
export function storedColumns(viewId: string | undefined): string[] | undefined {
  try {
    const raw = window.localStorage.getItem(STORE_PREFIX + (viewId ?? 'all'))
    const parsed: unknown = raw === null ? undefined : JSON.parse(raw)
    return Array.isArray(parsed) ? parsed.filter((id): id is string => typeof id === 'string').slice(0, 50) : undefined
  } catch {
    // Storage may be off (a private window): the default columns show.
    return undefined
  }
}

export function storeColumns(viewId: string | undefined, ids: string[]): void {
  try {
    window.localStorage.setItem(STORE_PREFIX + (viewId ?? 'all'), JSON.stringify(ids))
  } catch {
    // Nothing to keep it in: the choice lasts until the page is left.
  }
}
