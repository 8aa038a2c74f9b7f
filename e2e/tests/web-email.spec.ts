import { readFile } from 'node:fs/promises'
import type { Page } from '@playwright/test'
import { simpleParser } from 'mailparser'
import { expect, mailTest as test, signIn, type CrmClient } from '../fixtures.js'
import { expectAccessible, jsonList } from '../journeys.js'
import { headerOf } from '../mail-sink.js'

// The lead page's email: a template previewed for the contact, sending with its 5-second Undo over real SMTP,
// scheduling, threads collapsed with their quoted text folded, and files attached, kept with a draft and sent.

function emailComposer(page: Page) {
  const timeline = page.getByRole('region', { name: 'Activity' })
  return {
    timeline,
    composer: timeline.getByRole('region', { name: 'Email', exact: true }),
    open: () => timeline.getByRole('button', { name: 'Send email' }).click(),
  }
}

/** The signed-in user's email account, sending through the journey's SMTP sink; made once. */
async function giveAccount(api: CrmClient, port: number): Promise<void> {
  const me = await api.request('GET', 'me/')
  if (jsonList(me.email_accounts).length > 0) return
  await api.request('POST', 'email_account/', {
    email: 'casey@journey.test',
    identities: [{ name: 'Casey Closer', email: 'casey@journey.test' }],
    smtp: { host: '127.0.0.1', port, use_ssl: false },
  })
}

async function removeAccounts(api: CrmClient): Promise<void> {
  for (const account of jsonList((await api.request('GET', 'me/')).email_accounts))
    await api.request('DELETE', `email_account/${String(account.id)}/`)
}

test('a rep writes from a template, undoes the send within the window, sends again and it arrives', async ({
  page,
  api,
  mailStack,
}) => {
  await removeAccounts(api)
  await api.request('POST', 'email_template/', {
    name: 'Intro call',
    subject: 'Hello {{ contact.first_name }}',
    body: '<p>Hi {{ contact.first_name }},</p><p>Shall we talk on <strong>Tuesday</strong>?{{ contact.nickname }}</p>',
    is_shared: true,
  })
  const lead = await api.createLead({
    name: 'Mailing Co',
    contacts: [{ name: 'Ann Mailer', emails: [{ email: 'ann@mailer.test', type: 'office' }] }],
  })
  await signIn(page, api.key)

  // Without an email account there is nothing to send from, and the composer says so.
  await page.goto(`/leads/${lead.id}`)
  const { timeline, composer, open } = emailComposer(page)
  await open()
  await expect(composer).toContainText('You have no email account to send from yet.')
  await expect(composer.getByRole('link', { name: 'Your email accounts' })).toHaveAttribute(
    'href',
    '/settings/profile#email-accounts',
  )
  await expect(composer.getByRole('button', { name: 'Send', exact: true })).toBeDisabled()
  await composer.getByRole('button', { name: 'Close' }).click()
  await expect(composer).toBeHidden()
  await expect(timeline.getByRole('button', { name: 'Send email' })).toBeFocused()

  await giveAccount(api, mailStack.sink.port)
  await page.reload()
  await open()
  await expect(composer.getByRole('combobox', { name: 'From' }).locator('option:checked')).toHaveText(
    'Casey Closer <casey@journey.test>',
  )
  await expect(composer.getByRole('list', { name: 'To recipients' }).getByRole('listitem')).toHaveText([
    /Ann Mailer <ann@mailer\.test>/,
  ])
  await expect(composer.getByRole('combobox', { name: 'To', exact: true })).toBeFocused()

  // A typed address that is none stays in the field, with the reason beside it.
  const cc = composer.getByRole('combobox', { name: 'Cc', exact: true })
  await cc.fill('not an address')
  await cc.press('Enter')
  await expect(cc).toHaveAccessibleDescription(/not an email address/)
  await cc.fill('')

  // The template, previewed for Ann: her name in it, and the placeholder with no value named.
  await composer.getByRole('combobox', { name: 'Template' }).selectOption({ label: 'Intro call (shared)' })
  const preview = composer.getByRole('region', { name: 'Template preview' })
  await expect(preview).toContainText('Hello Ann')
  await expect(preview).toContainText('Hi Ann,')
  await expect(preview).toContainText('nickname')
  await expectAccessible(page)
  await preview.getByRole('button', { name: 'Use template' }).click()
  const subject = composer.getByRole('textbox', { name: 'Subject' })
  const message = composer.getByRole('textbox', { name: 'Message' })
  await expect(subject).toHaveValue('Hello Ann')
  await expect(message).toHaveValue('Hi Ann,\n\nShall we talk on **Tuesday**?')

  await composer.getByRole('button', { name: 'Send', exact: true }).click()
  const status = composer.getByRole('status')
  await expect(status).toHaveText('Your email to Ann Mailer sends in 5 s.')
  await expect(subject).toHaveValue('')
  const thread = timeline.getByRole('article', { name: 'Email thread: Hello Ann' })
  await expect(thread).toContainText('Sending…')

  // Undo within the window: the email is back in the composer as a draft.
  await composer.getByRole('button', { name: 'Undo' }).click()
  await expect(status).toHaveText('Not sent. The email is back here as a draft.')
  await expect(subject).toHaveValue('Hello Ann')
  await expect(message).toHaveValue('Hi Ann,\n\nShall we talk on **Tuesday**?')
  await expect(message).toBeFocused()
  await expect(thread).toContainText('Draft')
  const [draft] = jsonList((await api.request('GET', `activity/email/?lead_id=${lead.id}`)).data)
  expect(draft).toMatchObject({ status: 'draft', subject: 'Hello Ann', date_sent: null })
  expect(draft?.template_id).toEqual(expect.stringMatching(/^tmpl_/))

  // Sending again sends that draft; it turns Sent when the SMTP server has it, the undone send never having gone.
  await composer.getByRole('button', { name: 'Send', exact: true }).click()
  await expect(status).toHaveText('Your email to Ann Mailer sends in 5 s.')
  await expect(thread.getByText('Sent', { exact: true })).toBeVisible({ timeout: 20_000 })
  const arrived = mailStack.sink.messages.filter((m) => m.to.includes('ann@mailer.test'))
  expect(arrived).toHaveLength(1)
  expect(headerOf(arrived[0]?.raw ?? '', 'Subject')).toBe('Hello Ann')
  expect(arrived[0]?.raw).toContain('<strong>Tuesday</strong>')
  const sent = jsonList((await api.request('GET', `activity/email/?lead_id=${lead.id}`)).data)
  expect(sent).toHaveLength(1)
  expect(sent[0]).toMatchObject({ id: draft?.id, status: 'sent' })
  await expectAccessible(page)
})

test('a rep schedules an email and reads a thread: collapsed, a reply joined, quoted text folded', async ({
  page,
  api,
  mailStack,
}) => {
  await giveAccount(api, mailStack.sink.port)
  const lead = await api.createLead({
    name: 'Threading Co',
    contacts: [{ name: 'Bo Reader', emails: [{ email: 'bo@reader.test', type: 'office' }] }],
  })
  const contactId = String(jsonList((await api.request('GET', `lead/${lead.id}/`)).contacts)[0]?.id)
  await signIn(page, api.key)
  await page.goto(`/leads/${lead.id}`)
  const { timeline, composer, open } = emailComposer(page)

  // Scheduled for tomorrow at 09:30 in the browser's zone.
  await open()
  await composer.getByRole('textbox', { name: 'Subject' }).fill('Pricing')
  await composer.getByRole('textbox', { name: 'Message' }).fill('Our prices for next year.')
  await composer.getByRole('button', { name: 'Schedule for later' }).click()
  const sendAt = composer.getByLabel('Send at')
  await expect(sendAt).toBeFocused()
  const tomorrow = new Date(Date.now() + 86_400_000)
  const pad = (n: number) => String(n).padStart(2, '0')
  const local = `${String(tomorrow.getFullYear())}-${pad(tomorrow.getMonth() + 1)}-${pad(tomorrow.getDate())}T09:30`
  await sendAt.fill(local)
  await composer.getByRole('button', { name: 'Schedule', exact: true }).click()
  await expect(composer.getByRole('status')).toContainText('Your email to Bo Reader is scheduled for')
  const scheduled = timeline.getByRole('article', { name: 'Email thread: Pricing' })
  await expect(scheduled).toContainText('Scheduled for')
  const [pricing] = jsonList((await api.request('GET', `activity/email/?lead_id=${lead.id}`)).data)
  const due = await page.evaluate((value) => new Date(value).toISOString(), local)
  expect(pricing).toMatchObject({ status: 'scheduled', subject: 'Pricing' })
  expect(Date.parse(String(pricing?.date_scheduled))).toBe(Date.parse(due))
  await composer.getByRole('button', { name: 'Close' }).click()

  // A proposal sent, and Bo's reply, which quotes it (its HTML with a script and an image that must not run).
  const proposal = await api.request('POST', 'activity/email/', {
    lead_id: lead.id,
    contact_id: contactId,
    status: 'sent',
    sender: 'Casey Closer <casey@journey.test>',
    to: ['Bo Reader <bo@reader.test>'],
    subject: 'Proposal',
    body_text: 'Here is our proposal.',
  })
  const received = await api.request('POST', 'activity/email/', {
    lead_id: lead.id,
    contact_id: contactId,
    status: 'inbox',
    in_reply_to_id: proposal.id,
    sender: 'Bo Reader <bo@reader.test>',
    to: ['casey@journey.test'],
    subject: 'Re: Proposal',
    body_text: 'Sounds good, send the contract.\n\nOn Monday Casey Closer wrote:\n> Here is our proposal.',
    body_html:
      '<p>Sounds <b>good</b>, send the contract.</p><img src="x" onerror="window.pwned=1"><script>window.pwned=2</script>' +
      '<p>On Monday Casey Closer wrote:</p><blockquote>Here is our proposal.</blockquote>',
  })
  await page.reload()
  const thread = timeline.getByRole('article', { name: 'Email thread: Proposal' })
  await expect(thread).toContainText('2 emails')
  await expect(thread).toContainText('Bo Reader')
  await expect(thread).toContainText('Sounds good, send the contract.')
  await expect(thread.getByRole('article')).toHaveCount(0)
  await expectAccessible(page)

  // Opened: both emails, oldest first; the reply's quoted text behind a button.
  const show = thread.getByRole('button', { name: 'Show 2 emails' })
  await show.click()
  await expect(thread.getByRole('button', { name: 'Hide emails' })).toHaveAttribute('aria-expanded', 'true')
  const emails = thread.getByRole('list', { name: /^Emails in Proposal/ }).getByRole('article')
  await expect(emails).toHaveCount(2)
  const reply = emails.nth(1)
  await expect(reply).toHaveAccessibleName('Email from Bo Reader <bo@reader.test>')
  await expect(reply).toContainText('Received')
  await expect(reply.locator('b')).toHaveText('good')
  await expect(reply).not.toContainText('Here is our proposal.')
  await reply.getByRole('button', { name: 'Show quoted text' }).click()
  await expect(reply).toContainText('Here is our proposal.')
  await expect(reply.locator('img, script')).toHaveCount(0)
  expect(await page.evaluate(() => 'pwned' in window)).toBe(false)
  await expectAccessible(page)

  // Reply: to Bo, Re: once, in the thread; it goes out with the thread's headers.
  await reply.getByRole('button', { name: 'Reply' }).click()
  await expect(composer.getByRole('list', { name: 'To recipients' }).getByRole('listitem')).toHaveText([
    /Bo Reader <bo@reader\.test>/,
  ])
  await expect(composer.getByRole('textbox', { name: 'Subject' })).toHaveValue('Re: Proposal')
  const message = composer.getByRole('textbox', { name: 'Message' })
  await expect(message).toBeFocused()
  await message.fill('Contract attached tomorrow.')
  await composer.getByRole('button', { name: 'Send', exact: true }).click()
  await expect(composer.getByRole('status')).toHaveText('Your email to Bo Reader sends in 5 s.')
  await expect(thread).toContainText('3 emails')
  await expect(emails).toHaveCount(3)
  await expect(emails.nth(2).getByText('Sent', { exact: true })).toBeVisible({ timeout: 20_000 })
  const answers = mailStack.sink.messages.filter((m) => m.to.includes('bo@reader.test'))
  expect(answers).toHaveLength(1)
  expect(headerOf(answers[0]?.raw ?? '', 'Subject')).toBe('Re: Proposal')
  const [newest] = jsonList((await api.request('GET', `activity/email/?lead_id=${lead.id}`)).data)
  expect(newest).toMatchObject({ status: 'sent', thread_id: proposal.thread_id, in_reply_to_id: received.id })
})

test('removing a recipient moves the focus to the next chip, the one before, or the field', async ({
  page,
  api,
  mailStack,
}) => {
  await giveAccount(api, mailStack.sink.port)
  const lead = await api.createLead({ name: 'Chips Co' })
  await signIn(page, api.key)
  await page.goto(`/leads/${lead.id}`)
  const { composer, open } = emailComposer(page)
  await open()
  const cc = composer.getByRole('combobox', { name: 'Cc', exact: true })
  await cc.fill('ada@chips.test, bo@chips.test, cy@chips.test,')
  const chips = composer.getByRole('list', { name: 'Cc recipients' }).getByRole('listitem')
  await expect(chips).toHaveText([/ada@chips\.test/, /bo@chips\.test/, /cy@chips\.test/])

  await composer.getByRole('button', { name: 'Remove bo@chips.test from Cc' }).click()
  await expect(chips).toHaveText([/ada@chips\.test/, /cy@chips\.test/])
  await expect(composer.getByRole('button', { name: 'Remove cy@chips.test from Cc' })).toBeFocused()
  await page.keyboard.press('Enter')
  await expect(chips).toHaveText([/ada@chips\.test/])
  await expect(composer.getByRole('button', { name: 'Remove ada@chips.test from Cc' })).toBeFocused()
  await page.keyboard.press('Enter')
  await expect(chips).toHaveCount(0)
  await expect(cc).toBeFocused()
})

test('a rep attaches files, keeps them with a draft, removes one and sends: only the other arrives', async ({
  page,
  api,
  mailStack,
}) => {
  await giveAccount(api, mailStack.sink.port)
  const lead = await api.createLead({
    name: 'Attaching Co',
    contacts: [{ name: 'Cy Files', emails: [{ email: 'cy@files.test', type: 'office' }] }],
  })
  await signIn(page, api.key)
  await page.goto(`/leads/${lead.id}`)
  const { timeline, composer, open } = emailComposer(page)
  await open()
  await composer.getByRole('textbox', { name: 'Subject' }).fill('The plan')
  await composer.getByRole('textbox', { name: 'Message' }).fill('The plan is attached.')

  // The uploads are held until the journey lets them go, to see the composer wait for them.
  let release: () => void = () => undefined
  const held = new Promise<void>((resolve) => {
    release = resolve
  })
  const uploads: string[] = []
  await page.route(
    (url) => url.pathname === '/api/v1/email_attachment/',
    async (route) => {
      uploads.push(route.request().url())
      await held
      await route.continue()
    },
  )

  // Through the button, as a user does: the browser's file picker.
  const attach = composer.getByRole('button', { name: 'Attach files' })
  const chooser = page.waitForEvent('filechooser')
  await attach.click()
  await (
    await chooser
  ).setFiles([
    { name: 'plan.txt', mimeType: 'text/plain', buffer: Buffer.from('Q3 plan: grow.\n') },
    { name: 'old notes.txt', mimeType: 'text/plain', buffer: Buffer.from('Not for Cy.\n') },
  ])
  const files = composer.getByRole('list', { name: 'Attachments' }).getByRole('listitem')
  await expect(files).toHaveText([/plan\.txt\s*15 bytes\s*Uploading…/, /old notes\.txt\s*12 bytes\s*Uploading…/])
  await expect(composer.getByRole('button', { name: 'Send', exact: true })).toBeDisabled()
  await expect(composer.getByRole('button', { name: 'Save draft' })).toBeDisabled()
  await expect.poll(() => uploads.length).toBe(2)
  expect(uploads.map((url) => new URL(url).searchParams.get('filename')).sort()).toEqual(['old notes.txt', 'plan.txt'])
  release()
  await expect(files).toHaveText([/^plan\.txt\s*15 bytes\s*×$/, /^old notes\.txt\s*12 bytes\s*×$/])
  await expect(composer.getByText(/^Attached (plan|old notes)\.txt\.$/)).toBeAttached()
  await expectAccessible(page)

  // A file over the limit is refused in the browser: nothing is uploaded.
  await composer.locator('input[type="file"]').setInputFiles({
    name: 'huge.bin',
    mimeType: 'application/octet-stream',
    buffer: Buffer.alloc(10 * 1024 * 1024 + 1),
  })
  await expect(composer).toContainText('huge.bin is larger than 10 MB, the most one file may be, and was not attached.')
  await expect(files).toHaveCount(2)
  expect(uploads).toHaveLength(2)

  // Kept with the draft: both files.
  await composer.getByRole('button', { name: 'Save draft' }).click()
  await expect(composer.getByRole('status')).toHaveText('Saved as a draft.')
  const [draft] = jsonList((await api.request('GET', `activity/email/?lead_id=${lead.id}`)).data)
  expect(draft?.status).toBe('draft')
  expect(jsonList(draft?.attachments).map((a) => [a.filename, a.size])).toEqual([
    ['plan.txt', 15],
    ['old notes.txt', 12],
  ])

  // Opened again from its thread: the files are there; one removed is gone from what is sent.
  await page.reload()
  const thread = timeline.getByRole('article', { name: 'Email thread: The plan' })
  await thread.getByRole('button', { name: 'Show email' }).click()
  await thread.getByRole('button', { name: 'Edit draft' }).click()
  await expect(files).toHaveText([/plan\.txt\s*15 bytes/, /old notes\.txt\s*12 bytes/])
  await composer.getByRole('button', { name: 'Remove old notes.txt' }).click()
  await expect(files).toHaveText([/plan\.txt/])
  await expect(composer.getByRole('button', { name: 'Attach files' })).toBeFocused()
  await composer.getByRole('button', { name: 'Send', exact: true }).click()
  await expect(composer.getByRole('status')).toHaveText('Your email to Cy Files sends in 5 s.')
  await expect(thread.getByText('Sent', { exact: true })).toBeVisible({ timeout: 20_000 })

  const arrived = mailStack.sink.messages.filter((m) => m.to.includes('cy@files.test'))
  expect(arrived).toHaveLength(1)
  const mail = await simpleParser(arrived[0]?.raw ?? '')
  expect(mail.subject).toBe('The plan')
  expect(mail.attachments.map((a) => [a.filename, a.content.toString('utf8')])).toEqual([
    ['plan.txt', 'Q3 plan: grow.\n'],
  ])
  const [sent] = jsonList((await api.request('GET', `activity/email/?lead_id=${lead.id}`)).data)
  expect(sent).toMatchObject({ id: draft?.id, status: 'sent' })
  expect(jsonList(sent?.attachments).map((a) => a.filename)).toEqual(['plan.txt'])

  // The thread offers the file sent as a download, named after it, with its size.
  const link = thread.getByRole('list', { name: 'Attachments' }).getByRole('link', { name: 'plan.txt (15 bytes)' })
  await expect(link).toHaveAttribute('download', '')
  const download = page.waitForEvent('download')
  await link.click()
  const saved = await (await download).path()
  expect(await readFile(saved, 'utf8')).toBe('Q3 plan: grow.\n')
  await expectAccessible(page)
})

test('a new address is offered as From only once the rep confirms the link emailed to it, which works once', async ({
  page,
  api,
  mailStack,
}) => {
  await giveAccount(api, mailStack.sink.port)
  const [account] = jsonList((await api.request('GET', 'me/')).email_accounts)
  await api.request('PUT', `email_account/${String(account?.id)}/`, {
    identities: [
      { name: 'Casey Closer', email: 'casey@journey.test' },
      { name: 'Deals', email: 'deals@journey.test' },
    ],
  })
  const lead = await api.createLead({
    name: 'Deals Co',
    contacts: [{ name: 'Di Deal', emails: [{ email: 'di@deals.test', type: 'office' }] }],
  })
  await signIn(page, api.key)
  await page.goto(`/leads/${lead.id}`)
  const { composer, open } = emailComposer(page)
  await open()
  const from = composer.getByRole('combobox', { name: 'From' }).locator('option')
  await expect(from).toHaveText(['Casey Closer <casey@journey.test>'])

  // The link went to the new address through the account's SMTP server.
  await expect
    .poll(() => mailStack.sink.messages.filter((m) => m.to.includes('deals@journey.test')).length, { timeout: 20_000 })
    .toBe(1)
  const mail = await simpleParser(mailStack.sink.messages.find((m) => m.to.includes('deals@journey.test'))?.raw ?? '')
  const link = /https?:\/\/[^/\s]+(\/verify-email\?token=[A-Za-z0-9]+)/.exec(mail.text ?? '')
  expect(link?.[1]).toBeDefined()
  await page.goto(link?.[1] ?? '/')
  await expect(page.getByRole('heading', { name: 'Confirm your email address' })).toBeVisible()
  await page.getByRole('button', { name: 'Confirm address' }).click()
  await expect(page.getByRole('status')).toHaveText(
    'deals@journey.test is verified: you can send from it, and mail to it lands in Leadline.',
  )
  await expectAccessible(page)

  // The same link again is refused, and says why.
  await page.reload()
  await page.getByRole('button', { name: 'Confirm address' }).click()
  await expect(page.getByRole('alert')).toContainText('This link is not valid: it was used already')

  await page.goto(`/leads/${lead.id}`)
  await open()
  await expect(from).toHaveText(['Casey Closer <casey@journey.test>', 'Deals <deals@journey.test>'])
})
