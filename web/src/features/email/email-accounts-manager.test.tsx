// @vitest-environment jsdom
import { screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { describe, expect, it } from 'vitest'
import type { EmailAccountView } from '@leadline/shared/email-account-schema'
import { adminSession, axeViolations, fakeServer, renderScreen } from '../../lib/screen-fixture'
import { EmailAccountsManager } from './email-accounts-manager'

// The Profile's own accounts: the same component as Settings → Email accounts, limited to the person.

const annsAccount: EmailAccountView = {
  id: 'emailacct_ann',
  organization_id: 'orga_1',
  user_id: 'user_ann',
  email: 'ann@acme.example',
  identities: [{ name: 'Ann Admin', email: 'ann@acme.example', verified: true }],
  default_identity: { name: 'Ann Admin', email: 'ann@acme.example', verified: true },
  smtp: { host: 'smtp.acme.example', port: 465, username: null, use_ssl: true, has_password: false },
  last_error: null,
  created_by: 'user_ann',
  updated_by: 'user_ann',
  date_created: '2026-10-01T09:00:00.000000+00:00',
  date_updated: '2026-10-01T09:00:00.000000+00:00',
}

describe('one’s own email accounts', () => {
  it('lists them without owners, and adds one without asking whose it is', async () => {
    const server = fakeServer({
      'GET /auth/session': { body: { ...adminSession, role: 'user' } },
      'GET /api/v1/email_account/': { body: { has_more: false, data: [annsAccount] } },
      'POST /api/v1/email_account/': { body: annsAccount },
    })
    renderScreen(() => (
      <section aria-labelledby="h">
        <h2 id="h">Your email accounts</h2>
        <EmailAccountsManager ownerId="user_ann" level={3} />
      </section>
    ))
    const card = await screen.findByRole('article', { name: 'ann@acme.example' })
    expect(card.textContent).not.toContain('Owner')
    expect(within(card).getByRole('heading', { level: 3, name: 'ann@acme.example' })).toBeTruthy()
    expect(await axeViolations()).toEqual([])
    const user = userEvent.setup()
    await user.click(screen.getByRole('button', { name: 'Add email account' }))
    const dialog = await screen.findByRole('dialog', { name: 'Add email account' })
    expect(within(dialog).queryByRole('combobox', { name: 'Owner' })).toBeNull()
    await user.type(within(dialog).getByRole('textbox', { name: 'Email address' }), 'ann2@acme.example')
    await user.type(within(dialog).getByRole('textbox', { name: 'SMTP host' }), 'smtp.acme.example')
    await user.click(within(dialog).getByRole('button', { name: 'Add account' }))
    await waitFor(() => {
      expect(server.bodiesOf('POST /api/v1/email_account/')).toEqual([
        {
          email: 'ann2@acme.example',
          identities: [{ name: '', email: 'ann2@acme.example' }],
          smtp: { host: 'smtp.acme.example', port: 465, username: null, use_ssl: true },
        },
      ])
    })
    expect(server.sent.map((r) => r.path)).not.toContain('/api/v1/membership/')
  })
})
