// @vitest-environment jsdom
import { cleanup, screen } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { describe, expect, it } from 'vitest'
import { axeViolations, fakeServer, renderScreen } from '../../lib/screen-fixture'
import { ForgotPasswordPage } from './forgot-password-page'

const SENT = 'If an account uses that address, we sent it a link to reset its password. The link works for 1 hour.'

async function askFor(email: string) {
  const user = userEvent.setup()
  await user.type(await screen.findByRole('textbox', { name: 'Email' }), email)
  await user.click(screen.getByRole('button', { name: 'Send reset link' }))
}

describe('Forgot password', () => {
  it('says the same thing whatever the address, and offers the way back to sign in', async () => {
    for (const email of ['known@example.com', 'nobody@example.com']) {
      const server = fakeServer({ 'POST /auth/password-reset': { body: {} } })
      renderScreen(ForgotPasswordPage, { ownMain: true })
      expect(await screen.findByRole('heading', { name: 'Reset your password' })).toBeTruthy()
      expect(await axeViolations()).toEqual([])
      await askFor(email)
      expect(await screen.findByText(SENT)).toBeTruthy()
      expect(screen.queryByRole('textbox', { name: 'Email' })).toBeNull()
      expect(screen.getByRole('link', { name: 'Back to sign in' }).getAttribute('href')).toBe('/sign-in')
      expect(server.bodiesOf('POST /auth/password-reset')).toEqual([{ email }])
      expect(await axeViolations()).toEqual([])
      cleanup()
    }
  })

  it('shows a refusal (too many attempts from this address) on the field, and no promise', async () => {
    fakeServer({
      'POST /auth/password-reset': {
        status: 429,
        body: { error: 'Too many attempts. Try again in a few minutes.' },
      },
    })
    renderScreen(ForgotPasswordPage, { ownMain: true })
    await askFor('known@example.com')
    expect(await screen.findByText('Too many attempts. Try again in a few minutes.')).toBeTruthy()
    expect(screen.queryByText(SENT)).toBeNull()
  })
})
