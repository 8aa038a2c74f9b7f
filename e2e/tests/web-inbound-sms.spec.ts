import { Webhook } from 'standardwebhooks'
import { CrmClient, demoTest as test, expect } from '../fixtures.js'
import { demoUser, expectAccessible, jsonList, jsonRecord, signInAs } from '../journeys.js'

// A text from a contact, reported by the telephony side to the signed inbound endpoint, reaches the rep's inbox.

/** Posts an incoming text to the inbound endpoint, signed as Standard Webhooks with `secret`. */
async function postInboundSms(apiUrl: string, organizationId: string, secret: string, message: object) {
  const body = JSON.stringify(message)
  const id = `msg_${String(Date.now())}`
  const at = new Date()
  return fetch(`${apiUrl}/api/v1/inbound/sms/`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'leadline-organization': organizationId,
      'webhook-id': id,
      'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
      'webhook-signature': new Webhook(secret).sign(id, at, body),
    },
    body,
  })
}

test('an incoming text lands in the rep’s inbox as a task; completing it archives it', async ({ page, demoStack }) => {
  const admin = demoUser(demoStack.users, 'admin')
  const rep = demoUser(demoStack.users, 'rep')
  const crm = new CrmClient(demoStack.apiUrl, admin.api_key)
  const me = await new CrmClient(demoStack.apiUrl, rep.api_key).request('GET', 'me/')
  const organizationId = String(jsonList(me.organizations)[0]?.id)
  // The rep's direct line: a text to it is the rep's to answer.
  const [line] = jsonList((await crm.request('GET', `phone_number/?type=internal&user_id=${String(me.id)}`)).data)
  expect(line?.number).toEqual(expect.stringMatching(/^\+/))
  // From the range of London numbers set aside for fiction, which no demo contact has.
  const stamp = String(Date.now())
  const phone = `+442079460${stamp.slice(-3)}`
  const lead = await crm.createLead({
    name: `Inbound Text Co ${stamp}`,
    contacts: [{ name: 'Dee Sender', phones: [{ phone, type: 'mobile' }] }],
  })
  const secret = String((await crm.request('GET', 'inbound/secret/')).secret)
  const text = `Can you call me back about the quote? ${stamp}`
  const message = { id: `SM${stamp}`, remote_phone: phone, local_phone: line?.number, text }

  // Signed with another secret, it is refused and stored nowhere.
  const forged = await postInboundSms(demoStack.apiUrl, organizationId, `whsec_${'A'.repeat(43)}=`, message)
  expect(forged.status).toBe(401)
  expect(jsonList((await crm.request('GET', `activity/?lead_id=${lead.id}&_type__in=SMS`)).data)).toEqual([])

  const answer = await postInboundSms(demoStack.apiUrl, organizationId, secret, message)
  expect(answer.status).toBe(200)
  const stored = jsonRecord(await answer.json())
  expect(stored.lead_id).toBe(lead.id)
  const taskId = String(stored.task_id)

  await signInAs(page, rep)
  await page
    .getByRole('navigation', { name: 'Main' })
    .getByRole('link', { name: /^Inbox/ })
    .click()
  await expect(page.getByRole('heading', { level: 1, name: 'Inbox' })).toBeVisible()
  const row = page.locator(`li[data-task-id="${taskId}"]`)
  await expect(row).toContainText(`Text from +44 20 7946 0${stamp.slice(-3)}`)
  await expect(row).toContainText(text)
  await expect(row).toContainText(`Inbound Text Co ${stamp}`)
  await expectAccessible(page)

  await row.getByRole('checkbox', { name: /^Complete: / }).click()
  await expect(row).toHaveCount(0)
  await expect.poll(async () => (await crm.request('GET', `task/${taskId}/`)).is_complete).toBe(true)

  await page.getByRole('navigation', { name: 'Task lists' }).getByRole('link', { name: 'Archive' }).click()
  await expect(page.getByRole('heading', { level: 1, name: 'Archive' })).toBeVisible()
  await expect(row).toContainText(text)
  await expect(row.getByRole('checkbox', { name: /^Reopen: / })).toBeChecked()
  await expectAccessible(page)

  // On the lead's page the text opens the conversation with its contact.
  await page.goto(`/leads/${lead.id}`)
  const conversation = page
    .getByRole('region', { name: 'Activity' })
    .getByRole('article', { name: 'Text messages with Dee Sender' })
  await expect(conversation).toContainText(text)
  await expect(conversation).toContainText('Received')
})
