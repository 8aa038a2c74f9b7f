// The opportunity form's draft (text as typed) and the body it sends; no React, so the rules are unit-tested.

import type { ValuePeriod } from '@leadline/shared/money'
import type { Opportunity } from '@leadline/shared/opportunity-schema'
import { formatMajor, parseMoney } from './opportunity-form-money'

export interface OpportunityDraft {
  lead_id: string
  pipeline_id: string
  status_id: string
  /** In major units, as typed. */
  value: string
  value_period: ValuePeriod
  value_currency: string
  confidence: string
  /** `YYYY-MM-DD`, or empty for none. */
  date_won: string
  note: string
  /** Empty: no owner (an old opportunity whose owner left); never sent empty. */
  user_id: string
  /** Empty: no contact. */
  contact_id: string
}

/** The body of `POST /opportunity/` or `PUT /opportunity/{id}/`, as the API names its fields. */
export interface OpportunityBody {
  lead_id?: string
  status_id?: string
  value?: number | null
  value_period?: ValuePeriod
  value_currency?: string
  confidence?: number
  date_won?: string | null
  note?: string
  user_id?: string
  contact_id?: string | null
  /** Custom values, `custom.<field id>`: null unsets. */
  [custom: `custom.${string}`]: unknown
}

export interface DraftDefaults {
  leadId: string
  /** The pipeline a new opportunity starts in, with its statuses in order. */
  pipeline: { id: string; statuses: readonly { id: string }[] } | undefined
  currency: string
  userId: string
}

export function draftOf(opportunity: Opportunity | undefined, defaults: DraftDefaults): OpportunityDraft {
  if (opportunity === undefined) {
    return {
      lead_id: defaults.leadId,
      pipeline_id: defaults.pipeline?.id ?? '',
      status_id: defaults.pipeline?.statuses[0]?.id ?? '',
      value: '',
      value_period: 'one_time',
      value_currency: defaults.currency,
      confidence: '0',
      date_won: '',
      note: '',
      user_id: defaults.userId,
      contact_id: '',
    }
  }
  return {
    lead_id: opportunity.lead_id,
    pipeline_id: opportunity.pipeline_id,
    status_id: opportunity.status_id,
    value: formatMajor(opportunity.value, opportunity.value_currency),
    value_period: opportunity.value_period,
    value_currency: opportunity.value_currency,
    confidence: String(opportunity.confidence),
    date_won: opportunity.date_won ?? '',
    note: opportunity.note,
    user_id: opportunity.user_id ?? '',
    contact_id: opportunity.contact_id ?? '',
  }
}

export type BodyResult = { ok: true; body: OpportunityBody } | { ok: false; errors: Record<string, string> }

function isCalendarDate(text: string): boolean {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text)
  if (match === null) return false
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])]
  const at = new Date(Date.UTC(year, month - 1, day))
  return at.getUTCFullYear() === year && at.getUTCMonth() === month - 1 && at.getUTCDate() === day
}

/**
 * Checks a draft and writes its body. A new opportunity (`initial` undefined) sends every field; an edit sends only
 * what changed, so a card moved on the board meanwhile keeps its new column. Errors use the API's field names, so
 * the form shows them where it shows the server's.
 */
export function bodyOf(draft: OpportunityDraft, initial: OpportunityDraft | undefined): BodyResult {
  const errors: Record<string, string> = {}
  if (draft.lead_id === '') errors.lead = 'Choose a lead.'
  if (draft.status_id === '') errors.status_id = 'Choose a status.'
  const money = parseMoney(draft.value, draft.value_currency)
  if (!money.ok) errors.value = money.error
  const confidence = draft.confidence.trim()
  if (!/^\d{1,3}$/.test(confidence) || Number(confidence) > 100)
    errors.confidence = 'Enter a whole number from 0 to 100.'
  const dateWon = draft.date_won.trim()
  if (dateWon !== '' && !isCalendarDate(dateWon)) errors.date_won = 'Enter a date as YYYY-MM-DD.'
  if (!money.ok || Object.keys(errors).length > 0) return { ok: false, errors }

  const full: OpportunityBody = {
    status_id: draft.status_id,
    value: money.cents,
    value_period: draft.value_period,
    value_currency: draft.value_currency,
    confidence: Number(confidence),
    date_won: dateWon === '' ? null : dateWon,
    note: draft.note,
    contact_id: draft.contact_id === '' ? null : draft.contact_id,
  }
  if (draft.user_id !== '') full.user_id = draft.user_id
  if (initial === undefined) return { ok: true, body: { lead_id: draft.lead_id, ...full } }

  const body: OpportunityBody = {}
  const changed = (key: keyof OpportunityDraft) => draft[key].trim() !== initial[key].trim()
  if (changed('status_id')) body.status_id = full.status_id
  // The same digits mean another amount in a currency with other decimals: both are sent.
  if (changed('value') || changed('value_currency')) body.value = full.value
  if (changed('value_period')) body.value_period = full.value_period
  if (changed('value_currency')) body.value_currency = full.value_currency
  if (changed('confidence')) body.confidence = full.confidence
  if (changed('date_won')) body.date_won = full.date_won
  if (draft.note !== initial.note) body.note = full.note
  if (changed('user_id') && full.user_id !== undefined) body.user_id = full.user_id
  if (changed('contact_id')) body.contact_id = full.contact_id
  return { ok: true, body }
}
