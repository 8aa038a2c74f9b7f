import { createHmac } from 'node:crypto'
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { CrmClient, expect, outboundDemoTest as test } from '../fixtures.js'
import { demoUser, expectAccessible, jsonRecord, signInAs } from '../journeys.js'

interface Received {
  headers: IncomingHttpHeaders
  body: string
}

/** A webhook receiver on this machine's loopback that answers 200 and keeps every request. */
async function startReceiver(): Promise<{ url: string; requests: Received[]; close: () => Promise<void> }> {
  const requests: Received[] = []
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      requests.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') })
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok')
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${String(port)}/leadline-hook`,
    requests,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections()
        server.close(() => {
          resolve()
        })
      }),
  }
}

/** The request's event, once its Close signature checks out with the subscription's key. */
function signedEvent(key: string, request: Received | undefined): Record<string, unknown> {
  if (request === undefined) throw new Error('no request')
  const timestamp = String(request.headers['close-sig-timestamp'])
  const expected = createHmac('sha256', Buffer.from(key, 'hex')).update(timestamp).update(request.body).digest('hex')
  expect(request.headers['close-sig-hash']).toBe(expected)
  return jsonRecord(jsonRecord(JSON.parse(request.body)).event)
}

test('an admin adds a webhook, sees its key once, and watches a lead change arrive, be redelivered and a test event follow', async ({
  page,
  demoStack,
}) => {
  test.setTimeout(90_000)
  const receiver = await startReceiver()
  try {
    const admin = demoUser(demoStack.users, 'admin')
    const api = new CrmClient(demoStack.apiUrl, admin.api_key)
    const lead = await api.createLead({ name: 'Hooked Journey Co' })

    await signInAs(page, admin)
    await page.goto('/settings/pipelines')
    await page.getByRole('navigation', { name: 'Settings' }).getByRole('link', { name: 'Webhooks' }).click()
    await expect(page.getByRole('heading', { level: 1, name: 'Webhooks' })).toBeVisible()
    await expect(page).toHaveTitle('Webhooks · Settings · Leadline')

    await page.getByRole('button', { name: 'Add webhook' }).click()
    const form = page.getByRole('dialog', { name: 'Add webhook' })
    await form.getByRole('textbox', { name: 'URL' }).fill(receiver.url)
    await form.getByRole('combobox', { name: 'Object type' }).selectOption('lead')
    await form.getByRole('checkbox', { name: 'updated', exact: true }).check()
    const filter = form.getByRole('textbox', { name: 'Filter (JSON)' })
    await filter.fill('{"type": "field_accessor", "field": "data"}')
    await expect(filter).toHaveAttribute('aria-invalid', 'true')
    await expect(form).toContainText('"field_accessor" filter needs "filter"')
    await filter.fill(
      JSON.stringify({
        type: 'field_accessor',
        field: 'data',
        filter: { type: 'field_accessor', field: 'name', filter: { type: 'equals', value: 'Hooked Journey Co' } },
      }),
    )
    await expect(filter).not.toHaveAttribute('aria-invalid', 'true')
    await expect(form).toContainText('Matches: Events where name is "Hooked Journey Co".')
    await expectAccessible(page)
    await form.getByRole('button', { name: 'Save webhook' }).click()

    const keyDialog = page.getByRole('dialog', { name: 'Signature key' })
    await expect(keyDialog).toContainText('it will not be shown again')
    const key = (await keyDialog.getByLabel('Signature key').textContent()) ?? ''
    expect(key).toMatch(/^[0-9a-f]{64}$/)
    await expectAccessible(page)
    await keyDialog.getByRole('button', { name: 'Done' }).click()
    await expect(keyDialog).toBeHidden()
    await expect(page.getByText(key)).toHaveCount(0)

    const row = page.getByRole('row').filter({ has: page.getByRole('rowheader', { name: receiver.url }) })
    await expect(row).toContainText('lead updated')
    await expect(row).toContainText('Active')
    await expect(row).toContainText('Events where name is "Hooked Journey Co".')

    // A lead changes through the API, as an integration would change it.
    await api.request('PUT', `lead/${lead.id}/`, { description: 'Asked for a webhook demo' })
    await expect.poll(() => receiver.requests.length, { timeout: 20_000 }).toBe(1)
    const delivered = signedEvent(key, receiver.requests[0])
    expect(delivered).toMatchObject({ object_type: 'lead', action: 'updated', object_id: lead.id })

    await row.getByRole('button', { name: 'Deliveries' }).click()
    const log = page.getByRole('dialog', { name: `Deliveries of ${receiver.url}` })
    const entries = log.getByRole('table', { name: `Deliveries of ${receiver.url}` }).getByRole('row')
    await expect(entries).toHaveCount(2, { timeout: 15_000 })
    const first = entries.nth(1)
    await expect(first).toContainText('lead updated')
    await expect(first).toContainText('Delivered')
    await expect(first).toContainText('200')
    await expectAccessible(page)

    await first.getByRole('button', { name: 'Redeliver' }).click()
    await expect.poll(() => receiver.requests.length, { timeout: 20_000 }).toBe(2)
    const again = signedEvent(key, receiver.requests[1])
    expect(again).toEqual(delivered)
    expect(receiver.requests[1]?.headers['webhook-id']).not.toBe(receiver.requests[0]?.headers['webhook-id'])
    // The log polls: the redelivery shows as a new entry, the old one stays.
    await expect(entries).toHaveCount(3, { timeout: 15_000 })
    await expect(entries.nth(1)).toContainText('lead updated')
    await expect(entries.nth(1)).toContainText('Delivered')

    await log.getByRole('button', { name: 'Send test event' }).click()
    await expect.poll(() => receiver.requests.length, { timeout: 20_000 }).toBe(3)
    expect(signedEvent(key, receiver.requests[2])).toMatchObject({ object_type: 'webhook', action: 'test' })
    await expect(entries).toHaveCount(4, { timeout: 15_000 })
    await expect(entries.nth(1)).toContainText('webhook test')
    await expect(entries.nth(1)).toContainText('200')
    await expectAccessible(page)
    await log.getByRole('button', { name: 'Close' }).click()
    await expect(log).toBeHidden()

    await row.getByRole('button', { name: 'Pause' }).click()
    await expect(row).toContainText('Paused')
    await row.getByRole('button', { name: 'Resume' }).click()
    await expect(row).toContainText('Active')

    await row.getByRole('button', { name: 'Delete' }).click()
    const confirm = page.getByRole('dialog', { name: `Delete the webhook to ${receiver.url}?` })
    await confirm.getByRole('button', { name: 'Delete' }).click()
    await expect(page.getByRole('rowheader', { name: receiver.url })).toHaveCount(0)
    const left = await api.request('GET', 'webhook/')
    expect(left.data).toEqual([])
  } finally {
    await receiver.close()
  }
})
