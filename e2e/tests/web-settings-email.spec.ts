import { simpleParser } from 'mailparser'
import { expect, mailTest as test, signIn } from '../fixtures.js'
import { expectAccessible } from '../journeys.js'

// Settings → Email accounts and Email templates: an admin adds an account pointing at the journey's real SMTP server
// and checks it with Send test email; an admin writes a template and previews it for a lead's contact.

test('an admin adds an email account, sends a test email, sees the server’s answer, and the email arrives', async ({
  page,
  api,
  mailStack,
}) => {
  await signIn(page, api.key)
  await page.goto('/settings/email-accounts')
  await expect(page.getByRole('heading', { level: 1, name: 'Email accounts' })).toBeVisible()
  await page.getByRole('button', { name: 'Add email account' }).click()
  const dialog = page.getByRole('dialog', { name: 'Add email account' })
  await dialog.getByRole('textbox', { name: 'Email address' }).fill('tests@settings.test')
  await dialog.getByRole('textbox', { name: 'SMTP host' }).fill('127.0.0.1')
  await dialog.getByRole('textbox', { name: 'Port' }).fill(String(mailStack.sink.port))
  await dialog.getByRole('checkbox', { name: /TLS from the start/ }).uncheck()
  await dialog.getByRole('button', { name: 'Add account' }).click()
  await expect(dialog).toBeHidden()

  const account = page.getByRole('article', { name: 'tests@settings.test' })
  await expect(account).toContainText('SMTP 127.0.0.1')
  await account.getByRole('button', { name: 'Send test email through tests@settings.test' }).click()
  await expect(account.getByRole('status')).toContainText('The server answered: 250')
  await expectAccessible(page)

  await expect
    .poll(() => mailStack.sink.messages.filter((m) => m.to.includes('tests@settings.test')).length, {
      timeout: 10_000,
    })
    .toBe(1)
  const mail = await simpleParser(mailStack.sink.messages.find((m) => m.to.includes('tests@settings.test'))?.raw ?? '')
  expect(mail.subject).toBe('Leadline test email')
  expect(mail.text).toContain('tests@settings.test')
})

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
