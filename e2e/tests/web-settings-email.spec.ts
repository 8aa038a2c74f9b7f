import { accountsTest, expect, mailTest as test, signIn } from '../fixtures.js'
import { mailTo } from '../mail-files.js'
import { expectAccessible } from '../journeys.js'

// Settings → Email accounts and Email templates: an admin adds an account pointing at the demo mail catcher
// and checks it with Send test email; an admin writes a template and previews it for a lead's contact.

accountsTest(
  'an admin adds an email account pointing at the demo mail catcher, sends a test email, sees the server’s answer, and it arrives',
  async ({ page, api, accountsStack }) => {
    const catcher = new URL(accountsStack.mailUrl)
    await signIn(page, api.key)
    await page.goto('/settings/email-accounts')
    await expect(page.getByRole('heading', { level: 1, name: 'Email accounts' })).toBeVisible()
    await page.getByRole('button', { name: 'Add email account' }).click()
    const dialog = page.getByRole('dialog', { name: 'Add email account' })
    await dialog.getByRole('textbox', { name: 'Email address' }).fill('tests@settings.test')
    await dialog.getByRole('textbox', { name: 'SMTP host' }).fill(catcher.hostname)
    await dialog.getByRole('textbox', { name: 'Port' }).fill(catcher.port)
    await dialog.getByRole('checkbox', { name: /TLS from the start/ }).uncheck()
    await dialog.getByRole('button', { name: 'Add account' }).click()
    await expect(dialog).toBeHidden()

    const account = page.getByRole('article', { name: 'tests@settings.test' })
    await expect(account).toContainText(`SMTP ${catcher.hostname}`)
    await account.getByRole('button', { name: 'Send test email through tests@settings.test' }).click()
    await expect(account.getByRole('status')).toContainText('The server answered: 250')
    await expectAccessible(page)

    // The catcher kept it as an `.eml` file, as it keeps the demo's mail.
    const text = await mailTo(accountsStack.mailDir, 'tests@settings.test', /^Leadline test email$/)
    expect(text).toContain('tests@settings.test')
  },
)

test('an admin creates a template and previews it for a lead’s contact', async ({ page, api }) => {
  await api.createLead({
    name: 'Preview Industries',
    contacts: [{ name: 'Pia Preview', emails: [{ email: 'pia@preview.test', type: 'office' }] }],
  })
  await signIn(page, api.key)
  await page.goto('/settings/email-templates')
  await expect(page.getByRole('heading', { level: 1, name: 'Email templates' })).toBeVisible()
  await page.getByRole('button', { name: 'New template' }).click()
  const dialog = page.getByRole('dialog', { name: 'New template' })
  await dialog.getByRole('textbox', { name: 'Name' }).fill('Settings intro')
  await dialog.getByRole('textbox', { name: 'Subject' }).fill('Hello {{ contact.first_name }}')
  await dialog
    .getByRole('textbox', { name: 'Body' })
    .fill('<p>Hi {{ contact.first_name }} at {{ lead.display_name }}</p>')
  await dialog.getByRole('button', { name: 'Create template' }).click()
  await expect(dialog).toBeHidden()
  const row = page.getByRole('row').filter({ has: page.getByRole('rowheader', { name: 'Settings intro' }) })
  await expect(row).toContainText('Shared')

  await row.getByRole('button', { name: 'Preview Settings intro' }).click()
  const preview = page.getByRole('region', { name: 'Preview of “Settings intro”' })
  await preview.getByRole('combobox', { name: 'Lead' }).fill('Preview Industries')
  await page.getByRole('option', { name: 'Preview Industries' }).click()
  await expect(preview.getByRole('combobox', { name: 'Contact' })).toHaveValue(/^cont_/)
  await expect(preview).toContainText('Hello Pia')
  await expect(preview).toContainText('Hi Pia at Preview Industries')
  await expectAccessible(page)
})
