import { describe, expect, it } from 'vitest'
import type { Contact } from '@leadline/shared/contact-schema'
import type { CustomField } from '@leadline/shared/custom-field-schema'
import { bodyOf, draftOf } from './contact-draft'

const role: CustomField = {
  id: 'cf_role',
  name: 'Decision role',
  description: null,
  type: 'choices',
  choices: ['Champion', 'Economic buyer'],
  accepts_multiple_values: false,
  position: 0,
  organization_id: 'orga_1',
  created_by: null,
  updated_by: null,
  date_created: '2026-01-01T00:00:00.000000+00:00',
  date_updated: '2026-01-01T00:00:00.000000+00:00',
}
const years: CustomField = { ...role, id: 'cf_years', name: 'Years', type: 'number', choices: null }

const contact: Contact = {
  id: 'cont_1',
  organization_id: 'orga_1',
  lead_id: 'lead_1',
  name: 'Tina Typed',
  display_name: 'Tina Typed',
  title: null,
  emails: [{ type: 'office', email: 'tina@typed.example.com', email_lower: 'tina@typed.example.com' }],
  phones: [{ type: 'mobile', phone: '+14155550123', phone_formatted: '+1 415-555-0123', country: 'US' }],
  urls: [],
  custom: { 'Decision role': 'Champion' },
  'custom.cf_role': 'Champion',
  created_by: null,
  updated_by: null,
  date_created: '2026-01-01T00:00:00.000000+00:00',
  date_updated: '2026-01-01T00:00:00.000000+00:00',
}

describe('the contact draft', () => {
  it('starts from the contact, custom values included', () => {
    const draft = draftOf(contact, [role, years])
    expect(draft).toMatchObject({
      name: 'Tina Typed',
      title: '',
      phones: [{ type: 'mobile', value: '+14155550123' }],
      custom: { cf_role: 'Champion', cf_years: '' },
    })
  })

  it('sends trimmed fields, drops blank entries, and keeps types only where chosen', () => {
    const initial = draftOf(undefined, [])
    const draft = {
      ...initial,
      name: '  Kim Keys ',
      title: '  ',
      emails: [
        { key: 'e1', type: undefined, value: ' kim@keys.example.com ' },
        { key: 'e2', type: 'home' as const, value: '  ' },
      ],
      phones: [{ key: 'p1', type: 'office' as const, value: '415 555 0100' }],
    }
    expect(bodyOf(draft, initial, [])).toEqual({
      name: 'Kim Keys',
      title: null,
      emails: [{ email: 'kim@keys.example.com' }],
      phones: [{ type: 'office', phone: '415 555 0100' }],
      urls: [],
    })
  })

  it('sends only the custom fields that changed, and null for a cleared one', () => {
    const initial = draftOf(contact, [role, years])
    const unchanged = bodyOf(initial, initial, [role, years])
    expect(Object.keys(unchanged).filter((k) => k.startsWith('custom.'))).toEqual([])

    const edited = { ...initial, custom: { cf_role: '', cf_years: '4' } }
    const body = bodyOf(edited, initial, [role, years])
    expect(body['custom.cf_role']).toBeNull()
    expect(body['custom.cf_years']).toBe(4)
  })
})
