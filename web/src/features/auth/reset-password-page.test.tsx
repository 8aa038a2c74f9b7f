// @vitest-environment jsdom
import { screen } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { describe, expect, it } from 'vitest'
import { axeViolations, descriptionOf, fakeServer, renderScreen } from '../../lib/screen-fixture'
import { ResetPasswordPage } from './reset-password-page'

const TOKEN = 'reset0123456789abcdefghijklmnopqrstuvwxyzAB'
const INVALID = 'This reset link is not valid any more. Ask for a new one.'

async function setPassword(password: string) {
  const user = userEvent.setup()
  await user.type(await screen.findByLabelText('New password'), password)
  await user.click(screen.getByRole('button', { name: 'Set password' }))
}

const renderPage = (token: string | undefined) =>
  renderScreen(() => <ResetPasswordPage token={token} />, { ownMain: true })

describe('Reset password', () => {
  it('sets the new password and sends the person to sign in with it', async () => {
    const server = fakeServer({ 'POST /auth/password-reset/complete': { body: {} } })
    renderPage(TOKEN)
    expect(await screen.findByRole('heading', { name: 'Choose a new password' })).toBeTruthy()
    expect(await axeViolations()).toEqual([])
    await setPassword('a long new passphrase')
    expect(await screen.findByText('Your password is changed. Sign in with it now.')).toBeTruthy()
    expect(screen.getByRole('link', { name: 'Sign in' }).getAttribute('href')).toBe('/sign-in')
    expect(server.bodiesOf('POST /auth/password-reset/complete')).toEqual([
      { token: TOKEN, password: 'a long new passphrase' },
    ])
  })

  it('a weak password’s error shows on the field, and the form stays', async () => {
    fakeServer({
      'POST /auth/password-reset/complete': {
        status: 400,
        body: { errors: [], 'field-errors': { password: 'This password is too easy to guess.' } },
      },
    })
    renderPage(TOKEN)
    await setPassword('password1')
    expect(await screen.findByText('This password is too easy to guess.')).toBeTruthy()
    expect(descriptionOf(screen.getByLabelText('New password'))).toContain('This password is too easy to guess.')
    expect(screen.queryByRole('link', { name: 'Ask for a new link' })).toBeNull()
  })

  it('a used or expired link shows the API’s message and a link to ask for a new one', async () => {
    fakeServer({ 'POST /auth/password-reset/complete': { status: 400, body: { error: INVALID } } })
    renderPage(TOKEN)
    await setPassword('a long new passphrase')
    expect(await screen.findByText(INVALID)).toBeTruthy()
    expect(screen.getByRole('link', { name: 'Ask for a new link' }).getAttribute('href')).toBe('/forgot-password')
    expect(screen.queryByLabelText('New password')).toBeNull()
    expect(await axeViolations()).toEqual([])
  })

  it('a link without a token is invalid at once', async () => {
    const server = fakeServer({})
    renderPage(undefined)
    expect(await screen.findByText(INVALID)).toBeTruthy()
    expect(screen.getByRole('link', { name: 'Ask for a new link' })).toBeTruthy()
    expect(server.sent).toEqual([])
  })
})
