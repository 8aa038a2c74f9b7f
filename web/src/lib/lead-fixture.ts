import type { Lead } from '@leadline/shared/lead-schema'

// A lead as the API answers it, with nothing on it, for the unit tests' fixtures: each test names what it is about.

const STAMP = '2026-11-01T10:00:00.000000+00:00'

export function leadFixture(fields: Partial<Lead> = {}): Lead {
  return {
    id: 'lead_1',
    organization_id: 'orga_1',
    name: 'Acme',
    display_name: 'Acme',
    description: null,
    url: null,
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
