// @vitest-environment jsdom
import { screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import type { OrganizationEnvironment } from '@leadline/shared/organization-environment-schema'
import type { PhoneNumber } from '@leadline/shared/phone-number-schema'
import { describe, expect, it } from 'vitest'
import { adminSession, axeViolations, descriptionOf, fakeServer, renderScreen } from '../../lib/screen-fixture'
import { PhoneNumbersPage } from './phone-numbers-page'

const salesLine: PhoneNumber = {
  id: 'phon_sales',
  organization_id: 'orga_1',
  number: '+14155550100',
  number_formatted: '+1 415-555-0100',
  label: 'Sales line',
  type: 'internal',
  user_id: null,
  is_group_number: false,
  sms_enabled: true,
  date_created: '2026-11-01T09:00:00.000000+00:00',
  date_updated: '2026-11-01T09:00:00.000000+00:00',
}
const rileysNumber: PhoneNumber = {
  ...salesLine,
  id: 'phon_riley',
  number: '+14155550111',
  number_formatted: '+1 415-555-0111',
  label: null,
  type: 'virtual',
  user_id: 'user_riley',
  sms_enabled: false,
}

const environment: OrganizationEnvironment = {
  sms_gateway: { provider: 'http', url: 'https://sms.example.com' },
  lead_webhook: null,
  task_retention_days: 90,
  event_retention_days: 30,
  system_mail: { configured: false, from: 'Leadline <no-reply@localhost>' },
}

const member = (id: string, name: string) => ({
  id,
  email: `${id}@example.com`,
  first_name: name,
  last_name: null,
  display_name: name,
  image: null,
  last_used_timezone: null,
  organizations: ['orga_1'],
  phone_numbers: [],
  date_created: '2026-01-01T09:00:00.000000+00:00',
  date_updated: '2026-01-01T09:00:00.000000+00:00',
})

const list = <T,>(data: T[]) => ({ body: { has_more: false, data } })
const SECRET = 'whsec_Zmlyc3Qgc2VjcmV0IG9mIHRoZSBvcmdhbml6YXRpb24='
const ROTATED = 'whsec_bmV3IHNlY3JldCBhZnRlciB0aGUgcm90YXRpb24hIQ=='

function phoneServer(numbers: PhoneNumber[] = [salesLine, rileysNumber]) {
  return fakeServer({
    'GET /auth/session': { body: adminSession },
    'GET /api/v1/phone_number/': list(numbers),
    'GET /api/v1/user/': list([member('user_ann', 'Ann Admin'), member('user_riley', 'Riley Rep')]),
    'GET /api/v1/organization/orga_1/environment/': { body: environment },
    'GET /api/v1/inbound/secret/': {
      body: { organization_id: 'orga_1', secret: SECRET, date_created: '2026-11-01T09:00:00.000000+00:00' },
    },
  })
}

const rowOf = async (number: string) => {
  const row = (await screen.findByRole('rowheader', { name: number })).closest('tr')
  if (row === null) throw new Error(`no row for ${number}`)
  return row
}

describe('Settings → Phone numbers', () => {
  it('lists the numbers with label, type and user, and the SMS gateway from the environment, clean under axe', async () => {
    phoneServer()
    renderScreen(PhoneNumbersPage)
    expect(await screen.findByRole('heading', { level: 1, name: 'Phone numbers' })).toBeTruthy()
    const table = screen.getByRole('table', { name: 'Phone numbers' })
    expect(
      within(table)
        .getAllByRole('columnheader')
        .map((h) => h.textContent)
        .slice(0, 4),
    ).toEqual(['Number', 'Label', 'Type', 'User'])
    const sales = within(await rowOf('+1 415-555-0100'))
    expect(sales.getByText('Sales line')).toBeTruthy()
    expect(sales.getByText('Internal: texts and calls')).toBeTruthy()
    expect(sales.getByText('Everyone')).toBeTruthy()
    expect(within(await rowOf('+1 415-555-0111')).getByText('Riley Rep')).toBeTruthy()
    const texts = screen.getByRole('region', { name: 'Texts' })
    expect(within(texts).getByText('Sent to https://sms.example.com')).toBeTruthy()
    // The secret is fetched only when asked for.
    expect(screen.queryByText(SECRET)).toBeNull()
    expect(await axeViolations()).toEqual([])
  })

  it('adds a number, with the API’s field error beside the field', async () => {
    const server = phoneServer([salesLine])
    server.answers['POST /api/v1/phone_number/'] = (body) => {
      const sent = body as { number: string; label: string | null; type: PhoneNumber['type']; user_id: string | null }
      if (sent.number === '12') {
        return { status: 400, body: { errors: [], 'field-errors': { number: 'Enter a valid phone number.' } } }
      }
      const made = {
        ...rileysNumber,
        id: 'phon_new',
        ...sent,
        number: '+14155550122',
        number_formatted: '+1 415-555-0122',
      }
      server.answers['GET /api/v1/phone_number/'] = list([salesLine, made])
      return { body: made }
    }
    renderScreen(PhoneNumbersPage)
    const user = userEvent.setup()
    await user.click(await screen.findByRole('button', { name: 'Add phone number' }))
    const dialog = await screen.findByRole('dialog', { name: 'Add phone number' })
    const number = within(dialog).getByRole('textbox', { name: 'Number' })
    await user.type(number, '12')
    await user.type(within(dialog).getByRole('textbox', { name: 'Label' }), 'Support')
    await user.selectOptions(within(dialog).getByRole('combobox', { name: 'Type' }), 'external')
    await user.selectOptions(within(dialog).getByRole('combobox', { name: 'User' }), 'user_riley')
    await user.click(within(dialog).getByRole('button', { name: 'Add phone number' }))
    await waitFor(() => {
      expect(descriptionOf(number)).toContain('Enter a valid phone number.')
    })
    await user.clear(number)
    await user.type(number, '(415) 555-0122')
    await user.click(within(dialog).getByRole('button', { name: 'Add phone number' }))
    expect(await screen.findByRole('rowheader', { name: '+1 415-555-0122' })).toBeTruthy()
    expect(screen.queryByRole('dialog')).toBeNull()
    expect(server.bodiesOf('POST /api/v1/phone_number/')).toEqual([
      { number: '12', label: 'Support', type: 'external', user_id: 'user_riley' },
      { number: '(415) 555-0122', label: 'Support', type: 'external', user_id: 'user_riley' },
    ])
  })

  it('edits a number’s label, type and user (the number itself cannot change)', async () => {
    const server = phoneServer()
    server.answers['PUT /api/v1/phone_number/phon_sales/'] = (body) => {
      const changed = { ...salesLine, ...(body as object) }
      server.answers['GET /api/v1/phone_number/'] = list([changed, rileysNumber])
      return { body: changed }
    }
    renderScreen(PhoneNumbersPage)
    const user = userEvent.setup()
    await user.click(within(await rowOf('+1 415-555-0100')).getByRole('button', { name: /^Edit\s*\+1 415-555-0100$/ }))
    const dialog = await screen.findByRole('dialog', { name: 'Edit +1 415-555-0100' })
    expect(within(dialog).queryByRole('textbox', { name: 'Number' })).toBeNull()
    const label = within(dialog).getByRole('textbox', { name: 'Label' })
    await user.clear(label)
    await user.selectOptions(within(dialog).getByRole('combobox', { name: 'User' }), 'user_ann')
    await user.click(within(dialog).getByRole('button', { name: 'Save phone number' }))
    await waitFor(() => {
      expect(within(screen.getByRole('table', { name: 'Phone numbers' })).getByText('Ann Admin')).toBeTruthy()
    })
    expect(server.bodiesOf('PUT /api/v1/phone_number/phon_sales/')).toEqual([
      { label: null, type: 'internal', user_id: 'user_ann' },
    ])
  })

  it('deletes a number only after the confirmation', async () => {
    const server = phoneServer()
    server.answers['DELETE /api/v1/phone_number/phon_riley/'] = () => {
      server.answers['GET /api/v1/phone_number/'] = list([salesLine])
      return { body: {} }
    }
    renderScreen(PhoneNumbersPage)
    const user = userEvent.setup()
    await user.click(within(await rowOf('+1 415-555-0111')).getByRole('button', { name: 'Delete' }))
    const dialog = await screen.findByRole('dialog', { name: 'Delete +1 415-555-0111?' })
    expect(server.bodiesOf('DELETE /api/v1/phone_number/phon_riley/')).toHaveLength(0)
    await user.click(within(dialog).getByRole('button', { name: 'Delete' }))
    await waitFor(() => {
      expect(screen.queryByRole('rowheader', { name: '+1 415-555-0111' })).toBeNull()
    })
    expect(server.bodiesOf('DELETE /api/v1/phone_number/phon_riley/')).toHaveLength(1)
  })

  it('shows the inbound secret on request, and rotates it after the confirmation, showing the new one', async () => {
    const server = phoneServer()
    server.answers['POST /api/v1/inbound/secret/rotate/'] = {
      body: { organization_id: 'orga_1', secret: ROTATED, date_created: '2026-11-29T09:00:00.000000+00:00' },
    }
    renderScreen(PhoneNumbersPage)
    const user = userEvent.setup()
    const section = await screen.findByRole('region', { name: 'Inbound secret' })
    await user.click(within(section).getByRole('button', { name: 'Show' }))
    expect((await within(section).findByLabelText('Inbound secret')).textContent).toBe(SECRET)
    await user.click(within(section).getByRole('button', { name: 'Rotate' }))
    const dialog = await screen.findByRole('dialog', { name: 'Rotate the inbound secret?' })
    expect(server.bodiesOf('POST /api/v1/inbound/secret/rotate/')).toHaveLength(0)
    await user.click(within(dialog).getByRole('button', { name: 'Rotate' }))
    await waitFor(() => {
      expect(within(section).getByLabelText('Inbound secret').textContent).toBe(ROTATED)
    })
    expect(server.bodiesOf('POST /api/v1/inbound/secret/rotate/')).toHaveLength(1)
    await user.click(within(section).getByRole('button', { name: 'Hide' }))
    expect(screen.queryByText(ROTATED)).toBeNull()
    expect(await axeViolations()).toEqual([])
  })

  it('tells a non-admin kindly that it is for admins', async () => {
    const server = phoneServer()
    server.answers['GET /auth/session'] = { body: { ...adminSession, role: 'user' } }
    renderScreen(PhoneNumbersPage)
    expect(await screen.findByRole('heading', { name: 'Only admins can change settings' })).toBeTruthy()
    expect(server.bodiesOf('GET /api/v1/inbound/secret/')).toHaveLength(0)
  })
})
