// @vitest-environment jsdom
import { screen } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { describe, expect, it } from 'vitest'
import { fakeServer, renderScreen } from '../../lib/screen-fixture'
import { SignInPage } from './sign-in-page'

describe('Sign-in page', () => {
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
