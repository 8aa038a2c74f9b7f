// @vitest-environment jsdom
import { screen, waitFor } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { describe, expect, it } from 'vitest'
import { adminSession, axeViolations, descriptionOf, fakeServer, renderScreen } from '../../lib/screen-fixture'
import { queryClient } from '../../query-client'
import { AcceptInvitationPage } from './accept-invitation-page'
import { authQueries } from './auth-queries'

const TOKEN = 'tok_0123456789abcdefghijklmnopqrstuvwxyzABCD'
const INVALID = 'This invitation link is not valid any more. Ask your admin for a new one.'
const newMember = { ...adminSession, role: 'user' as const }

function invitationServer(existing_user: boolean, single_sign_on = false) {
  return fakeServer({
    'POST /auth/invitation/lookup': (body) =>
      (body as { token: string }).token === TOKEN
        ? { body: { email: 'pat@example.com', organization_name: 'Acme Sales', existing_user, single_sign_on } }
        : { status: 400, body: { error: INVALID } },
    'POST /auth/invitation/accept': { body: newMember },
  })
}

const renderPage = (token: string | undefined) =>
  renderScreen(() => <AcceptInvitationPage token={token} />, { ownMain: true })

describe('Accept invitation', () => {
  it('a new user gives their names and a password, and lands signed in on the app’s home', async () => {
    const server = invitationServer(false)
    const { router } = renderPage(TOKEN)
    expect(await screen.findByRole('heading', { name: 'Join Acme Sales' })).toBeTruthy()
    expect(screen.getByText('pat@example.com')).toBeTruthy()
    expect(server.bodiesOf('POST /auth/invitation/lookup')).toEqual([{ token: TOKEN }])
    expect(await axeViolations()).toEqual([])
    const user = userEvent.setup()
    await user.type(screen.getByRole('textbox', { name: 'First name' }), 'Pat')
    await user.type(screen.getByRole('textbox', { name: 'Last name' }), 'Lee')
    await user.type(screen.getByLabelText('Password'), 'correct horse battery staple')
    await user.click(screen.getByRole('button', { name: 'Create account' }))
    await waitFor(() => {
      expect(router.state.location.pathname).toBe('/')
    })
    expect(server.bodiesOf('POST /auth/invitation/accept')).toEqual([
      { token: TOKEN, first_name: 'Pat', last_name: 'Lee', password: 'correct horse battery staple' },
    ])
    expect(queryClient.getQueryData(authQueries.session().queryKey)).toEqual(newMember)
  })

  it('offers single sign-on where the organization has it, starting with the link’s token', async () => {
    invitationServer(false, true)
    renderPage(TOKEN)
    const link = await screen.findByRole('link', { name: 'Sign in with single sign-on' })
    const href = new URL(link.getAttribute('href') ?? '', 'http://app.test')
    expect(href.pathname).toBe('/auth/sso/start')
    expect(href.searchParams.get('invitation')).toBe(TOKEN)
    expect(href.searchParams.get('time_zone')).toBeTruthy()
    expect(await axeViolations()).toEqual([])
  })

  it('does not offer single sign-on where the organization has none', async () => {
    invitationServer(false)
    renderPage(TOKEN)
    expect(await screen.findByRole('heading', { name: 'Join Acme Sales' })).toBeTruthy()
    expect(screen.queryByRole('link', { name: 'Sign in with single sign-on' })).toBeNull()
  })

  it('shows the API’s field errors on the fields', async () => {
    const server = invitationServer(false)
    server.answers['POST /auth/invitation/accept'] = {
      status: 400,
      body: { errors: [], 'field-errors': { password: 'This password is too easy to guess.' } },
    }
    const { router } = renderPage(TOKEN)
    const user = userEvent.setup()
    await user.type(await screen.findByRole('textbox', { name: 'First name' }), 'Pat')
    await user.type(screen.getByRole('textbox', { name: 'Last name' }), 'Lee')
    const password = screen.getByLabelText('Password')
    await user.type(password, 'password')
    await user.click(screen.getByRole('button', { name: 'Create account' }))
    expect(await screen.findByText('This password is too easy to guess.')).toBeTruthy()
    expect(descriptionOf(password)).toContain('This password is too easy to guess.')
    expect(router.state.location.pathname).toBe('/screen')
  })

  it('someone with an account joins with its current password, without name fields', async () => {
    const server = invitationServer(true)
    const { router } = renderPage(TOKEN)
    expect(await screen.findByRole('heading', { name: 'Join Acme Sales' })).toBeTruthy()
    expect(screen.queryByRole('textbox', { name: 'First name' })).toBeNull()
    expect(screen.queryByRole('textbox', { name: 'Last name' })).toBeNull()
    expect(screen.queryByRole('button', { name: 'Create account' })).toBeNull()
    const password = screen.getByLabelText('Password')
    expect(descriptionOf(password)).toContain('current password')
    expect(password.getAttribute('autocomplete')).toBe('current-password')
    expect(await axeViolations()).toEqual([])
    const user = userEvent.setup()
    await user.type(password, 'my old password')
    await user.click(screen.getByRole('button', { name: 'Join organization' }))
    await waitFor(() => {
      expect(router.state.location.pathname).toBe('/')
    })
    expect(server.bodiesOf('POST /auth/invitation/accept')).toEqual([
      { token: TOKEN, first_name: '', last_name: '', password: 'my old password' },
    ])
  })

  it('a used, expired or revoked link shows the API’s message and the way to sign in', async () => {
    invitationServer(false)
    renderPage('tok_used')
    expect(await screen.findByText(INVALID)).toBeTruthy()
    expect(screen.getByRole('link', { name: 'Go to sign in' }).getAttribute('href')).toBe('/sign-in')
    expect(screen.queryByLabelText('Password')).toBeNull()
    expect(await axeViolations()).toEqual([])
  })

  it('a link without a token is invalid without asking the server', async () => {
    const server = invitationServer(false)
    renderPage(undefined)
    expect(await screen.findByText(INVALID)).toBeTruthy()
    expect(screen.getByRole('link', { name: 'Go to sign in' })).toBeTruthy()
    expect(server.sent.filter((r) => r.path.startsWith('/auth/invitation'))).toEqual([])
  })
})
