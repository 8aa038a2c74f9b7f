import type { Page } from '@playwright/test'
import { TOTP } from 'otpauth'
import { accountsTest as test, expect, signIn } from '../fixtures.js'
import { expectAccessible } from '../journeys.js'
import { appLink, mailTo } from '../mail-files.js'
import { startJourneyProvider } from '../oidc-provider.js'

// People joining, leaving and recovering their accounts, with the mail the api sends read from the mail catcher's
// `.eml` files.

const ADMIN_EMAIL = 'casey@journey.test'

test('an admin invites someone, who joins from the emailed link and signs in; deactivated, their open tab signs out', async ({
  page,
  browser,
  accountsStack,
}) => {
  const invitee = `nova-${String(Date.now())}@journey.test`
  await signIn(page, accountsStack.apiKey)
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Settings' }).click()
  await page.getByRole('navigation', { name: 'Settings' }).getByRole('link', { name: 'Users' }).click()
  await expect(page.getByRole('heading', { level: 1, name: 'Users' })).toBeVisible()
  await expectAccessible(page)

  await page.getByRole('button', { name: 'Invite user' }).click()
  const dialog = page.getByRole('dialog', { name: 'Invite user' })
  await dialog.getByRole('textbox', { name: 'Email' }).fill('not an address')
  await dialog.getByRole('button', { name: 'Send invitation' }).click()
  await expect(dialog.getByRole('textbox', { name: 'Email' })).toHaveAttribute('aria-invalid', 'true')
  await dialog.getByRole('textbox', { name: 'Email' }).fill(invitee)
  await expectAccessible(page)
  await dialog.getByRole('button', { name: 'Send invitation' }).click()
  await expect(page.getByText(`Invitation sent to ${invitee}`)).toBeVisible()
  const pending = page.getByRole('region', { name: 'Pending invitations' })
  await expect(pending.getByText(invitee)).toBeVisible()

  // The invitee's own browser, with the link from the email.
  const text = await mailTo(accountsStack.mailDir, invitee, /invited/i)
  const theirs = await browser.newContext({ baseURL: accountsStack.baseURL })
  const tab = await theirs.newPage()
  await tab.goto(appLink(text, '/accept-invitation'))
  await expect(tab.getByRole('heading', { name: 'Join Journey Co' })).toBeVisible()
  await expectAccessible(tab)
  await tab.getByLabel('First name').fill('Nova')
  await tab.getByLabel('Last name').fill('Newhire')
  await tab.getByLabel('Password').fill('short')
  await tab.getByRole('button', { name: 'Create account' }).click()
  await expect(tab.getByLabel('Password')).toHaveAttribute('aria-invalid', 'true')
  const password = 'copper meadow lantern 84 quill'
  await tab.getByLabel('Password').fill(password)
  await tab.getByRole('button', { name: 'Create account' }).click()
  await expect(tab.getByRole('button', { name: 'Sign out' })).toBeVisible()

  // Signed out, they sign in with email and password; the link does not work twice.
  await tab.getByRole('button', { name: 'Sign out' }).click()
  await tab.goto(appLink(text, '/accept-invitation'))
  await expect(tab.getByText(/not valid any more/)).toBeVisible()
  await tab.goto('/sign-in')
  await tab.getByRole('textbox', { name: 'Email' }).fill(invitee)
  await tab.getByLabel('Password').fill(password)
  await tab.getByRole('button', { name: 'Sign in', exact: true }).click()
  await expect(tab.getByRole('button', { name: 'Sign out' })).toBeVisible()
  await tab.goto('/leads')
  await expect(tab.getByRole('heading', { level: 1, name: 'Leads' })).toBeVisible()

  // The admin sees them as a member, and deactivates them: their tab goes to sign-in within 5 seconds.
  await page.reload()
  const row = page.getByRole('row').filter({ hasText: invitee })
  await expect(row).toContainText('Nova Newhire')
  await row.getByRole('button', { name: 'Deactivate' }).click()
  await page.getByRole('dialog').getByRole('button', { name: 'Deactivate' }).click()
  await expect(row).toContainText(/inactive|deactivated/i)
  await expect(tab.getByRole('textbox', { name: 'Email' })).toBeVisible({ timeout: 5000 })
  await theirs.close()
})

test('an admin without a password sets one through a reset link, and signs in with it', async ({
  page,
  accountsStack,
}) => {
  await page.goto('/sign-in')
  await page.getByRole('link', { name: 'Forgot password?' }).click()
  await expect(page.getByRole('heading', { name: 'Reset your password' })).toBeVisible()
  await expectAccessible(page)
  await page.getByRole('textbox', { name: 'Email' }).fill(ADMIN_EMAIL)
  await page.getByRole('button', { name: 'Send reset link' }).click()
  await expect(page.getByText(/If an account uses that address/)).toBeVisible()

  const text = await mailTo(accountsStack.mailDir, ADMIN_EMAIL, /password/i)
  const link = appLink(text, '/reset-password')
  await page.goto(link)
  await expect(page.getByRole('heading', { name: 'Choose a new password' })).toBeVisible()
  await expectAccessible(page)
  await page.getByLabel('New password').fill('password1234')
  await page.getByRole('button', { name: 'Set password' }).click()
  await expect(page.getByLabel('New password')).toHaveAttribute('aria-invalid', 'true')
  const password = 'harbor violet kestrel 19 thimble'
  await page.getByLabel('New password').fill(password)
  await page.getByRole('button', { name: 'Set password' }).click()
  await expect(page.getByText('Your password is changed. Sign in with it now.')).toBeVisible()

  // The link worked once.
  await page.goto(link)
  await page.getByLabel('New password').fill('another fine password 77 owl')
  await page.getByRole('button', { name: 'Set password' }).click()
  await expect(page.getByText(/not valid any more/)).toBeVisible()

  await page.goto('/sign-in')
  await page.getByRole('textbox', { name: 'Email' }).fill(ADMIN_EMAIL)
  await page.getByLabel('Password').fill(password)
  await page.getByRole('button', { name: 'Sign in', exact: true }).click()
  await expect(page.getByRole('button', { name: 'Sign out' })).toBeVisible()
})

/** A new member with a password, joined through an emailed invitation by the API alone. */
async function newMember(
  stack: { apiUrl: string; apiKey: string; mailDir: string },
  name: string,
): Promise<{ email: string; password: string }> {
  const email = `${name}-${String(Date.now())}@journey.test`
  const password = 'saffron willow kettle 42 drum'
  const headers = {
    authorization: `Basic ${Buffer.from(`${stack.apiKey}:`).toString('base64')}`,
    'content-type': 'application/json',
  }
  const invited = await fetch(`${stack.apiUrl}/api/v1/invitation/`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ email, role_id: 'user' }),
  })
  expect(invited.status).toBeLessThan(300)
  const link = appLink(await mailTo(stack.mailDir, email, /invited/i), '/accept-invitation')
  const token = new URL(link, 'http://app').searchParams.get('token')
  const accepted = await fetch(`${stack.apiUrl}/api/v1/auth/invitation/accept/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ token, first_name: 'Tess', last_name: 'Twofactor', password }),
  })
  expect(accepted.status).toBe(200)
  return { email, password }
}

test('a rep turns two-factor on with a QR code and signs in again with a code from their app', async ({
  page,
  accountsStack,
}) => {
  const member = await newMember(accountsStack, 'tess')
  const signInWithPassword = async () => {
    await page.goto('/sign-in')
    await page.getByRole('textbox', { name: 'Email' }).fill(member.email)
    await page.getByLabel('Password').fill(member.password)
    await page.getByRole('button', { name: 'Sign in', exact: true }).click()
  }
  await signInWithPassword()
  await page.getByRole('banner').getByRole('link', { name: 'Profile' }).click()
  // Their name first: the header shows the new one at once.
  const name = page.getByRole('region', { name: 'Your name' })
  await name.getByRole('textbox', { name: 'First name' }).fill('Tessa')
  await name.getByRole('button', { name: 'Save name' }).click()
  await expect(page.getByRole('banner').getByText('Tessa Twofactor')).toBeVisible()
  const section = page.getByRole('region', { name: 'Two-factor sign-in' })
  await section.getByRole('button', { name: 'Turn on two-factor' }).click()
  await section.getByLabel('Current password').fill(member.password)
  await section.getByRole('button', { name: 'Continue' }).click()
  await expect(section.getByRole('img', { name: 'QR code for your authenticator app' })).toBeVisible()
  await expectAccessible(page)
  const secret = (await section.getByLabel('Secret').textContent()) ?? ''
  const totp = new TOTP({ secret: secret.trim() })
  await section.getByRole('textbox', { name: 'Code' }).fill(totp.generate())
  await section.getByRole('button', { name: 'Turn on', exact: true }).click()
  await expect(section.getByRole('list', { name: 'Recovery codes' }).getByRole('listitem')).toHaveCount(10)

  // Signed out, the password alone is not enough: the form asks for a code, and one from the app signs in. The code
  // of the next 30 seconds, as the one of these was used to turn it on.
  await page.getByRole('button', { name: 'Sign out', exact: true }).click()
  await signInWithPassword()
  const code = page.getByRole('textbox', { name: 'Code' })
  await expect(code).toBeVisible()
  await expectAccessible(page)
  await code.fill(totp.generate({ timestamp: Date.now() + 30_000 }))
  await page.getByRole('button', { name: 'Sign in', exact: true }).click()
  await expect(page.getByRole('button', { name: 'Sign out', exact: true })).toBeVisible()
})

/** Through the provider's own pages (oidc-provider's development login and consent), as `login`. */
async function signInAtProvider(page: Page, login: string): Promise<void> {
  await page.locator('input[name="login"]').fill(login)
  await page.locator('input[name="password"]').fill('any')
  await page.getByRole('button', { name: 'Sign-in' }).click()
  await page.getByRole('button', { name: 'Continue' }).click()
}

test('an admin sets up single sign-on and signs in through the provider; someone invited joins through it', async ({
  page,
  browser,
  accountsStack,
}) => {
  const invitee = `sol-${String(Date.now())}@journey.test`
  const provider = await startJourneyProvider(`${accountsStack.baseURL}/auth/sso/callback`, {
    casey: ADMIN_EMAIL,
    sol: invitee,
  })
  try {
    await signIn(page, accountsStack.apiKey)
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Settings' }).click()
    await page.getByRole('navigation', { name: 'Settings' }).getByRole('link', { name: 'Single sign-on' }).click()
    await expect(page.getByRole('heading', { level: 1, name: 'Single sign-on' })).toBeVisible()
    await page.getByLabel('Issuer URL').fill(provider.issuer)
    await page.getByLabel('Client ID').fill(provider.clientId)
    await page.getByLabel('Client secret').fill(provider.clientSecret)
    await page.getByLabel('Email domains').fill('journey.test')
    await page.getByRole('checkbox', { name: 'Turn on single sign-on' }).check()
    await expectAccessible(page)
    await page.getByRole('button', { name: 'Save' }).click()
    await expect(page.getByText('Single sign-on saved')).toBeVisible()

    await page.getByRole('button', { name: 'Sign out', exact: true }).click()
    await page.goto('/sign-in')
    await page.getByRole('textbox', { name: 'Email' }).fill(ADMIN_EMAIL)
    await page.getByRole('button', { name: 'Sign in with single sign-on' }).click()
    await signInAtProvider(page, 'casey')
    await expect(page.getByRole('button', { name: 'Sign out', exact: true })).toBeVisible()
    await expect(page.getByText(ADMIN_EMAIL)).toBeVisible()

    // Someone invited accepts through the provider: no password of their own.
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Settings' }).click()
    await page.getByRole('navigation', { name: 'Settings' }).getByRole('link', { name: 'Users' }).click()
    await page.getByRole('button', { name: 'Invite user' }).click()
    const dialog = page.getByRole('dialog', { name: 'Invite user' })
    await dialog.getByRole('textbox', { name: 'Email' }).fill(invitee)
    await dialog.getByRole('button', { name: 'Send invitation' }).click()
    await expect(page.getByText(`Invitation sent to ${invitee}`)).toBeVisible()
    const theirs = await browser.newContext({ baseURL: accountsStack.baseURL })
    const tab = await theirs.newPage()
    await tab.goto(appLink(await mailTo(accountsStack.mailDir, invitee, /invited/i), '/accept-invitation'))
    await expect(tab.getByRole('heading', { name: 'Join Journey Co' })).toBeVisible()
    await expectAccessible(tab)
    await tab.getByRole('link', { name: 'Sign in with single sign-on' }).click()
    await signInAtProvider(tab, 'sol')
    await expect(tab.getByRole('button', { name: 'Sign out', exact: true })).toBeVisible()
    await expect(tab.getByText(invitee).first()).toBeVisible()
    await theirs.close()
  } finally {
    await provider.close()
  }
})
