// @vitest-environment jsdom
import { screen, within } from '@testing-library/react'
import { describe, expect, it } from 'vitest'
import type { Lead } from '@leadline/shared/lead-schema'
import { renderScreen } from '../../lib/screen-fixture'
import { LeadDetails } from './lead-details'

const STAMP = '2026-11-01T10:00:00.000000+00:00'

function leadWith(fields: Pick<Lead, 'name' | 'url' | 'description'>): Lead {
  return {
    id: 'lead_1',
    organization_id: 'orga_1',
    display_name: 'Acme',
    status_id: 'stat_1',
    status_label: 'Potential',
    html_url: '',
    contacts: [],
    addresses: [],
    opportunities: [],
    tasks: [],
    integration_links: [],
    custom: {},
    created_by: null,
    created_by_name: null,
    updated_by: null,
    updated_by_name: null,
    date_created: STAMP,
    date_updated: STAMP,
    ...fields,
  }
}

/** What the details panel shows for each of its fields, in order. */
async function shownValues(lead: Lead): Promise<string[]> {
  renderScreen(() => <LeadDetails lead={lead} />)
  const panel = within(await screen.findByRole('region', { name: 'Details' }))
  // Each value is the element after its caption.
  return ['Name', 'URL', 'Description'].map(
    (label) => panel.getByText(label, { selector: 'div' }).nextElementSibling?.textContent ?? '(none)',
  )
}

describe('a lead’s details', () => {
  it('show a dash for a field that is blank, as for one that is null (a description Close stores as "")', async () => {
    expect(await shownValues(leadWith({ name: '', url: null, description: '' }))).toEqual(['—', '—', '—'])
  })

  it('show a field that has text as it is stored', async () => {
    const lead = leadWith({ name: 'Acme', url: 'https://acme.test', description: 'Rockets\nand more' })
    expect(await shownValues(lead)).toEqual(['Acme', 'https://acme.test', 'Rockets\nand more'])
  })
})
