// @vitest-environment jsdom
import { screen, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { describe, expect, it } from 'vitest'
import { fakeServer, renderScreen } from '../../lib/screen-fixture'
import { TwoFactorSection } from './two-factor-section'

const PASSWORD = 'quiet lantern orbit 7 maple'
const SECRET = 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP'
const CODE = '246810'
const codes = (prefix: string) => Array.from({ length: 10 }, (_, i) => `${prefix}${String(i)}abc-defgh`)

/** The api's two-factor routes for one person, as the BFF passes them through. */
function fakeTwoFactor(start: { enabled: boolean; required: boolean; has_password?: boolean }) {
  const state = { has_password: true, ...start, recovery_codes_left: start.enabled ? 10 : 0 }
  const wrongPassword = {
    status: 400,
    body: { errors: [], 'field-errors': { password: 'That is not your current password.' } },
  }
  const passwordOf = (body: unknown) => (body as { password?: string } | undefined)?.password
  const wrongCode = { status: 400, body: { errors: [], 'field-errors': { code: 'That code is not right.' } } }
  /** What refuses a change: nothing, or the wrong password, or (without a password) the wrong code. */
  const refusal = (body: unknown) => {
    if (state.has_password) return passwordOf(body) === PASSWORD ? undefined : wrongPassword
    return (body as { code?: string }).code === CODE ? undefined : wrongCode
  }
  const base = '/api/v1/auth/two_factor/'
  const server = fakeServer({
    [`GET ${base}`]: () => ({ body: state }),
    [`POST ${base}setup/`]: (body) =>
      passwordOf(body) !== PASSWORD
        ? wrongPassword
        : { body: { secret: SECRET, otpauth_url: `otpauth://totp/Leadline:ann?secret=${SECRET}` } },
    [`POST ${base}enable/`]: (body) => {
      if ((body as { code: string }).code !== CODE)
        return { status: 400, body: { errors: [], 'field-errors': { code: 'That code is not right.' } } }
      Object.assign(state, { enabled: true, recovery_codes_left: 10 })
      return { body: { recovery_codes: codes('a') } }
    },
    [`POST ${base}disable/`]: (body) => {
      const refused = refusal(body)
      if (refused !== undefined) return refused
      Object.assign(state, { enabled: false, recovery_codes_left: 0 })
      return { body: {} }
    },
    [`POST ${base}recovery_codes/`]: (body) => {
      const refused = refusal(body)
      if (refused !== undefined) return refused
      state.recovery_codes_left = 10
      return { body: { recovery_codes: codes('n') } }
    },
  })
  return server.sent
}

function renderSection() {
  renderScreen(() => <TwoFactorSection />)
}

async function section() {
  return within(await screen.findByRole('region', { name: 'Two-factor sign-in' }))
}

describe('the Two-factor sign-in section', () => {
  it('turns it on: password, QR code and secret, a code, then the recovery codes once', async () => {
    const sent = fakeTwoFactor({ enabled: false, required: false })
    const user = userEvent.setup()
    renderSection()
    const region = await section()
    expect(region.getByText(/Two-factor sign-in is off/)).toBeTruthy()
    await user.click(region.getByRole('button', { name: 'Turn on two-factor' }))
    await user.type(region.getByLabelText('Current password'), 'wrong password')
    await user.click(region.getByRole('button', { name: 'Continue' }))
    expect(await region.findByText('That is not your current password.')).toBeTruthy()
    await user.clear(region.getByLabelText('Current password'))
    await user.type(region.getByLabelText('Current password'), PASSWORD)
    await user.click(region.getByRole('button', { name: 'Continue' }))

    const qr = await region.findByRole('img', { name: 'QR code for your authenticator app' })
    expect(qr.querySelector('path')?.getAttribute('d')).toMatch(/^M\d+ \d+h1v1h-1z/)
    expect(region.getByText(SECRET)).toBeTruthy()
    const code = region.getByRole('textbox', { name: 'Code' })
    expect(code.getAttribute('autocomplete')).toBe('one-time-code')
    await user.type(code, '111111')
    await user.click(region.getByRole('button', { name: 'Turn on' }))
    expect(await region.findByText('That code is not right.')).toBeTruthy()
    await user.clear(code)
    await user.type(code, CODE)
    await user.click(region.getByRole('button', { name: 'Turn on' }))

    const list = await region.findByRole('list', { name: 'Recovery codes' })
    expect(
      within(list)
        .getAllByRole('listitem')
        .map((li) => li.textContent),
    ).toEqual(codes('a'))
    expect(region.getByRole('button', { name: 'Copy' })).toBeTruthy()
    expect(await region.findByText(/Two-factor sign-in is on\. 10 recovery code\(s\) left\./)).toBeTruthy()
    expect(region.getByRole('button', { name: 'Turn off' })).toBeTruthy()
    const posted = sent.filter((r) => r.method === 'POST').map((r) => [r.path, r.body])
    expect(posted).toEqual([
      ['/api/v1/auth/two_factor/setup/', { password: 'wrong password' }],
      ['/api/v1/auth/two_factor/setup/', { password: PASSWORD }],
      ['/api/v1/auth/two_factor/enable/', { code: '111111' }],
      ['/api/v1/auth/two_factor/enable/', { code: CODE }],
    ])
  })

  it('turns it off with the current password', async () => {
    const sent = fakeTwoFactor({ enabled: true, required: false })
    const user = userEvent.setup()
    renderSection()
    const region = await section()
    expect(region.getByText(/10 recovery code\(s\) left/)).toBeTruthy()
    await user.click(region.getByRole('button', { name: 'Turn off' }))
    await user.type(region.getByLabelText('Current password'), PASSWORD)
    await user.click(region.getByRole('button', { name: 'Turn off' }))
    expect(await region.findByText(/Two-factor sign-in is off/)).toBeTruthy()
    expect(sent.some((r) => r.path === '/api/v1/auth/two_factor/disable/')).toBe(true)
  })

  it('asks someone without a password (single sign-on only) for a code instead, and shows a wrong one', async () => {
    const sent = fakeTwoFactor({ enabled: true, required: false, has_password: false })
    const user = userEvent.setup()
    renderSection()
    const region = await section()
    await user.click(region.getByRole('button', { name: 'Turn off' }))
    expect(region.queryByLabelText('Current password')).toBeNull()
    const code = region.getByRole('textbox', { name: 'Code' })
    await user.type(code, '000000')
    await user.click(region.getByRole('button', { name: 'Turn off' }))
    expect(await region.findByText('That code is not right.')).toBeTruthy()
    await user.clear(code)
    await user.type(code, CODE)
    await user.click(region.getByRole('button', { name: 'Turn off' }))
    expect(await region.findByText(/Two-factor sign-in is off/)).toBeTruthy()
    expect(sent.filter((r) => r.path === '/api/v1/auth/two_factor/disable/').map((r) => r.body)).toEqual([
      { code: '000000' },
      { code: CODE },
    ])
  })

  it('when the organization requires it: says so, hides Turn off, and makes new recovery codes', async () => {
    fakeTwoFactor({ enabled: true, required: true })
    const user = userEvent.setup()
    renderSection()
    const region = await section()
    expect(region.getByText('Your organization requires two-factor sign-in.')).toBeTruthy()
    expect(region.queryByRole('button', { name: 'Turn off' })).toBeNull()
    await user.click(region.getByRole('button', { name: 'New recovery codes' }))
    await user.type(region.getByLabelText('Current password'), PASSWORD)
    await user.click(region.getByRole('button', { name: 'Make new codes' }))
    const list = await region.findByRole('list', { name: 'Recovery codes' })
    expect(
      within(list)
        .getAllByRole('listitem')
        .map((li) => li.textContent),
    ).toEqual(codes('n'))
  })

  it('asks someone held by the organization’s requirement to turn it on', async () => {
    fakeTwoFactor({ enabled: false, required: true })
    renderSection()
    const region = await section()
    expect(region.getByText(/requires two-factor sign-in: turn it on/)).toBeTruthy()
    expect(region.getByRole('button', { name: 'Turn on two-factor' })).toBeTruthy()
  })
})
