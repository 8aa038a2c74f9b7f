// @vitest-environment jsdom
import { screen, within } from '@testing-library/react'
import { describe, expect, it } from 'vitest'
import type { CustomField } from '@leadline/shared/custom-field-schema'
import { leadFixture } from '../../lib/lead-fixture'
import { fakeServer, renderScreen } from '../../lib/screen-fixture'
import { LeadCustomFields } from './lead-details'

const STAMP = '2026-11-01T10:00:00.000000+00:00'

const accountManager: CustomField = {
  id: 'cf_manager',
  name: 'Account manager',
  description: null,
  type: 'user',
  choices: null,
  accepts_multiple_values: true,
  position: 0,
  organization_id: 'orga_1',
  created_by: null,
  updated_by: null,
  date_created: STAMP,
  date_updated: STAMP,
}

const lead = leadFixture({ 'custom.cf_manager': ['user_ann', 'user_gone', 'user_unknown'] })

const member = (id: string, display_name: string) => ({ id, display_name, email: `${id}@example.com` })

describe('a lead’s user fields', () => {
  it('show every member by name, one no longer active looked up by id, and an unknown id as it is', async () => {
    const server = fakeServer({
      'GET /api/v1/custom_field/lead/': { body: { has_more: false, data: [accountManager] } },
      'GET /api/v1/user/': { body: { has_more: false, data: [member('user_ann', 'Ann Admin')] } },
      'GET /api/v1/user/user_gone/': { body: member('user_gone', 'Gil Gone') },
    })
    renderScreen(() => <LeadCustomFields lead={lead} />)
    const panel = within(await screen.findByRole('region', { name: 'Custom fields' }))
    expect(await panel.findByText('Ann Admin, Gil Gone, user_unknown')).toBeTruthy()
    // Only the one missing from the members list is asked for.
    expect(server.sent.filter((r) => r.path.startsWith('/api/v1/user/')).map((r) => r.path)).toEqual([
      '/api/v1/user/',
      '/api/v1/user/user_gone/',
      '/api/v1/user/user_unknown/',
    ])
  })
})
