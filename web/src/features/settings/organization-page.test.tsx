// @vitest-environment jsdom
import { screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import type { OrganizationEnvironment } from '@leadline/shared/organization-environment-schema'
import { describe, expect, it } from 'vitest'
import { adminSession, axeViolations, descriptionOf, fakeServer, renderScreen } from '../../lib/screen-fixture'
import { OrganizationPage } from './organization-page'

const organization = {
  id: 'orga_1',
  name: 'Acme Sales',
  currency: 'USD',
  currency_symbol: '$',
  country: 'US',
  lead_statuses: [],
  opportunity_statuses: [],
  memberships: [],
  inactive_memberships: [],
  user_count: 2,
  created_by: null,
  updated_by: null,
  date_created: '2026-01-01T09:00:00.000000+00:00',
  date_updated: '2026-01-01T09:00:00.000000+00:00',
}

const environment: OrganizationEnvironment = {
  sms_gateway: { provider: 'log', url: null },
  lead_webhook: { url: 'https://leads.example.net', source: 'env' },
  task_retention_days: 45,
  event_retention_days: 1,
  system_mail: { configured: true, from: 'Acme CRM <crm@acme.example>' },
}

function organizationServer() {
  return fakeServer({
    'GET /auth/session': { body: adminSession },
    'GET /api/v1/organization/orga_1/': { body: organization },
    'GET /api/v1/organization/orga_1/environment/': { body: environment },
  })
}

/** The read-only facts as term → detail. */
function facts(): Record<string, string> {
  const region = screen.getByRole('region', { name: 'Set by the server' })
  const terms = within(region).getAllByRole('term')
  return Object.fromEntries(terms.map((t) => [t.textContent, t.nextElementSibling?.textContent ?? '']))
}

describe('Settings → Organization', () => {
  it('shows the name and currency to edit, and what the environment sets, read-only, clean under axe', async () => {
    organizationServer()
    renderScreen(OrganizationPage)
    expect(await screen.findByRole('heading', { level: 1, name: 'Organization' })).toBeTruthy()
    expect(screen.getByRole<HTMLInputElement>('textbox', { name: 'Name' }).value).toBe('Acme Sales')
    expect(screen.getByRole<HTMLInputElement>('textbox', { name: 'Currency' }).value).toBe('USD')
    expect(facts()).toEqual({
      'Lead webhook': 'https://leads.example.net (from the environment)',
      'Completed tasks kept': '45 days',
      'Event log kept': '1 day',
      'System mail': 'Sent as Acme CRM <crm@acme.example>',
      'SMS gateway': 'None: texts are written to the server log and not sent',
    })
    expect(await axeViolations()).toEqual([])
  })

  it('saves the name and currency, and shows the API’s field errors beside their fields', async () => {
    const server = organizationServer()
    server.answers['PUT /api/v1/organization/orga_1/'] = (body) => {
      const sent = body as { name: string; currency: string }
      if (sent.currency === 'XYZ' || sent.name === '') {
        return {
          status: 400,
          body: {
            errors: [],
            'field-errors': {
              ...(sent.currency === 'XYZ' ? { currency: 'Not a valid ISO 4217 currency code.' } : {}),
              ...(sent.name === '' ? { name: 'This field may not be blank.' } : {}),
            },
          },
        }
      }
      const saved = { ...organization, ...sent }
      server.answers['GET /api/v1/organization/orga_1/'] = { body: saved }
      return { body: saved }
    }
    renderScreen(OrganizationPage)
    const user = userEvent.setup()
    const name = await screen.findByRole('textbox', { name: 'Name' })
    const currency = screen.getByRole('textbox', { name: 'Currency' })
    await user.clear(name)
    await user.clear(currency)
    await user.type(currency, 'xyz')
    await user.click(screen.getByRole('button', { name: 'Save organization' }))
    await waitFor(() => {
      expect(descriptionOf(currency)).toContain('Not a valid ISO 4217 currency code.')
    })
    expect(descriptionOf(name)).toContain('This field may not be blank.')
    await user.type(name, 'Acme Europe')
    await user.clear(currency)
    await user.type(currency, 'eur')
    const sessionReads = () => server.sent.filter((r) => r.method === 'GET' && r.path === '/auth/session').length
    const readBefore = sessionReads()
    await user.click(screen.getByRole('button', { name: 'Save organization' }))
    expect(await screen.findByText('Organization saved')).toBeTruthy()
    // The header's name comes from the session, read again once the new name is saved.
    await waitFor(() => {
      expect(sessionReads()).toBeGreaterThan(readBefore)
    })
    expect(server.bodiesOf('PUT /api/v1/organization/orga_1/')).toEqual([
      { name: '', currency: 'XYZ' },
      { name: 'Acme Europe', currency: 'EUR' },
    ])
    await waitFor(() => {
      expect(screen.getByRole<HTMLInputElement>('textbox', { name: 'Currency' }).value).toBe('EUR')
    })
  })

  it('tells a non-admin kindly that it is for admins', async () => {
    const server = organizationServer()
    server.answers['GET /auth/session'] = { body: { ...adminSession, role: 'user' } }
    renderScreen(OrganizationPage)
    expect(await screen.findByRole('heading', { name: 'Only admins can change settings' })).toBeTruthy()
    expect(server.bodiesOf('GET /api/v1/organization/orga_1/environment/')).toHaveLength(0)
  })
})
