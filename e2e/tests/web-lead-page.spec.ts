import type { Locator } from '@playwright/test'
import { expect, signIn, test } from '../fixtures.js'
import { withoutLiveUpdates, withoutPageAnswers } from '../journeys.js'

test('an activity type this build does not know shows as a plain entry, and the page still works', async ({
  page,
  stack,
  api,
}) => {
  const lead = await api.createLead({ name: 'Future Activity Co' })
  // The API will send Call, Email… activities (later issues); answer the timeline with one as it will look.
  await withoutPageAnswers(page)
  await page.route(
    (url) => url.pathname === '/api/v1/activity/',
    async (route) => {
      const response = await route.fetch()
      const body: unknown = await response.json()
      const data: unknown[] =
        typeof body === 'object' && body !== null && 'data' in body && Array.isArray(body.data) ? body.data : []
      const call = {
        id: 'acti_call0000000000000000000000000000000000000000',
        _type: 'Call',
        lead_id: lead.id,
        user_name: 'Casey Closer',
        date_created: '2026-03-02T15:04:05.000000+00:00',
        note: 'Discussed the renewal',
        duration: 310,
        direction: 'outbound',
      }
      await route.fulfill({ response, json: { has_more: false, data: [call, ...data] } })
    },
  )
  await signIn(page, stack.apiKey)
  await page.goto(`/leads/${lead.id}`)
  await expect(page.getByRole('heading', { name: 'Future Activity Co' })).toBeVisible()
  const call = page.getByRole('article', { name: 'Call by Casey Closer' })
  await expect(call).toBeVisible()
  await expect(call).toContainText('Discussed the renewal')
  await expect(page.getByRole('article', { name: /^Created by/ })).toBeVisible()
})

test('a status the API refuses goes back to the old one, says so, and logs no change', async ({ page, stack, api }) => {
  const lead = await api.createLead({ name: 'Refused Status Co' })
  const doomed = await api.request('POST', 'status/lead/', { label: 'Short-lived' })
  // Live updates would take the deleted status out of the picker at once.
  await withoutLiveUpdates(page)
  await signIn(page, stack.apiKey)
  await page.goto(`/leads/${lead.id}`)
  const picker = page.getByRole('combobox', { name: 'Status' })
  await expect(picker.locator('option:checked')).toHaveText('Potential')
  await expect(picker.getByRole('option', { name: 'Short-lived' })).toHaveCount(1)
  await expect(page.getByRole('article', { name: /^Created by/ })).toBeVisible()

  // An admin deletes the status while the page still offers it: the API refuses it for real.
  await api.request('DELETE', `status/lead/${String(doomed.id)}/`)
  const refusal = page.waitForResponse(
    (response) => response.url().endsWith(`/api/v1/lead/${lead.id}/`) && response.request().method() === 'PUT',
  )
  await picker.selectOption('Short-lived')
  const message = `Not a valid choice. Add "${String(doomed.id)}" to the organization's lead statuses first.`
  const response = await refusal
  expect(response.status()).toBe(400)
  expect(await response.json()).toEqual({ errors: [], 'field-errors': { status: message } })

  const toast = page.getByRole('alert').filter({ hasText: 'The status was not changed to Short-lived' })
  await expect(toast).toBeVisible()
  await expect(toast).toContainText(`${message} It is back to Potential.`)
  await expect(picker.locator('option:checked')).toHaveText('Potential')
  await expect(page.getByRole('article', { name: /^Created by/ })).toBeVisible()
  await expect(page.locator('[data-activity-type="LeadStatusChange"]')).toHaveCount(0)
  expect((await api.request('GET', `lead/${lead.id}/`)).status_label).toBe('Potential')
})

test('a lead URL links over https when typed as a bare domain, and a URL of another scheme is only text', async ({
  page,
  stack,
  api,
}) => {
  const lead = await api.createLead({
    name: 'Linked Url Co',
    url: 'acme-links.example.com',
    contacts: [{ name: 'Lin Link', urls: [{ url: 'https://lin.example.com/' }] }],
  })
  // The API refuses such URLs today; data imported before, or from elsewhere, may still hold one.
  await withoutPageAnswers(page)
  await page.route(
    (url) => url.pathname === `/api/v1/lead/${lead.id}/`,
    async (route) => {
      const response = await route.fetch()
      const body: unknown = await response.json()
      if (typeof body !== 'object' || body === null) return route.fulfill({ response })
      const contact = { id: 'cont_x', name: 'Lin Link', display_name: 'Lin Link', title: '', emails: [], phones: [] }
      const urls = [{ type: 'url', url: 'javascript:alert(document.domain)' }]
      return route.fulfill({ response, json: { ...body, contacts: [{ ...contact, urls }] } })
    },
  )
  await signIn(page, stack.apiKey)
  await page.goto(`/leads/${lead.id}`)
  const details = page.getByRole('region', { name: 'Details' })
  await expect(details.getByRole('link', { name: 'acme-links.example.com' })).toHaveAttribute(
    'href',
    'https://acme-links.example.com/',
  )
  const contacts = page.getByRole('region', { name: 'Contacts' })
  await expect(contacts.getByText('javascript:alert(document.domain)')).toBeVisible()
  await expect(contacts.getByRole('link', { name: /javascript/ })).toHaveCount(0)
})

/** A computed colour as sRGB channels: Chromium reports Tailwind's oklch() colours as written, so a canvas converts. */
function rgb(target: Locator, property: 'color' | 'background-color'): Promise<[number, number, number]> {
  return target.evaluate((element, name) => {
    const context = document.createElement('canvas').getContext('2d', { willReadFrequently: true })
    if (context === null) throw new Error('no 2d canvas')
    context.fillStyle = getComputedStyle(element).getPropertyValue(name)
    context.fillRect(0, 0, 1, 1)
    const [r = 0, g = 0, b = 0] = context.getImageData(0, 0, 1, 1).data
    return [r, g, b]
  }, property)
}

function isRed([r, g, b]: [number, number, number]): boolean {
  return r > 120 && r > 2 * g && r > 2 * b
}

test('destructive buttons are red: the caller’s colour beats the variant’s', async ({ page, stack, api }) => {
  const lead = await api.createLead({
    name: 'Red Button Co',
    contacts: [{ name: 'Rhoda Red' }],
    addresses: [{ label: 'business', address_1: '1 Crimson Way', city: 'Redding', country: 'US' }],
  })
  await signIn(page, stack.apiKey)
  await page.goto(`/leads/${lead.id}`)

  const deleteLead = page.getByRole('button', { name: 'Delete lead' })
  expect(isRed(await rgb(deleteLead, 'color')), 'Delete lead text').toBe(true)
  expect(isRed(await rgb(page.getByRole('button', { name: 'Delete contact Rhoda Red' }), 'color'))).toBe(true)

  await page.getByRole('button', { name: 'Edit addresses' }).click()
  const remove = page.getByRole('dialog', { name: 'Edit addresses' }).getByRole('button', { name: 'Remove address 1' })
  expect(isRed(await rgb(remove, 'color')), 'Remove address text').toBe(true)
  await page.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click()

  await deleteLead.click()
  const confirm = page.getByRole('dialog').getByRole('button', { name: 'Delete', exact: true })
  expect(isRed(await rgb(confirm, 'background-color')), 'Delete background').toBe(true)
  expect(await rgb(confirm, 'color')).toEqual([255, 255, 255])
})

test('a lead’s opportunities show on its page with their value, and their status changes on its timeline', async ({
  page,
  stack,
  api,
}) => {
  const lead = await api.createLead({ name: 'Deal Flow Co' })
  const opportunity = await api.request('POST', 'opportunity/', {
    lead_id: lead.id,
    value: 150_000,
    note: 'Annual licence',
    confidence: 60,
  })
  const statuses = await api.request('GET', 'status/opportunity/')
  const won = (statuses.data as { id: string; type: string; label: string }[]).find((s) => s.type === 'won')
  if (won === undefined || typeof opportunity.id !== 'string') throw new Error('no won status or opportunity')
  await api.request('PUT', `opportunity/${opportunity.id}/`, { status_id: won.id })

  await signIn(page, stack.apiKey)
  await page.goto(`/leads/${lead.id}`)
  await expect(page.getByRole('heading', { name: 'Deal Flow Co' })).toBeVisible()
  const panel = page.getByRole('region', { name: 'Opportunities' })
  await expect(panel).toContainText(won.label)
  await expect(panel).toContainText('$1,500')
  await expect(panel).toContainText('Annual licence')
  const changes = page.locator('article[data-activity-type="OpportunityStatusChange"]')
  await expect(changes).toHaveCount(2)
  await expect(changes.first()).toContainText(`to ${won.label} ($1,500)`)
})
