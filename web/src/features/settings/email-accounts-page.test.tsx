// @vitest-environment jsdom
import { screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { describe, expect, it } from 'vitest'
import type { EmailAccountView } from '@leadline/shared/email-account-schema'
import { adminSession, axeViolations, descriptionOf, fakeServer, renderScreen } from '../../lib/screen-fixture'
import type { Member } from './users-queries'
import { EmailAccountsPage } from './email-accounts-page'

const rileysAccount: EmailAccountView = {
  id: 'emailacct_riley',
  organization_id: 'orga_1',
  user_id: 'user_riley',
  email: 'riley@acme.example',
  identities: [
    { name: 'Riley Rep', email: 'riley@acme.example', verified: true },
    { name: 'Acme Sales', email: 'sales@acme.example', verified: false },
  ],
  default_identity: { name: 'Riley Rep', email: 'riley@acme.example', verified: true },
  smtp: { host: 'smtp.acme.example', port: 587, username: 'riley', use_ssl: false, has_password: true },
  last_error: { message: '535 Authentication failed', date: '2026-11-20T09:00:00.000000+00:00' },
  created_by: 'user_ann',
  updated_by: 'user_ann',
  date_created: '2026-10-01T09:00:00.000000+00:00',
  date_updated: '2026-10-01T09:00:00.000000+00:00',
}

const member = (id: string, first: string, last: string, role: 'admin' | 'user'): Member => ({
  id: `memb_${id}`,
  user_id: `user_${id}`,
  role_id: role,
  status: 'active',
  email: `${id}@acme.example`,
  first_name: first,
  last_name: last,
  date_created: '2026-10-01T09:00:00.000000+00:00',
  date_deactivated: null,
  last_used: null,
  two_factor_enabled: false,
})

const list = (data: unknown[]) => ({ body: { has_more: false, data } })

function accountsServer() {
  return fakeServer({
    'GET /auth/session': { body: adminSession },
    'GET /api/v1/email_account/': list([rileysAccount]),
    'GET /api/v1/membership/': list([member('ann', 'Ann', 'Admin', 'admin'), member('riley', 'Riley', 'Rep', 'user')]),
  })
}

async function rileysCard() {
  return screen.findByRole('article', { name: 'riley@acme.example' })
}

describe('Settings → Email accounts', () => {
  it('shows every member’s accounts: owner, server, addresses and their state, the last sending error', async () => {
    accountsServer()
    renderScreen(EmailAccountsPage)
    expect(await screen.findByRole('heading', { level: 1, name: 'Email accounts' })).toBeTruthy()
    const card = await rileysCard()
    await waitFor(() => {
      expect(card.textContent).toContain('Owner: Riley Rep')
    })
    expect(card.textContent).toContain('SMTP smtp.acme.example:587')
    expect(card.textContent).toContain('Last sending error')
    expect(card.textContent).toContain('535 Authentication failed')
    const addresses = within(card).getByRole('list', { name: 'Addresses of riley@acme.example' })
    expect(
      within(addresses)
        .getAllByRole('listitem')
        .map((item) => item.textContent),
    ).toEqual([expect.stringContaining('Verified'), expect.stringContaining('Waiting for its link to be followed')])
    expect(await axeViolations()).toEqual([])
  })

  it('sends a test email and shows the server’s answer, or its refusal as an alert', async () => {
    const server = accountsServer()
    server.answers['POST /api/v1/email_account/emailacct_riley/send_test/'] = {
      body: { ok: true, response: '250 2.0.0 Ok: queued as 1234' },
    }
    renderScreen(EmailAccountsPage)
    const user = userEvent.setup()
    const card = await rileysCard()
    await user.click(within(card).getByRole('button', { name: 'Send test email through riley@acme.example' }))
    expect((await within(card).findByRole('status')).textContent).toContain('250 2.0.0 Ok: queued as 1234')
    expect(server.bodiesOf('POST /api/v1/email_account/emailacct_riley/send_test/')).toEqual([{}])

    server.answers['POST /api/v1/email_account/emailacct_riley/send_test/'] = {
      body: { ok: false, error: '550 Relaying denied' },
    }
    await user.click(within(card).getByRole('button', { name: 'Send test email through riley@acme.example' }))
    expect((await within(card).findByRole('alert')).textContent).toContain('550 Relaying denied')
    expect(within(card).queryByRole('status')).toBeNull()
    expect(await axeViolations()).toEqual([])
  })

  it('resends the link of an address not verified yet', async () => {
    const server = accountsServer()
    server.answers['POST /api/v1/email_account/emailacct_riley/send_verification/'] = { body: rileysAccount }
    renderScreen(EmailAccountsPage)
    const user = userEvent.setup()
    const card = await rileysCard()
    await user.click(within(card).getByRole('button', { name: 'Resend verification to sales@acme.example' }))
    await waitFor(() => {
      expect(server.bodiesOf('POST /api/v1/email_account/emailacct_riley/send_verification/')).toEqual([
        { email: 'sales@acme.example' },
      ])
    })
  })

  it('adds an account for the member picked, and shows the API’s field errors beside the fields', async () => {
    const server = accountsServer()
    let refused = false
    server.answers['POST /api/v1/email_account/'] = () => {
      if (!refused) {
        refused = true
        return { status: 400, body: { errors: [], 'field-errors': { 'smtp.host': 'Enter a host name.' } } }
      }
      return { body: { ...rileysAccount, id: 'emailacct_new' } }
    }
    renderScreen(EmailAccountsPage)
    const user = userEvent.setup()
    await rileysCard()
    await user.click(screen.getByRole('button', { name: 'Add email account' }))
    const dialog = await screen.findByRole('dialog', { name: 'Add email account' })
    await user.selectOptions(within(dialog).getByRole('combobox', { name: 'Owner' }), 'Riley Rep')
    await user.type(within(dialog).getByRole('textbox', { name: 'Email address' }), 'deals@acme.example')
    await user.type(within(dialog).getByRole('textbox', { name: 'SMTP host' }), 'bad host')
    await user.clear(within(dialog).getByRole('textbox', { name: 'Port' }))
    await user.type(within(dialog).getByRole('textbox', { name: 'Port' }), '587')
    await user.type(within(dialog).getByRole('textbox', { name: 'User name' }), 'deals')
    await user.type(within(dialog).getByLabelText('Password'), 's3cret')
    await user.click(within(dialog).getByRole('checkbox', { name: /TLS from the start/ }))
    await user.click(within(dialog).getByRole('button', { name: 'Add address' }))
    await user.type(within(dialog).getByRole('textbox', { name: 'Name 1' }), 'Deals')
    await user.type(within(dialog).getByRole('textbox', { name: 'Address 1' }), 'team@acme.example')
    await user.click(within(dialog).getByRole('button', { name: 'Add account' }))
    const host = within(dialog).getByRole('textbox', { name: 'SMTP host' })
    await waitFor(() => {
      expect(descriptionOf(host)).toContain('Enter a host name.')
    })
    expect(await axeViolations()).toEqual([])
    await user.clear(host)
    await user.type(host, 'smtp.acme.example')
    await user.click(within(dialog).getByRole('button', { name: 'Add account' }))
    await waitFor(() => {
      expect(screen.queryByRole('dialog')).toBeNull()
    })
    expect(server.bodiesOf('POST /api/v1/email_account/').at(-1)).toEqual({
      user_id: 'user_riley',
      email: 'deals@acme.example',
      identities: [
        { name: '', email: 'deals@acme.example' },
        { name: 'Deals', email: 'team@acme.example' },
      ],
      smtp: { host: 'smtp.acme.example', port: 587, username: 'deals', password: 's3cret', use_ssl: false },
    })
  })

  it('deletes an account only after the confirmation', async () => {
    const server = accountsServer()
    server.answers['DELETE /api/v1/email_account/emailacct_riley/'] = () => {
      server.answers['GET /api/v1/email_account/'] = list([])
      return { body: {} }
    }
    renderScreen(EmailAccountsPage)
    const user = userEvent.setup()
    const card = await rileysCard()
    await user.click(within(card).getByRole('button', { name: 'Delete' }))
    const dialog = await screen.findByRole('dialog', { name: 'Delete the email account riley@acme.example?' })
    expect(server.bodiesOf('DELETE /api/v1/email_account/emailacct_riley/')).toHaveLength(0)
    await user.click(within(dialog).getByRole('button', { name: 'Delete' }))
    expect(await screen.findByText('No one has an email account yet.')).toBeTruthy()
    expect(server.bodiesOf('DELETE /api/v1/email_account/emailacct_riley/')).toHaveLength(1)
  })

  it('tells a non-admin that settings are for admins', async () => {
    const server = accountsServer()
    server.answers['GET /auth/session'] = { body: { ...adminSession, role: 'user' } }
    renderScreen(EmailAccountsPage)
    expect(await screen.findByRole('heading', { name: 'Only admins can change settings' })).toBeTruthy()
    expect(server.sent.map((r) => r.path)).not.toContain('/api/v1/email_account/')
  })
})
