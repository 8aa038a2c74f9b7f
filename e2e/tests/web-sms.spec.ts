import type { Page } from '@playwright/test'
import { expect, signIn, test } from '../fixtures.js'
import { expectAccessible, jsonList, jsonRecord } from '../journeys.js'

// The lead page's SMS composer: sending with its 5-second undo, scheduling, and each contact's texts as a conversation.

function openComposer(page: Page) {
  const timeline = page.getByRole('region', { name: 'Activity' })
  return {
    timeline,
    composer: timeline.getByRole('region', { name: 'Send SMS' }),
    open: () => timeline.getByRole('button', { name: 'Send SMS' }).click(),
  }
}

test('a rep texts a contact, undoes it within the window, then sends it again and sees it sent', async ({
  page,
  api,
}) => {
  const lead = await api.createLead({
    name: 'Texting Co',
    contacts: [{ name: 'Ann Texter', phones: [{ phone: '+14155550123', type: 'mobile' }] }],
  })
  await signIn(page, api.key)

  // Without internal numbers there is nothing to send from, and the composer says so.
  await page.goto(`/leads/${lead.id}`)
  const { timeline, composer, open } = openComposer(page)
  await open()
  await expect(composer).toContainText('You have no phone number to send texts from yet')
  await expect(composer).toContainText('an admin adds a shared one, or one of your own')
  await expect(composer.getByRole('button', { name: 'Send', exact: true })).toBeDisabled()
  await composer.getByRole('button', { name: 'Close' }).click()
  await expect(composer).toBeHidden()
  await expect(timeline.getByRole('button', { name: 'Send SMS' })).toBeFocused()

  await api.request('POST', 'phone_number/', { number: '+14155550142', label: 'Sales line', type: 'internal' })
  await page.reload()
  await open()
  await expect(composer.getByRole('combobox', { name: 'To' }).locator('option:checked')).toHaveText(
    'Ann Texter — +1 415 555 0123 (mobile)',
  )
  await expect(composer.getByRole('combobox', { name: 'From' }).locator('option:checked')).toHaveText(
    '+1 415 555 0142 (Sales line)',
  )
  const message = composer.getByRole('textbox', { name: 'Message' })
  await expect(message).toBeFocused()
  const text = 'Hello Ann, are you free on Tuesday?'
  await message.fill(text)
  await expect(message).toHaveAccessibleDescription('35 characters · 1 segment')
  await expectAccessible(page)

  await composer.getByRole('button', { name: 'Send', exact: true }).click()
  const status = composer.getByRole('status')
  await expect(status).toHaveText('Your message to Ann Texter sends in 5 s.')
  await expect(message).toHaveValue('')
  const conversation = timeline.getByRole('article', { name: 'Text messages with Ann Texter' })
  await expect(conversation.getByRole('listitem')).toHaveCount(1)
  await expect(conversation).toContainText('Sending…')

  // Undo within the window: the text is back in the composer, the message a draft.
  await composer.getByRole('button', { name: 'Undo' }).click()
  await expect(status).toHaveText('Not sent. The message is back here as a draft.')
  await expect(message).toHaveValue(text)
  await expect(message).toBeFocused()
  await expect(conversation).toContainText('Draft')
  const [draft] = jsonList((await api.request('GET', `activity/sms/?lead_id=${lead.id}`)).data)
  expect(draft).toMatchObject({ status: 'draft', text, date_sent: null })

  // Sending again sends that draft; it turns Sent once its window has passed.
  const resentAt = Date.now()
  await composer.getByRole('button', { name: 'Send', exact: true }).click()
  await expect(status).toHaveText('Your message to Ann Texter sends in 5 s.')
  await expect(conversation.getByText('Sent', { exact: true })).toBeVisible({ timeout: 20_000 })
  await expect(conversation.getByRole('listitem')).toHaveCount(1)
  await expect(status).toHaveText('')
  const sent = jsonList((await api.request('GET', `activity/sms/?lead_id=${lead.id}`)).data)
  expect(sent).toHaveLength(1)
  expect(sent[0]).toMatchObject({ id: draft?.id, status: 'sent', text, direction: 'outbound' })
  // Sent by the second send, 5 seconds after it: the first, undone, never went out (it was due before this).
  expect(Date.parse(String(sent[0]?.date_sent))).toBeGreaterThanOrEqual(resentAt + 5000)
  await expectAccessible(page)
})

test('a rep schedules a text, unschedules it and carries on with the draft', async ({ page, api }) => {
  const lead = await api.createLead({
    name: 'Scheduling Co',
    contacts: [
      { name: 'Bo Later', phones: [{ phone: '+14155550125', type: 'office' }] },
      { name: 'Cy Reply', phones: [{ phone: '+14155550126', type: 'mobile' }] },
    ],
  })
  const numbers = jsonList((await api.request('GET', 'phone_number/?type=internal')).data)
  if (numbers.length === 0) {
    await api.request('POST', 'phone_number/', { number: '+14155550143', label: 'Second line', type: 'internal' })
  }
  await signIn(page, api.key)
  await page.goto(`/leads/${lead.id}`)
  const { timeline, composer, open } = openComposer(page)
  await open()
  await composer.getByRole('combobox', { name: 'To' }).selectOption({ label: 'Bo Later — +1 415 555 0125 (office)' })
  await composer.getByRole('textbox', { name: 'Message' }).fill('Our offer stands until Friday.')
  await composer.getByRole('button', { name: 'Schedule for later' }).click()
  const sendAt = composer.getByLabel('Send at')
  await expect(sendAt).toBeFocused()
  await expect(sendAt).toHaveAccessibleDescription(/^In your time zone \(.+\)\.$/)

  // No date: the composer asks for one beside the field.
  await composer.getByRole('button', { name: 'Schedule', exact: true }).click()
  await expect(sendAt).toHaveAccessibleDescription(/Pick a date and time\./)

  // Tomorrow at 09:30 in the browser's zone.
  const tomorrow = new Date(Date.now() + 86_400_000)
  const pad = (n: number) => String(n).padStart(2, '0')
  const local = `${String(tomorrow.getFullYear())}-${pad(tomorrow.getMonth() + 1)}-${pad(tomorrow.getDate())}T09:30`
  await sendAt.fill(local)
  await composer.getByRole('button', { name: 'Schedule', exact: true }).click()
  await expect(composer.getByRole('status')).toContainText('Your message to Bo Later is scheduled for')
  const conversation = timeline.getByRole('article', { name: 'Text messages with Bo Later' })
  await expect(conversation).toContainText('Scheduled for')
  const [scheduled] = jsonList((await api.request('GET', `activity/sms/?lead_id=${lead.id}`)).data)
  expect(scheduled).toMatchObject({ status: 'scheduled', text: 'Our offer stands until Friday.' })
  const due = await page.evaluate((value) => new Date(value).toISOString(), local)
  expect(Date.parse(String(scheduled?.date_scheduled))).toBe(Date.parse(due))

  // Unschedule: it is a draft, and Edit draft carries on with it in the composer.
  await conversation.getByRole('button', { name: 'Unschedule' }).click()
  await expect(conversation).toContainText('Draft')
  await conversation.getByRole('button', { name: 'Edit draft' }).click()
  await expect(composer.getByRole('textbox', { name: 'Message' })).toHaveValue('Our offer stands until Friday.')
  await expect(composer.getByRole('combobox', { name: 'To' }).locator('option:checked')).toHaveText(
    'Bo Later — +1 415 555 0125 (office)',
  )
  await expectAccessible(page)

  // A text from another contact is another conversation.
  const contacts = jsonList((await api.request('GET', `lead/${lead.id}/`)).contacts)
  await api.request('POST', 'activity/sms/', {
    lead_id: lead.id,
    contact_id: contacts.find((c) => c.name === 'Cy Reply')?.id,
    remote_phone: '+14155550126',
    local_phone: jsonRecord(jsonList((await api.request('GET', 'phone_number/?type=internal')).data)[0]).number,
    text: 'Got it, thanks!',
    status: 'inbox',
  })
  await page.reload()
  const reply = timeline.getByRole('article', { name: 'Text messages with Cy Reply' })
  await expect(reply).toContainText('Got it, thanks!')
  await expect(reply).toContainText('Received')
  await expect(timeline.getByRole('article', { name: /^Text messages with / })).toHaveCount(2)
})
