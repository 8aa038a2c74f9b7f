// @vitest-environment jsdom
import { screen } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { describe, expect, it } from 'vitest'
import { fakeServer, renderScreen } from '../../lib/screen-fixture'
import { SignInPage } from './sign-in-page'

const PASSWORD = 'quiet lantern orbit 7 maple'
const CODE = '246810'
const NEEDED = 'Enter the code from your authenticator app, or a recovery code.'

const session = (setupRequired: boolean) => ({
  user: { id: 'user_ann', first_name: 'Ann', last_name: 'Veal', email: 'ann@example.com', display_name: 'Ann Veal' },
  organization: { id: 'orga_1', name: 'Bluth Company' },
  role: 'user',
  time_zone: 'UTC',
  two_factor_setup_required: setupRequired,
})

/** The BFF's sign-in as the api answers for Ann, who has two-factor on, and Held, whose organization requires it. */
function signInAnswer(body: unknown) {
  const sent = body as { email: string; password: string; code?: string }
  if (sent.password !== PASSWORD)
    return { status: 401, body: { error: 'That email and password do not match an account.' } }
  if (sent.email === 'held@example.com') return { status: 200, body: session(true) }
  if (sent.code === undefined) return { status: 401, body: { error: NEEDED, two_factor: 'required' } }
  if (sent.code !== CODE) return { status: 401, body: { error: 'That code is not right.', two_factor: 'required' } }
  return { status: 200, body: session(false) }
}

function renderSignIn() {
  const server = fakeServer({ 'POST /auth/session': signInAnswer })
  const { router } = renderScreen(() => <SignInPage redirectTo={undefined} method={undefined} />, { ownMain: true })
  return { sent: server.sent, router }
}

describe('signing in with two-factor', () => {
  it('asks for a code when the api does, keeps email and password, and sends all three', async () => {
    const user = userEvent.setup()
    const { sent, router } = renderSignIn()
    await user.type(await screen.findByRole('textbox', { name: 'Email' }), 'ann@example.com')
    await user.type(screen.getByLabelText('Password'), PASSWORD)
    expect(screen.queryByRole('textbox', { name: 'Code' })).toBeNull()
    await user.click(screen.getByRole('button', { name: 'Sign in' }))

    const code = await screen.findByRole('textbox', { name: 'Code' })
    expect(code.getAttribute('autocomplete')).toBe('one-time-code')
    expect(code.getAttribute('inputmode')).toBe('numeric')
    expect(screen.getByText(NEEDED)).toBeTruthy()
    expect(screen.getByRole<HTMLInputElement>('textbox', { name: 'Email' }).value).toBe('ann@example.com')
    expect(screen.getByLabelText<HTMLInputElement>('Password').value).toBe(PASSWORD)

    await user.type(code, '111111')
    await user.click(screen.getByRole('button', { name: 'Sign in' }))
    expect(await screen.findByText('That code is not right.')).toBeTruthy()
    expect(code.getAttribute('aria-invalid')).toBe('true')

    await user.clear(code)
    await user.type(code, CODE)
    await user.click(screen.getByRole('button', { name: 'Sign in' }))
    await expect.poll(() => router.state.location.pathname).toBe('/leads')
    const signIns = sent.filter((r) => r.path === '/auth/session').map((r) => r.body as Record<string, unknown>)
    expect(signIns.map((b) => b.code)).toEqual([undefined, '111111', CODE])
    expect(signIns[2]).toMatchObject({ email: 'ann@example.com', password: PASSWORD })
  })

  it('sends someone whose organization requires two-factor to Profile to turn it on', async () => {
    const user = userEvent.setup()
    const { router } = renderSignIn()
    await user.type(await screen.findByRole('textbox', { name: 'Email' }), 'held@example.com')
    await user.type(screen.getByLabelText('Password'), PASSWORD)
    await user.click(screen.getByRole('button', { name: 'Sign in' }))
    await expect.poll(() => router.state.location.pathname).toBe('/settings/profile')
  })

  it('shows a wrong password under the password, with no Code field', async () => {
    const user = userEvent.setup()
    renderSignIn()
    await user.type(await screen.findByRole('textbox', { name: 'Email' }), 'ann@example.com')
    await user.type(screen.getByLabelText('Password'), 'not the password')
    await user.click(screen.getByRole('button', { name: 'Sign in' }))
    expect(await screen.findByText('That email and password do not match an account.')).toBeTruthy()
    expect(screen.queryByRole('textbox', { name: 'Code' })).toBeNull()
  })
})

describe('the sign-in page', () => {
  it('offers Forgot password? beside the password form, leading to /forgot-password', async () => {
    fakeServer({})
    const { router } = renderScreen(() => <SignInPage redirectTo={undefined} method={undefined} />, {
      ownMain: true,
    })
    const link = await screen.findByRole('link', { name: 'Forgot password?' })
    expect(link.getAttribute('href')).toBe('/forgot-password')
    await userEvent.setup().click(link)
    expect(router.state.location.pathname).toBe('/forgot-password')
  })
})
