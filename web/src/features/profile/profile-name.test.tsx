// @vitest-environment jsdom
import { screen, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { describe, expect, it } from 'vitest'
import { adminSession, axeViolations, descriptionOf, fakeServer, renderScreen } from '../../lib/screen-fixture'
import { ProfilePage } from './profile-page'

/** The profile's reads, with the session as the BFF keeps it: renamed once `PUT /auth/session` read it again. */
function fakeProfile() {
  let session = adminSession
  return fakeServer({
    'GET /auth/session': () => ({ body: session }),
    'PUT /auth/session': () => {
      session = { ...adminSession, user: { ...adminSession.user, first_name: 'Annie', display_name: 'Annie Admin' } }
      return { body: session }
    },
    'GET /api/v1/email_account/': { body: { has_more: false, data: [] } },
    'GET /api/v1/auth/two_factor/': {
      body: { enabled: false, recovery_codes_left: 0, required: false, has_password: true },
    },
    'GET /api/v1/auth/session/': { body: { has_more: false, data: [] } },
    'GET /api/v1/api_key/': { body: { has_more: false, data: [] } },
    'PUT /api/v1/auth/profile/': (body) =>
      (body as { first_name: string }).first_name.length > 100
        ? { status: 400, body: { errors: [], 'field-errors': { first_name: 'Use at most 100 characters.' } } }
        : { body: { first_name: 'Annie', last_name: 'Admin', email: 'ann@example.com', display_name: 'Annie Admin' } },
  })
}

describe('the profile’s name', () => {
  it('saves a new first name, then shows it as the session’s', async () => {
    const server = fakeProfile()
    const user = userEvent.setup()
    renderScreen(() => <ProfilePage />)
    const region = within(await screen.findByRole('region', { name: 'Your name' }))
    const first = region.getByRole('textbox', { name: 'First name' })
    expect((first as HTMLInputElement).value).toBe('Ann')
    await user.clear(first)
    await user.type(first, 'Annie')
    await user.click(region.getByRole('button', { name: 'Save name' }))
    expect(await screen.findByText('Name saved')).toBeTruthy()
    expect(server.bodiesOf('PUT /api/v1/auth/profile/')).toEqual([{ first_name: 'Annie', last_name: 'Admin' }])
    expect(server.bodiesOf('PUT /auth/session')).toHaveLength(1)
    expect(await screen.findByText(/Annie Admin ·/)).toBeTruthy()
    expect(await axeViolations()).toEqual([])
  })

  it('shows a refusal beside the field', async () => {
    fakeProfile()
    const user = userEvent.setup()
    renderScreen(() => <ProfilePage />)
    const region = within(await screen.findByRole('region', { name: 'Your name' }))
    const first = region.getByRole('textbox', { name: 'First name' })
    await user.clear(first)
    await user.type(first, 'a'.repeat(101))
    await user.click(region.getByRole('button', { name: 'Save name' }))
    await expect.poll(() => descriptionOf(first)).toContain('Use at most 100 characters.')
    expect(first.getAttribute('aria-invalid')).toBe('true')
  })
})
