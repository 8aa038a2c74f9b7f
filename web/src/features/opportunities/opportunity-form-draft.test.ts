import { describe, expect, it } from 'vitest'
import type { Opportunity } from '@leadline/shared/opportunity-schema'
import { bodyOf, draftOf, type DraftDefaults, type OpportunityDraft } from './opportunity-form-draft'

const defaults: DraftDefaults = {
  leadId: 'lead_1',
  pipeline: { id: 'pipe_1', statuses: [{ id: 'stat_first' }, { id: 'stat_second' }] },
  currency: 'EUR',
  userId: 'user_me',
}

const stored = {
  id: 'oppo_1',
  lead_id: 'lead_1',
  pipeline_id: 'pipe_1',
  status_id: 'stat_second',
  value: 150_050,
  value_period: 'monthly',
  value_currency: 'USD',
  confidence: 40,
  date_won: '2024-03-31',
  note: 'Renewal',
  user_id: 'user_other',
  contact_id: null,
} as Opportunity

describe('draftOf', () => {
  it('starts a new opportunity in the pipeline’s first status, owned by me, in the organization’s currency', () => {
    expect(draftOf(undefined, defaults)).toEqual({
      lead_id: 'lead_1',
      pipeline_id: 'pipe_1',
      status_id: 'stat_first',
      value: '',
      value_period: 'one_time',
      value_currency: 'EUR',
      confidence: '0',
      date_won: '',
      note: '',
      user_id: 'user_me',
      contact_id: '',
    })
  })

  it('shows a stored value in major units', () => {
    expect(draftOf(stored, defaults)).toMatchObject({ value: '1500.50', confidence: '40', contact_id: '' })
  })
})

describe('bodyOf', () => {
  it('sends every field of a new opportunity, in cents', () => {
    const draft: OpportunityDraft = { ...draftOf(undefined, defaults), value: '2,000.5', confidence: '75' }
    expect(bodyOf(draft, undefined)).toEqual({
      ok: true,
      body: {
        lead_id: 'lead_1',
        status_id: 'stat_first',
        value: 200_050,
        value_period: 'one_time',
        value_currency: 'EUR',
        confidence: 75,
        date_won: null,
        note: '',
        contact_id: null,
        user_id: 'user_me',
      },
    })
  })

  it('sends only what an edit changed', () => {
    const initial = draftOf(stored, defaults)
    expect(bodyOf(initial, initial)).toEqual({ ok: true, body: {} })
    const draft = { ...initial, value: '1,600', confidence: '55', user_id: 'user_me', date_won: '' }
    expect(bodyOf(draft, initial)).toEqual({
      ok: true,
      body: { value: 160_000, confidence: 55, user_id: 'user_me', date_won: null },
    })
  })

  it('sends the value again when the currency changes its meaning', () => {
    const initial = draftOf(stored, defaults)
    expect(bodyOf({ ...initial, value_currency: 'JPY', value: '1500' }, initial)).toEqual({
      ok: true,
      body: { value: 1500, value_currency: 'JPY' },
    })
  })

  it('never sends an empty owner', () => {
    const initial = { ...draftOf(stored, defaults), user_id: '' }
    expect(bodyOf({ ...initial, note: 'x' }, initial)).toEqual({ ok: true, body: { note: 'x' } })
  })

  it('names each wrong field as the API does', () => {
    const draft: OpportunityDraft = {
      ...draftOf(undefined, { ...defaults, leadId: '', pipeline: undefined }),
      value: '12.345',
      confidence: '150',
      date_won: '2024-02-30',
    }
    expect(bodyOf(draft, undefined)).toEqual({
      ok: false,
      errors: {
        lead: 'Choose a lead.',
        status_id: 'Choose a status.',
        value: 'Enter at most 2 decimals.',
        confidence: 'Enter a whole number from 0 to 100.',
        date_won: 'Enter a date as YYYY-MM-DD.',
      },
    })
  })

  it.each(['-1', '1.5', '', 'ten', '1000'])('refuses a confidence of %j', (confidence) => {
    const result = bodyOf({ ...draftOf(undefined, defaults), confidence }, undefined)
    expect(result).toEqual({ ok: false, errors: { confidence: 'Enter a whole number from 0 to 100.' } })
  })
})
