// @vitest-environment jsdom
import { screen, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { afterEach, describe, expect, it } from 'vitest'
import { adminSession, axeViolations, descriptionOf, fakeServer, renderScreen } from '../../lib/screen-fixture'
import { browserTimeZone, displayTimeZone, setDisplayTimeZone } from '../../lib/format'
import { ProfilePage } from './profile-page'

/** The profile's reads; the session takes the zone the profile keeps once `PUT /auth/session` reads it again. */
function fakeProfile(stored: string | null) {
  let chosen = stored
  return fakeServer({
    'GET /auth/session': () => ({ body: { ...adminSession, time_zone: chosen ?? 'UTC' } }),
    'PUT /auth/session': () => ({ body: { ...adminSession, time_zone: chosen ?? 'UTC' } }),
    'GET /api/v1/email_account/': { body: { has_more: false, data: [] } },
    'GET /api/v1/auth/two_factor/': {
      body: { enabled: false, recovery_codes_left: 0, required: false, has_password: true },
    },
    'GET /api/v1/auth/session/': { body: { has_more: false, data: [] } },
    'GET /api/v1/api_key/': { body: { has_more: false, data: [] } },
    'GET /api/v1/auth/profile/': () => ({ body: { first_name: 'Ann', time_zone: chosen } }),
    'PUT /api/v1/auth/profile/': (body) => {
      const zone = (body as { time_zone: string | null }).time_zone
      if (zone === 'Etc/Unknown')
        return { status: 400, body: { errors: [], 'field-errors': { time_zone: 'Choose a time zone from the list.' } } }
      chosen = zone
      return { body: { first_name: 'Ann', time_zone: zone } }
    },
  })
}

afterEach(() => {
  setDisplayTimeZone(undefined)
})

describe('the profile’s time zone', () => {
  it('starts at the browser’s, saves a chosen zone, and times then show in it', async () => {
    const server = fakeProfile(null)
    const user = userEvent.setup()
    renderScreen(() => <ProfilePage />)
    const region = within(await screen.findByRole('region', { name: 'Time zone' }))
    const select = region.getByRole('combobox', { name: 'Time zone' })
    expect((select as HTMLSelectElement).value).toBe('')
    expect(region.getByRole('option', { name: `Your browser’s (${browserTimeZone()})` })).toBeTruthy()
    expect(await axeViolations()).toEqual([])
    await user.selectOptions(select, 'Asia/Tokyo')
    await user.click(region.getByRole('button', { name: 'Save time zone' }))
    expect(await screen.findByText('Time zone saved')).toBeTruthy()
    expect(server.bodiesOf('PUT /api/v1/auth/profile/')).toEqual([{ time_zone: 'Asia/Tokyo' }])
    expect(server.bodiesOf('PUT /auth/session')).toHaveLength(1)
    await expect.poll(() => displayTimeZone()).toBe('Asia/Tokyo')
  })

  it('goes back to the browser’s zone when that is chosen again', async () => {
    const server = fakeProfile('Europe/Paris')
    const user = userEvent.setup()
    renderScreen(() => <ProfilePage />)
    const region = within(await screen.findByRole('region', { name: 'Time zone' }))
    const select = region.getByRole('combobox', { name: 'Time zone' })
    expect((select as HTMLSelectElement).value).toBe('Europe/Paris')
    await user.selectOptions(select, '')
    await user.click(region.getByRole('button', { name: 'Save time zone' }))
    expect(await screen.findByText('Time zone saved')).toBeTruthy()
    expect(server.bodiesOf('PUT /api/v1/auth/profile/')).toEqual([{ time_zone: null }])
  })

  it('shows a refusal beside the field', async () => {
    fakeProfile(null)
    const user = userEvent.setup()
    renderScreen(() => <ProfilePage />)
    const region = within(await screen.findByRole('region', { name: 'Time zone' }))
    const select = region.getByRole('combobox', { name: 'Time zone' })
    // A zone this browser lists that the server's runtime does not know.
    const option = document.createElement('option')
    option.value = 'Etc/Unknown'
    option.textContent = 'Etc/Unknown'
    select.append(option)
    await user.selectOptions(select, 'Etc/Unknown')
    await user.click(region.getByRole('button', { name: 'Save time zone' }))
    await expect.poll(() => descriptionOf(select)).toContain('Choose a time zone from the list.')
    expect(select.getAttribute('aria-invalid')).toBe('true')
  })
})
