import { expect, signIn, test } from '../fixtures.js'
import { expectAccessible, jsonList } from '../journeys.js'

// Log a call on the lead page: the dialog, the API's field error beside its field, and the call in the timeline.

test('a rep logs a call with its outcome, duration, note and recording, and plays it from the timeline', async ({
  page,
  api,
}) => {
  const outcome = `Booked a demo ${String(Date.now())}`
  await api.request('POST', 'outcome/', { name: outcome, applies_to: ['calls'] })
  const lead = await api.createLead({
    name: 'Call Journey Co',
    contacts: [{ name: 'Ann Caller', phones: [{ phone: '+14155550123', type: 'mobile' }] }],
  })

  await signIn(page, api.key)
  await page.goto(`/leads/${lead.id}`)
  await expect(page.getByRole('heading', { level: 1, name: 'Call Journey Co' })).toBeVisible()
  const timeline = page.getByRole('region', { name: 'Activity' })

  // From the keyboard: Enter opens the dialog, Escape closes it and the focus goes back to the button.
  const logCall = timeline.getByRole('button', { name: 'Log a call' })
  await logCall.focus()
  await page.keyboard.press('Enter')
  const dialog = page.getByRole('dialog', { name: 'Log a call' })
  await expect(dialog.getByRole('combobox', { name: 'Outcome' })).toBeEnabled()
  await page.keyboard.press('Escape')
  await expect(dialog).toBeHidden()
  await expect(logCall).toBeFocused()

  await logCall.click()
  // A lead with one contact: the call is that contact's unless the rep says otherwise.
  await expect(dialog.getByRole('combobox', { name: 'Contact' }).locator('option:checked')).toHaveText('Ann Caller')
  await expect(dialog.getByRole('radio', { name: 'Outbound' })).toBeChecked()
  await dialog.getByRole('radio', { name: 'Inbound' }).check()
  await dialog.getByRole('combobox', { name: 'Outcome' }).selectOption({ label: outcome })
  await dialog.getByRole('textbox', { name: 'Minutes' }).fill('2')
  await dialog.getByRole('textbox', { name: 'Seconds' }).fill('5')
  await dialog.getByRole('textbox', { name: 'Note' }).fill('Wants a demo next Tuesday')
  const recording = dialog.getByRole('textbox', { name: 'Recording URL' })
  await recording.fill('http://recordings.example/call-1.mp3')
  await expectAccessible(page)

  // The API refuses a recording that is not https; its words show beside the field, and nothing is logged.
  await dialog.getByRole('button', { name: 'Log call' }).click()
  await expect(recording).toHaveAttribute('aria-invalid', 'true')
  await expect(recording).toHaveAccessibleDescription(/https/)
  await expect(dialog).toBeVisible()
  expect(jsonList((await api.request('GET', `activity/call/?lead_id=${lead.id}`)).data)).toEqual([])

  await recording.fill('https://recordings.example/call-1.mp3')
  await dialog.getByRole('button', { name: 'Log call' }).click()
  await expect(dialog).toBeHidden()

  const entry = timeline.getByRole('article', { name: 'Call by Casey Closer' })
  await expect(entry).toContainText('Inbound call')
  await expect(entry).toContainText(outcome)
  await expect(entry).toContainText('2:05')
  await expect(entry).toContainText('— Ann Caller')
  await expect(entry).toContainText('Wants a demo next Tuesday')
  const player = entry.getByLabel('Recording of the call with Ann Caller')
  await expect(player).toHaveJSProperty('tagName', 'AUDIO')
  await expect(player).toHaveAttribute('controls', '')
  await expect(player).toHaveAttribute('src', 'https://recordings.example/call-1.mp3')

  const [call] = jsonList((await api.request('GET', `activity/call/?lead_id=${lead.id}`)).data)
  expect(call).toMatchObject({
    direction: 'inbound',
    duration: 125,
    note: 'Wants a demo next Tuesday',
    recording_url: 'https://recordings.example/call-1.mp3',
    contact_name: 'Ann Caller',
  })
  expect(call?.outcome_id).toEqual(expect.stringMatching(/./))

  // The Calls filter shows it alone; after a reload it is still there, from the server.
  await timeline.getByRole('group', { name: 'Show' }).getByRole('button', { name: 'Calls' }).click()
  await expect(timeline.getByRole('article')).toHaveCount(1)
  await page.reload()
  await expect(entry.getByLabel(/^Recording of the call/)).toHaveAttribute('src', /^https:/)
  await expectAccessible(page)
})

test('a call without an https recording has no player; a voicemail has its own', async ({ page, api }) => {
  const lead = await api.createLead({ name: 'Voicemail Co' })
  await api.request('POST', 'activity/call/', {
    lead_id: lead.id,
    direction: 'outbound',
    duration: 42,
    note: 'No recording of this one',
  })
  await api.request('POST', 'activity/call/', {
    lead_id: lead.id,
    direction: 'inbound',
    phone: '+14155550124',
    voicemail_url: 'https://recordings.example/vm-1.mp3',
    voicemail_duration: 31,
  })

  await signIn(page, api.key)
  await page.goto(`/leads/${lead.id}?activity=calls`)
  const timeline = page.getByRole('region', { name: 'Activity' })
  const calls = timeline.getByRole('article')
  await expect(calls).toHaveCount(2)
  const plain = calls.filter({ hasText: 'No recording of this one' })
  await expect(plain).toContainText('Outbound call · 0:42')
  await expect(plain.locator('audio')).toHaveCount(0)
  const voicemail = calls.filter({ hasText: 'Voicemail' })
  await expect(voicemail.getByLabel('Voicemail from +1 415 555 0124, 0:31')).toHaveAttribute(
    'src',
    'https://recordings.example/vm-1.mp3',
  )
  await expectAccessible(page)
})
