// @vitest-environment jsdom
import { screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { describe, expect, it } from 'vitest'
import { adminSession, axeViolations, fakeServer, renderScreen } from '../../lib/screen-fixture'
import type { ApiKey } from '../profile/profile-queries'
import { ApiKeysPage } from './api-keys-page'

const rileysKey: ApiKey = {
  id: 'key_riley',
  description: 'Zapier sync',
  user_id: 'user_riley',
  user_name: 'Riley Rep',
  date_created: '2026-10-01T09:00:00.000000+00:00',
  date_last_used: null,
}
const annsKey: ApiKey = {
  ...rileysKey,
  id: 'key_ann',
  description: null,
  user_id: 'user_ann',
  user_name: 'Ann Admin',
  date_last_used: '2026-11-20T09:00:00.000000+00:00',
}

const list = (data: ApiKey[]) => ({ body: { has_more: false, data } })

function keysServer() {
  return fakeServer({
    'GET /auth/session': { body: adminSession },
    'GET /api/v1/api_key/': list([rileysKey, annsKey]),
  })
}

describe('Settings → API keys', () => {
  it('lists every key of the organization with its owner, whoever made it', async () => {
    keysServer()
    renderScreen(ApiKeysPage)
    expect(await screen.findByRole('heading', { level: 1, name: 'API keys' })).toBeTruthy()
    const table = screen.getByRole('table', { name: 'API keys' })
    expect(
      within(table)
        .getAllByRole('columnheader')
        .map((h) => h.textContent)
        .slice(0, 4),
    ).toEqual(['Description', 'Owner', 'Created', 'Last used'])
    const riley = within(table).getByRole('rowheader', { name: 'Zapier sync' }).closest('tr')
    if (riley === null) throw new Error('no row for Riley’s key')
    expect(within(riley).getByText('Riley Rep')).toBeTruthy()
    expect(within(riley).getByText('Never')).toBeTruthy()
    expect(within(table).getByRole('rowheader', { name: 'API key' })).toBeTruthy()
    expect(within(table).getByText('Ann Admin')).toBeTruthy()
    expect(await axeViolations()).toEqual([])
  })

  it('revokes another member’s key after the confirmation', async () => {
    const server = keysServer()
    server.answers['DELETE /api/v1/api_key/key_riley/'] = () => {
      server.answers['GET /api/v1/api_key/'] = list([annsKey])
      return { body: {} }
    }
    renderScreen(ApiKeysPage)
    const user = userEvent.setup()
    const row = (await screen.findByRole('rowheader', { name: 'Zapier sync' })).closest('tr')
    if (row === null) throw new Error('no row for Riley’s key')
    await user.click(within(row).getByRole('button', { name: 'Revoke' }))
    const dialog = await screen.findByRole('dialog', { name: 'Revoke “Zapier sync”?' })
    expect(server.bodiesOf('DELETE /api/v1/api_key/key_riley/')).toHaveLength(0)
    await user.click(within(dialog).getByRole('button', { name: 'Revoke' }))
    await waitFor(() => {
      expect(screen.queryByRole('rowheader', { name: 'Zapier sync' })).toBeNull()
    })
    expect(server.bodiesOf('DELETE /api/v1/api_key/key_riley/')).toHaveLength(1)
  })

  it('makes the admin’s own key and shows it once, with Copy', async () => {
    const server = keysServer()
    const made = { ...annsKey, id: 'key_new', description: 'Nightly export', date_last_used: null }
    server.answers['POST /api/v1/api_key/'] = () => {
      server.answers['GET /api/v1/api_key/'] = list([made, rileysKey, annsKey])
      return { body: { ...made, api_key: 'secret_key_value' } }
    }
    renderScreen(ApiKeysPage)
    const user = userEvent.setup()
    await user.type(await screen.findByRole('textbox', { name: 'What the key is for' }), 'Nightly export')
    await user.click(screen.getByRole('button', { name: 'Create API key' }))
    expect((await screen.findByLabelText('New API key')).textContent).toBe('secret_key_value')
    expect(server.bodiesOf('POST /api/v1/api_key/')).toEqual([{ description: 'Nightly export' }])
    expect(await screen.findByRole('rowheader', { name: 'Nightly export' })).toBeTruthy()
    expect(await axeViolations()).toEqual([])
    await user.click(screen.getByRole('button', { name: 'Copy' }))
    expect(await screen.findByRole('button', { name: 'Copied' })).toBeTruthy()
    expect(await navigator.clipboard.readText()).toBe('secret_key_value')
  })

  it('tells a non-admin that settings are for admins', async () => {
    const server = keysServer()
    server.answers['GET /auth/session'] = { body: { ...adminSession, role: 'user' } }
    renderScreen(ApiKeysPage)
    expect(await screen.findByRole('heading', { name: 'Only admins can change settings' })).toBeTruthy()
    expect(server.sent.map((r) => r.path)).not.toContain('/api/v1/api_key/')
  })
})
