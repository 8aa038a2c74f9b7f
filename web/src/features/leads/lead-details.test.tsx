// @vitest-environment jsdom
import { screen, within } from '@testing-library/react'
import { describe, expect, it } from 'vitest'
import type { Lead } from '@leadline/shared/lead-schema'
import { leadFixture } from '../../lib/lead-fixture'
import { renderScreen } from '../../lib/screen-fixture'
import { LeadDetails } from './lead-details'

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
    expect(await shownValues(leadFixture({ name: '', url: null, description: '' }))).toEqual(['—', '—', '—'])
  })

  it('show a field that has text as it is stored', async () => {
    const lead = leadFixture({ name: 'Acme', url: 'https://acme.test', description: 'Rockets\nand more' })
    expect(await shownValues(lead)).toEqual(['Acme', 'https://acme.test', 'Rockets\nand more'])
  })
})
