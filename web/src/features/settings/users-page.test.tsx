// @vitest-environment jsdom
import { screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { describe, expect, it } from 'vitest'
import { adminSession, axeViolations, descriptionOf, fakeServer, renderScreen } from '../../lib/screen-fixture'
import { UsersPage } from './users-page'
import type { Invitation, Member } from './users-queries'

const ann: Member = {
  id: 'memb_ann',
  user_id: 'user_ann',
  role_id: 'admin',
  status: 'active',
  email: 'ann@example.com',
  first_name: 'Ann',
  last_name: 'Admin',
  date_created: '2026-01-05T09:00:00.000000+00:00',
  date_deactivated: null,
  last_used: '2026-11-28T09:00:00.000000+00:00',
  two_factor_enabled: true,
}
const riley: Member = {
  ...ann,
  id: 'memb_riley',
  user_id: 'user_riley',
  role_id: 'user',
  email: 'riley@example.com',
  first_name: 'Riley',
  last_name: 'Rep',
  last_used: null,
  two_factor_enabled: false,
}
const sam: Member = {
  ...riley,
  id: 'memb_sam',
  user_id: 'user_sam',
  status: 'inactive',
  email: 'sam@example.com',
  first_name: 'Sam',
  last_name: 'Gone',
  date_deactivated: '2026-11-01T09:00:00.000000+00:00',
}

const invitation: Invitation = {
  id: 'inv_1',
  email: 'new@example.com',
  role_id: 'user',
  status: 'pending',
  invited_by_name: 'Ann Admin',
  date_created: '2026-11-27T09:00:00.000000+00:00',
  date_expires: '2026-12-04T09:00:00.000000+00:00',
  date_last_sent: '2026-11-27T09:00:00.000000+00:00',
  date_accepted: null,
}

const list = <T,>(data: T[]) => ({ body: { has_more: false, data } })

function usersServer(members: Member[] = [ann, riley, sam], invitations: Invitation[] = [invitation]) {
  return fakeServer({
    'GET /auth/session': { body: adminSession },
    'GET /api/v1/membership/': list(members),
    'GET /api/v1/invitation/': list(invitations),
    'GET /api/v1/auth/policy/': { body: { require_two_factor: false } },
  })
}

const rowOf = async (name: string) => (await screen.findByRole('rowheader', { name: new RegExp(name) })).closest('tr')

describe('Settings → Users', () => {
  it('lists the members with their role, status, last activity and two-factor, under the contract’s headers', async () => {
    usersServer()
    renderScreen(UsersPage)
    expect(await screen.findByRole('heading', { level: 1, name: 'Users' })).toBeTruthy()
    const members = screen.getByRole('table', { name: 'Members' })
    const headers = within(members)
      .getAllByRole('columnheader')
      .map((h) => h.textContent)
    expect(headers.slice(0, 6)).toEqual(['Name', 'Email', 'Role', 'Status', 'Last active', 'Two-factor'])
    const rileyRow = await rowOf('Riley Rep')
    if (rileyRow === null) throw new Error('no row for Riley')
    const cells = within(rileyRow)
    expect(cells.getByText('riley@example.com')).toBeTruthy()
    expect(cells.getByRole<HTMLSelectElement>('combobox', { name: 'Role for Riley Rep' }).value).toBe('user')
    expect(cells.getByText('Active')).toBeTruthy()
    expect(cells.getByText('Never')).toBeTruthy()
    expect(cells.getByText('Off')).toBeTruthy()
    const annRow = await rowOf('Ann Admin')
    if (annRow === null) throw new Error('no row for Ann')
    expect(within(annRow).getByText('On')).toBeTruthy()
    // Last active as a short time (relative within a week), the whole stamp on hover and in `dateTime`.
    const lastActive = annRow.querySelector('time')
    expect(lastActive?.getAttribute('dateTime')).toBe('2026-11-28T09:00:00.000000+00:00')
    expect(lastActive?.getAttribute('title')).toMatch(/2026/)
    // One cannot deactivate oneself: the API refuses, so the screen does not offer it.
    expect(within(annRow).queryByRole('button', { name: 'Deactivate' })).toBeNull()
    const samRow = await rowOf('Sam Gone')
    if (samRow === null) throw new Error('no row for Sam')
    expect(within(samRow).getByText('Deactivated')).toBeTruthy()
    expect(within(samRow).getByRole('button', { name: 'Reactivate' })).toBeTruthy()
    expect(await axeViolations()).toEqual([])
  })

  it('changing a role PUTs it to the membership', async () => {
    const server = usersServer()
    server.answers['PUT /api/v1/membership/memb_riley/'] = (body) => ({ body: { ...riley, ...(body as object) } })
    renderScreen(UsersPage)
    const user = userEvent.setup()
    await user.selectOptions(await screen.findByRole('combobox', { name: 'Role for Riley Rep' }), 'admin')
    await waitFor(() => {
      expect(server.bodiesOf('PUT /api/v1/membership/memb_riley/')).toEqual([{ role_id: 'admin' }])
    })
  })

  it('an admin who makes themselves a user is shown that settings are for admins', async () => {
    const server = usersServer()
    server.answers['PUT /api/v1/membership/memb_ann/'] = () => {
      server.answers['GET /auth/session'] = { body: { ...adminSession, role: 'user' } }
      return { body: { ...ann, role_id: 'user' } }
    }
    renderScreen(UsersPage)
    const user = userEvent.setup()
    await user.selectOptions(await screen.findByRole('combobox', { name: 'Role for Ann Admin' }), 'user')
    expect(await screen.findByRole('heading', { name: 'Only admins can change settings' })).toBeTruthy()
  })

  it('shows the API’s refusal to demote the last admin beside the role', async () => {
    const server = usersServer()
    server.answers['PUT /api/v1/membership/memb_ann/'] = {
      status: 400,
      body: { errors: [], 'field-errors': { role_id: 'The organization needs at least one active admin.' } },
    }
    renderScreen(UsersPage)
    const user = userEvent.setup()
    const role = await screen.findByRole<HTMLSelectElement>('combobox', { name: 'Role for Ann Admin' })
    await user.selectOptions(role, 'user')
    expect(await screen.findByText('The organization needs at least one active admin.')).toBeTruthy()
    expect(role.getAttribute('aria-invalid')).toBe('true')
    expect(descriptionOf(role)).toBe('The organization needs at least one active admin.')
    await waitFor(() => {
      expect(role.value).toBe('admin')
    })
  })

  it('deactivates a member only after the confirmation, and shows a refusal', async () => {
    const server = usersServer()
    server.answers['POST /api/v1/membership/memb_riley/deactivate/'] = {
      status: 400,
      body: { error: 'The organization needs at least one active admin.' },
    }
    renderScreen(UsersPage)
    const user = userEvent.setup()
    const row = await rowOf('Riley Rep')
    if (row === null) throw new Error('no row for Riley')
    await user.click(within(row).getByRole('button', { name: 'Deactivate' }))
    const dialog = await screen.findByRole('dialog', { name: 'Deactivate Riley Rep?' })
    expect(server.bodiesOf('POST /api/v1/membership/memb_riley/deactivate/')).toHaveLength(0)
    await user.click(within(dialog).getByRole('button', { name: 'Deactivate' }))
    await waitFor(() => {
      expect(server.bodiesOf('POST /api/v1/membership/memb_riley/deactivate/')).toHaveLength(1)
    })
    const alert = await screen.findByRole('alert')
    expect(alert.textContent).toContain('The organization needs at least one active admin.')
  })

  it('a confirmed deactivation shows the member deactivated', async () => {
    const server = usersServer()
    server.answers['POST /api/v1/membership/memb_riley/deactivate/'] = () => {
      server.answers['GET /api/v1/membership/'] = list([ann, { ...riley, status: 'inactive' }, sam])
      return { body: { ...riley, status: 'inactive' } }
    }
    renderScreen(UsersPage)
    const user = userEvent.setup()
    const row = await rowOf('Riley Rep')
    if (row === null) throw new Error('no row for Riley')
    await user.click(within(row).getByRole('button', { name: 'Deactivate' }))
    await user.click(
      within(await screen.findByRole('dialog', { name: 'Deactivate Riley Rep?' })).getByRole('button', {
        name: 'Deactivate',
      }),
    )
    await waitFor(() => {
      expect(within(row).getByRole('button', { name: 'Reactivate' })).toBeTruthy()
    })
    expect(within(row).getByText('Deactivated')).toBeTruthy()
    expect(screen.queryByRole('dialog')).toBeNull()
  })

  it('invites someone: a field error lands on Email, then a success closes the dialog, toasts and lists them', async () => {
    const server = usersServer()
    server.answers['POST /api/v1/invitation/'] = (body) => {
      const { email, role_id } = body as { email: string; role_id: 'admin' | 'user' }
      if (email === 'riley@example.com')
        return { status: 400, body: { errors: [], 'field-errors': { email: 'riley@example.com is already a member' } } }
      const made = { ...invitation, id: 'inv_2', email, role_id }
      server.answers['GET /api/v1/invitation/'] = list([made, invitation])
      return { body: made }
    }
    renderScreen(UsersPage)
    const user = userEvent.setup()
    await user.click(await screen.findByRole('button', { name: 'Invite user' }))
    const dialog = await screen.findByRole('dialog', { name: 'Invite user' })
    expect(within(dialog).getByRole('heading', { name: 'Invite user' })).toBeTruthy()
    const email = within(dialog).getByRole('textbox', { name: 'Email' })
    expect(within(dialog).getByRole<HTMLSelectElement>('combobox', { name: 'Role' }).value).toBe('user')
    expect(await axeViolations()).toEqual([])

    await user.type(email, 'riley@example.com')
    await user.click(within(dialog).getByRole('button', { name: 'Send invitation' }))
    expect(await within(dialog).findByText('riley@example.com is already a member')).toBeTruthy()
    expect(email.getAttribute('aria-invalid')).toBe('true')
    expect(descriptionOf(email)).toContain('riley@example.com is already a member')

    await user.clear(email)
    await user.type(email, 'pat@example.com')
    await user.selectOptions(within(dialog).getByRole('combobox', { name: 'Role' }), 'admin')
    await user.click(within(dialog).getByRole('button', { name: 'Send invitation' }))
    expect(await screen.findByText('Invitation sent to pat@example.com')).toBeTruthy()
    await waitFor(() => {
      expect(screen.queryByRole('dialog')).toBeNull()
    })
    expect(server.bodiesOf('POST /api/v1/invitation/').at(-1)).toEqual({ email: 'pat@example.com', role_id: 'admin' })
    const invitations = screen.getByRole('table', { name: 'Pending invitations' })
    expect(await within(invitations).findByRole('rowheader', { name: 'pat@example.com' })).toBeTruthy()
  })

  it('resends an invitation, and revokes one after the confirmation', async () => {
    const server = usersServer()
    server.answers['POST /api/v1/invitation/inv_1/resend/'] = { body: invitation }
    server.answers['DELETE /api/v1/invitation/inv_1/'] = () => {
      server.answers['GET /api/v1/invitation/'] = list([])
      return { body: {} }
    }
    renderScreen(UsersPage)
    const user = userEvent.setup()
    const invitations = await screen.findByRole('table', { name: 'Pending invitations' })
    const row = within(invitations).getByRole('rowheader', { name: 'new@example.com' }).closest('tr')
    if (row === null) throw new Error('no row for the invitation')
    await user.click(within(row).getByRole('button', { name: 'Resend' }))
    expect(await screen.findByText('Invitation sent again to new@example.com')).toBeTruthy()

    await user.click(within(row).getByRole('button', { name: 'Revoke' }))
    const dialog = await screen.findByRole('dialog', { name: 'Revoke the invitation to new@example.com?' })
    await user.click(within(dialog).getByRole('button', { name: 'Revoke' }))
    expect(await screen.findByText('No invitations are waiting for an answer.')).toBeTruthy()
    expect(server.bodiesOf('DELETE /api/v1/invitation/inv_1/')).toHaveLength(1)
  })

  it('the Require two-factor sign-in checkbox reads and sets the organization’s policy', async () => {
    const server = usersServer()
    server.answers['PUT /api/v1/auth/policy/'] = (body) => {
      server.answers['GET /api/v1/auth/policy/'] = { body }
      return { body }
    }
    renderScreen(UsersPage)
    const user = userEvent.setup()
    const box = await screen.findByRole<HTMLInputElement>('checkbox', { name: 'Require two-factor sign-in' })
    expect(box.checked).toBe(false)
    await user.click(box)
    await waitFor(() => {
      expect(server.bodiesOf('PUT /api/v1/auth/policy/')).toEqual([{ require_two_factor: true }])
    })
    await waitFor(() => {
      expect(screen.getByRole<HTMLInputElement>('checkbox', { name: 'Require two-factor sign-in' }).checked).toBe(true)
    })
  })

  it('the members stay of use when the two-factor policy cannot be read', async () => {
    const server = usersServer()
    server.answers['GET /api/v1/auth/policy/'] = { status: 500, body: { error: 'Internal server error' } }
    renderScreen(UsersPage)
    expect(await screen.findByRole('rowheader', { name: /Riley Rep/ })).toBeTruthy()
    const box = screen.getByRole<HTMLInputElement>('checkbox', { name: 'Require two-factor sign-in' })
    expect(box.disabled).toBe(true)
    // A server error is tried again (twice, a second or two apart) before it shows.
    const alert = await within(screen.getByRole('main')).findByRole('alert', {}, { timeout: 10_000 })
    expect(alert.textContent).toBe('Internal server error')
  })

  it('tells a non-admin that settings are for admins, without asking for the members', async () => {
    const server = usersServer()
    server.answers['GET /auth/session'] = { body: { ...adminSession, role: 'user' } }
    renderScreen(UsersPage)
    expect(await screen.findByRole('heading', { name: 'Only admins can change settings' })).toBeTruthy()
    expect(server.sent.map((r) => r.path)).not.toContain('/api/v1/membership/')
  })
})
