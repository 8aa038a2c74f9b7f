// @vitest-environment jsdom
import { screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { describe, expect, it } from 'vitest'
import type { WebhookDeliveryAttempt, WebhookSubscription } from '@leadline/shared/webhook-schema'
import { adminSession, axeViolations, descriptionOf, fakeServer, renderScreen } from '../../lib/screen-fixture'
import { WebhooksPage } from './webhooks-page'

const wonFilter = {
  type: 'field_accessor',
  field: 'data',
  filter: { type: 'field_accessor', field: 'status_label', filter: { type: 'equals', value: 'Won' } },
}

const hook: WebhookSubscription = {
  id: 'whsub_1',
  url: 'https://hooks.example.com/leadline',
  events: [{ object_type: 'lead', action: 'updated', extra_filter: wonFilter }],
  verify_ssl: true,
  status: 'active',
  status_reason: null,
  organization_id: 'orga_1',
  created_by: 'user_ann',
  updated_by: 'user_ann',
  date_created: '2026-11-20T09:00:00.000000+00:00',
  date_updated: '2026-11-20T09:00:00.000000+00:00',
}
const pausedHook: WebhookSubscription = {
  ...hook,
  id: 'whsub_2',
  url: 'https://other.example.com/in',
  events: [{ object_type: 'opportunity', action: 'created', extra_filter: null }],
  status: 'paused',
  status_reason: 'paused by Ann Admin',
}

const attempt = (over: Partial<WebhookDeliveryAttempt>): WebhookDeliveryAttempt => ({
  id: 'outboxattempt_1',
  delivery_id: 'outbox_1',
  event_id: 'ev_1',
  attempt: 1,
  url: hook.url,
  status_code: 200,
  duration_ms: 12,
  error: null,
  date_created: '2026-11-28T10:00:00.000000+00:00',
  object_type: 'lead',
  action: 'updated',
  delivery_state: 'delivered',
  delivery_attempts: 1,
  next_attempt_at: null,
  ...over,
})

const list = <T,>(data: T[]) => ({ body: { has_more: false, data } })

function webhooksServer(subscriptions: WebhookSubscription[] = [hook, pausedHook]) {
  return fakeServer({
    'GET /auth/session': { body: adminSession },
    'GET /api/v1/webhook/': list(subscriptions),
  })
}

const rowOf = async (name: string) => {
  const row = (await screen.findByRole('rowheader', { name })).closest('tr')
  if (row === null) throw new Error(`no row for ${name}`)
  return row
}

describe('Settings → Webhooks', () => {
  it('lists the subscriptions with their events, status and filter in words, and is clean under axe', async () => {
    webhooksServer()
    renderScreen(WebhooksPage)
    expect(await screen.findByRole('heading', { level: 1, name: 'Webhooks' })).toBeTruthy()
    const table = screen.getByRole('table', { name: 'Subscriptions' })
    const headers = within(table)
      .getAllByRole('columnheader')
      .map((h) => h.textContent)
    expect(headers.slice(0, 4)).toEqual(['URL', 'Events', 'Status', 'Filter'])
    const active = await rowOf(hook.url)
    expect(active.textContent).toContain('lead updated')
    expect(active.textContent).toContain('Events where status label is "Won".')
    expect(within(active).getByRole('button', { name: 'Pause' })).toBeTruthy()
    const paused = await rowOf(pausedHook.url)
    expect(paused.textContent).toContain('paused by Ann Admin')
    expect(paused.textContent).toContain('Every event.')
    expect(within(paused).getByRole('button', { name: 'Resume' })).toBeTruthy()
    expect(await axeViolations()).toEqual([])
  })

  it('pauses, resumes, and deletes only once confirmed', async () => {
    const server = webhooksServer()
    server.answers['PUT /api/v1/webhook/whsub_1/'] = (body) => ({ body: { ...hook, ...(body as object) } })
    server.answers['PUT /api/v1/webhook/whsub_2/'] = (body) => ({ body: { ...pausedHook, ...(body as object) } })
    server.answers['DELETE /api/v1/webhook/whsub_1/'] = { body: {} }
    renderScreen(WebhooksPage)
    const user = userEvent.setup()
    await user.click(within(await rowOf(hook.url)).getByRole('button', { name: 'Pause' }))
    await user.click(within(await rowOf(pausedHook.url)).getByRole('button', { name: 'Resume' }))
    await waitFor(() => {
      expect(server.bodiesOf('PUT /api/v1/webhook/whsub_1/')).toEqual([{ status: 'paused' }])
      expect(server.bodiesOf('PUT /api/v1/webhook/whsub_2/')).toEqual([{ status: 'active' }])
    })

    await user.click(within(await rowOf(hook.url)).getByRole('button', { name: 'Delete' }))
    const dialog = await screen.findByRole('dialog', { name: `Delete the webhook to ${hook.url}?` })
    expect(server.bodiesOf('DELETE /api/v1/webhook/whsub_1/')).toHaveLength(0)
    await user.click(within(dialog).getByRole('button', { name: 'Delete' }))
    await waitFor(() => {
      expect(server.sent.filter((r) => r.method === 'DELETE')).toHaveLength(1)
    })
  })

  it('validates the filter as it is typed, says what it matches, and shows the signature key once', async () => {
    const server = webhooksServer([])
    server.answers['POST /api/v1/webhook/'] = (body) => {
      const made = { ...hook, id: 'whsub_new', ...(body as object) }
      server.answers['GET /api/v1/webhook/'] = list([made])
      return { status: 201, body: { ...made, signature_key: 'ab'.repeat(32) } }
    }
    renderScreen(WebhooksPage)
    const user = userEvent.setup()
    await user.click(await screen.findByRole('button', { name: 'Add webhook' }))
    const dialog = await screen.findByRole('dialog', { name: 'Add webhook' })
    await user.type(within(dialog).getByRole('textbox', { name: /^URL/ }), hook.url)
    await user.click(within(dialog).getByRole('checkbox', { name: 'updated' }))
    const filter = within(dialog).getByRole('textbox', { name: 'Filter (JSON)' })
    await user.click(filter)
    await user.paste('{"type": "equal", "value": 1}')
    expect(filter.getAttribute('aria-invalid')).toBe('true')
    expect(descriptionOf(filter)).toContain('filter.type: unknown filter type "equal"')
    // Nothing goes to the API while the filter is wrong.
    await user.click(within(dialog).getByRole('button', { name: 'Save webhook' }))
    expect(server.bodiesOf('POST /api/v1/webhook/')).toHaveLength(0)

    await user.clear(filter)
    await user.paste(JSON.stringify(wonFilter))
    expect(filter.getAttribute('aria-invalid')).toBeNull()
    expect(within(dialog).getByText('Matches: Events where status label is "Won".')).toBeTruthy()
    expect(await axeViolations()).toEqual([])
    await user.click(within(dialog).getByRole('button', { name: 'Save webhook' }))

    const keyDialog = await screen.findByRole('dialog', { name: 'Signature key' })
    expect(server.bodiesOf('POST /api/v1/webhook/')).toEqual([
      { url: hook.url, events: [{ object_type: 'lead', action: 'updated', extra_filter: wonFilter }] },
    ])
    expect(within(keyDialog).getByLabelText('Signature key').textContent).toBe('ab'.repeat(32))
    expect(keyDialog.textContent).toContain('it will not be shown again')
    await user.click(within(keyDialog).getByRole('button', { name: 'Done' }))
    await waitFor(() => {
      expect(screen.queryByRole('dialog')).toBeNull()
    })
    expect(document.body.textContent).not.toContain('ab'.repeat(32))
    expect(await rowOf(hook.url)).toBeTruthy()
  })

  it('shows the API’s field errors beside their fields', async () => {
    const server = webhooksServer([])
    server.answers['POST /api/v1/webhook/'] = {
      status: 400,
      body: {
        errors: [],
        'field-errors': {
          url: 'Must be an https URL.',
          'events.0.extra_filter.filter.value': 'Too deep.',
        },
      },
    }
    renderScreen(WebhooksPage)
    const user = userEvent.setup()
    await user.click(await screen.findByRole('button', { name: 'Add webhook' }))
    const dialog = await screen.findByRole('dialog', { name: 'Add webhook' })
    await user.click(within(dialog).getByRole('button', { name: 'Save webhook' }))
    expect(within(dialog).getByText('Choose at least one action.')).toBeTruthy()
    expect(server.bodiesOf('POST /api/v1/webhook/')).toHaveLength(0)
    await user.type(within(dialog).getByRole('textbox', { name: /^URL/ }), 'http://x')
    await user.click(within(dialog).getByRole('checkbox', { name: 'created' }))
    await user.click(within(dialog).getByRole('button', { name: 'Save webhook' }))
    const url = within(dialog).getByRole('textbox', { name: /^URL/ })
    await waitFor(() => {
      expect(descriptionOf(url)).toContain('Must be an https URL.')
    })
    expect(descriptionOf(within(dialog).getByRole('textbox', { name: 'Filter (JSON)' }))).toContain('Too deep.')
  })

  it('shows a delivery log that redelivers an entry and sends a test event', async () => {
    const server = webhooksServer([hook])
    server.answers['GET /api/v1/webhook/whsub_1/deliveries/'] = list([
      attempt({
        id: 'outboxattempt_3',
        delivery_id: 'outbox_2',
        status_code: 503,
        delivery_state: 'retrying',
        next_attempt_at: '2026-11-28T10:05:00.000000+00:00',
      }),
      attempt({ id: 'outboxattempt_2', attempt: 2, delivery_attempts: 2 }),
      attempt({ status_code: 500, delivery_attempts: 2 }),
    ])
    const delivery = { id: 'outbox_9', subscription_id: 'whsub_1', state: 'pending' }
    server.answers['POST /api/v1/webhook/whsub_1/deliveries/outbox_1/redeliver/'] = { body: delivery }
    server.answers['POST /api/v1/webhook/whsub_1/test/'] = { body: delivery }
    renderScreen(WebhooksPage)
    const user = userEvent.setup()
    await user.click(within(await rowOf(hook.url)).getByRole('button', { name: 'Deliveries' }))
    const dialog = await screen.findByRole('dialog', { name: `Deliveries of ${hook.url}` })
    const log = await within(dialog).findByRole('table', { name: `Deliveries of ${hook.url}` })
    const headers = within(log)
      .getAllByRole('columnheader')
      .map((h) => h.textContent)
    expect(headers.slice(0, 6)).toEqual(['Time', 'Event', 'Status', 'Attempts', 'Response', 'Next retry'])
    // One entry per delivery, as its newest attempt tells it.
    const rows = within(log).getAllByRole('row').slice(1)
    expect(rows).toHaveLength(2)
    expect(rows[0]?.textContent).toContain('Retrying')
    expect(rows[0]?.textContent).toContain('503')
    expect(rows[0]?.textContent).not.toContain('—')
    expect(rows[1]?.textContent).toContain('lead updated')
    expect(rows[1]?.textContent).toContain('Delivered')
    expect(rows[1]?.textContent).toContain('200')
    expect(await axeViolations()).toEqual([])

    const second = rows[1]
    if (second === undefined) throw new Error('no second entry')
    await user.click(within(second).getByRole('button', { name: 'Redeliver' }))
    await user.click(within(dialog).getByRole('button', { name: 'Send test event' }))
    await waitFor(() => {
      expect(server.bodiesOf('POST /api/v1/webhook/whsub_1/deliveries/outbox_1/redeliver/')).toHaveLength(1)
      expect(server.bodiesOf('POST /api/v1/webhook/whsub_1/test/')).toHaveLength(1)
    })
    expect(await screen.findByText('Queued for delivery again')).toBeTruthy()
  })

  it('tells a non-admin that settings are for admins, without asking for the webhooks', async () => {
    const server = webhooksServer()
    server.answers['GET /auth/session'] = { body: { ...adminSession, role: 'user' } }
    renderScreen(WebhooksPage)
    expect(await screen.findByRole('heading', { name: 'Only admins can change settings' })).toBeTruthy()
    expect(screen.getByText(/settings of Acme Sales .* are managed by its admins/)).toBeTruthy()
    // What they may change themselves is a link away.
    expect(screen.getByRole('link', { name: 'your profile' }).getAttribute('href')).toBe('/settings/profile')
    expect(server.sent.map((r) => r.path)).not.toContain('/api/v1/webhook/')
  })
})
