// @vitest-environment jsdom
import { screen, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { describe, expect, it } from 'vitest'
import type { AuditEntry } from '@leadline/shared/audit-log-schema'
import { adminSession, fakeServer, renderScreen } from '../../lib/screen-fixture'
import { AuditLogPage } from './audit-log-page'

const signIn: AuditEntry = {
  id: 'ev_1',
  date_created: '2026-10-01T09:00:00.000000+00:00',
  action: 'sign_in',
  user_id: 'user_ann',
  actor_name: 'Ann Admin',
  actor_email: 'ann@example.com',
  object_type: 'user',
  object_id: 'user_ann',
  client_address: '203.0.113.9',
  details: { method: 'password' },
  request_id: 'req_1',
  api_key_id: 'key_1',
}
const failed: AuditEntry = {
  ...signIn,
  id: 'ev_2',
  action: 'sign_in_failed',
  user_id: null,
  actor_name: null,
  actor_email: 'who@example.com',
  client_address: '198.51.100.4',
  details: { reason: 'password' },
}
const byCommand: AuditEntry = {
  ...signIn,
  id: 'ev_3',
  action: 'api_key_created',
  user_id: null,
  actor_name: null,
  actor_email: null,
  object_type: 'api_key',
  object_id: 'key_2',
  client_address: null,
  details: { user_id: 'user_ann', source: 'leadline key create' },
  request_id: null,
  api_key_id: null,
}

describe('Settings → Audit log', () => {
  it('lists who did what, from where, and exports what the filters keep', async () => {
    fakeServer({
      'GET /auth/session': { body: adminSession },
      'GET /api/v1/membership/': { body: { has_more: false, data: [] } },
      'GET /api/v1/audit_log/': { body: { has_more: false, data: [signIn, failed, byCommand] } },
    })
    renderScreen(AuditLogPage)
    expect(await screen.findByRole('heading', { level: 1, name: 'Audit log' })).toBeTruthy()
    const table = await screen.findByRole('table', { name: 'Audit log' })
    const rows = within(table).getAllByRole('row').slice(1)
    expect(
      rows.map((row) =>
        within(row)
          .getAllByRole('cell')
          .slice(1)
          .map((c) => c.textContent),
      ),
    ).toEqual([
      ['Ann Admin', 'Sign in', 'user user_ann (method: password)', '203.0.113.9'],
      ['who@example.com', 'Sign in failed', 'user user_ann (reason: password)', '198.51.100.4'],
      [
        'Server: leadline key create',
        'API key created',
        'api key key_2 (user id: user_ann, source: leadline key create)',
        '',
      ],
    ])
    const csv = screen.getByRole('link', { name: 'Export CSV' })
    expect(csv.getAttribute('href')).toBe('/api/v1/audit_log/csv/')
    await userEvent.selectOptions(screen.getByLabelText('Action'), 'API key revoked')
    expect(csv.getAttribute('href')).toBe('/api/v1/audit_log/csv/?action=api_key_revoked')
  })
})
