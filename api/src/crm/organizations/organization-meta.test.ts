import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { InjectOptions } from 'fastify'
import { formatTimestamp } from '../../platform/data/time.js'
import { call, type TestOrg } from '../../tooling/test-support/test-app.js'
import { createTwoApps, type AppSide, type TwoApps } from '../../tooling/test-support/two-apps.js'
import { provisionMember } from './provision.js'

// Two apps on one database stand for two api processes, each with its own metadata cache and cached /me/ bodies.
// Every test warms B, changes the organization through A, and expects B's GET /organization/{id}/ and /me/ to show
// the change. Memberships and user names have no API: they change as the CLI (or an operator) changes them.

let apps: TwoApps
beforeAll(async () => {
  apps = await createTwoApps()
})
afterAll(async () => {
  await apps.close()
})

async function send(
  side: AppSide,
  key: string,
  method: InjectOptions['method'],
  path: string,
  body?: Record<string, unknown>,
) {
  const res = await call(side.app, key, method, path, body === undefined ? {} : { body })
  expect(res.statusCode, `${String(method)} ${path}: ${res.body}`).toBe(200)
  return res.json()
}

function throughA(org: TestOrg, method: InjectOptions['method'], path: string, body?: Record<string, unknown>) {
  return send(apps.a, org.admin.key, method, path, body)
}

/** What B serves the organization's plain user: the organization, on its own and inside /me/, and /me/ itself. */
async function seenThroughB(org: TestOrg) {
  const organization = await send(apps.b, org.member.key, 'GET', `/organization/${org.id}/`)
  const me = await send(apps.b, org.member.key, 'GET', '/me/')
  expect(me.organizations).toHaveLength(1)
  return { organizations: [organization, me.organizations[0]], me }
}

/** Warms B (twice, so the second read is served from its caches), runs `change`, and answers B's reads around it. */
async function changeThroughA(org: TestOrg, change: () => Promise<unknown>) {
  await seenThroughB(org)
  const before = await seenThroughB(org)
  await change()
  const after = await seenThroughB(org)
  return { before, after }
}

function expectEach(organizations: unknown[], expected: Record<string, unknown>) {
  expect(organizations).toHaveLength(2)
  for (const organization of organizations) expect(organization).toMatchObject(expected)
}

function labels(statuses: { label: unknown }[]): unknown[] {
  return statuses.map((s) => s.label)
}

describe('the organization changed through another app', () => {
  it('renamed', async () => {
    const org = await apps.createOrg('Initech')
    const { before, after } = await changeThroughA(org, () =>
      throughA(org, 'PUT', `/organization/${org.id}/`, { name: 'Initrode' }),
    )
    expectEach(before.organizations, { id: org.id, name: 'Initech' })
    expectEach(after.organizations, { id: org.id, name: 'Initrode' })
  })

  it('a lead status added, renamed and deleted', async () => {
    const org = await apps.createOrg('Lead statuses')
    const defaults = ['Potential', 'Bad Fit', 'Qualified', 'Customer']
    const added = await changeThroughA(org, () => throughA(org, 'POST', '/status/lead/', { label: 'Negotiating' }))
    for (const o of added.before.organizations) expect(labels(o.lead_statuses)).toEqual(defaults)
    for (const o of added.after.organizations) expect(labels(o.lead_statuses)).toEqual([...defaults, 'Negotiating'])
    const statuses = await throughA(org, 'GET', '/status/lead/')
    const negotiating = statuses.data.find((s: { label: unknown }) => s.label === 'Negotiating')
    const renamed = await changeThroughA(org, () =>
      throughA(org, 'PUT', `/status/lead/${String(negotiating.id)}/`, { label: 'In negotiation' }),
    )
    for (const o of renamed.after.organizations) {
      expect(labels(o.lead_statuses)).toEqual([...defaults, 'In negotiation'])
    }
    const deleted = await changeThroughA(org, () => throughA(org, 'DELETE', `/status/lead/${String(negotiating.id)}/`))
    for (const o of deleted.after.organizations) expect(labels(o.lead_statuses)).toEqual(defaults)
  })

  it('the lead statuses reordered', async () => {
    const org = await apps.createOrg('Reordered')
    const statuses = await throughA(org, 'GET', '/status/lead/')
    const ids = statuses.data.map((s: { id: unknown }) => s.id)
    const { before, after } = await changeThroughA(org, () =>
      throughA(org, 'PUT', `/organization/${org.id}/`, { lead_statuses: [...ids].reverse() }),
    )
    for (const o of before.organizations)
      expect(labels(o.lead_statuses)).toEqual(['Potential', 'Bad Fit', 'Qualified', 'Customer'])
    for (const o of after.organizations)
      expect(labels(o.lead_statuses)).toEqual(['Customer', 'Qualified', 'Bad Fit', 'Potential'])
  })

  it('an opportunity status added', async () => {
    const org = await apps.createOrg('Opportunity statuses')
    const { before, after } = await changeThroughA(org, () =>
      throughA(org, 'POST', '/status/opportunity/', { label: 'Verbal yes', type: 'active' }),
    )
    for (const o of before.organizations) expect(labels(o.opportunity_statuses)).not.toContain('Verbal yes')
    for (const o of after.organizations) expect(labels(o.opportunity_statuses)).toContain('Verbal yes')
  })

  it('a member added (as `leadline user add` adds one)', async () => {
    const org = await apps.createOrg('Members added')
    const { before, after } = await changeThroughA(org, () =>
      provisionMember(apps.a.database.db, apps.clock, {
        organizationId: org.id,
        email: `samir-${org.id.slice(-8).toLowerCase()}@example.com`,
        role: 'user',
        firstName: 'Samir',
        lastName: 'Nagheenanajar',
      }),
    )
    expectEach(before.organizations, { user_count: 2 })
    expectEach(after.organizations, { user_count: 3 })
    for (const o of after.organizations) {
      expect(o).toHaveProperty(['memberships', 2, 'user_full_name'], 'Samir Nagheenanajar')
    }
  })

  it('a member’s role changed (no API changes it: in the database, as an operator would)', async () => {
    const org = await apps.createOrg('Roles')
    const { before, after } = await changeThroughA(org, () =>
      apps.a.database.db
        .updateTable('membership')
        .set({ role: 'admin', date_updated: formatTimestamp(apps.clock.now()) })
        .where('id', '=', org.member.membershipId)
        .execute(),
    )
    const memberOf = (memberships: { id: unknown }[]) => memberships.find((m) => m.id === org.member.membershipId)
    for (const o of before.organizations) expect(memberOf(o.memberships)).toMatchObject({ role: 'user' })
    for (const o of after.organizations) expect(memberOf(o.memberships)).toMatchObject({ role: 'admin' })
    expect(before.me.memberships).toMatchObject([{ id: org.member.membershipId, role: 'user' }])
    expect(after.me.memberships).toMatchObject([{ id: org.member.membershipId, role: 'admin' }])
  })
})

describe('/me/ changed through another app', () => {
  it('a phone number given to the user', async () => {
    const org = await apps.createOrg('Phones')
    const { before, after } = await changeThroughA(org, () =>
      throughA(org, 'POST', '/phone_number/', { number: '+14155550123', label: 'Desk', user_id: org.member.id }),
    )
    expect(before.me.phone_numbers).toEqual([])
    expect(after.me.phone_numbers).toMatchObject([{ number: '+14155550123', label: 'Desk' }])
  })

  it('the user’s name changed (no API changes it: in the database, as an operator would)', async () => {
    const org = await apps.createOrg('Names')
    const { before, after } = await changeThroughA(org, () =>
      apps.a.database.db
        .updateTable('user')
        .set({ first_name: 'Rosa', date_updated: formatTimestamp(apps.clock.now()) })
        .where('id', '=', org.member.id)
        .execute(),
    )
    expect(before.me).toMatchObject({ id: org.member.id, first_name: 'Rey' })
    expect(after.me).toMatchObject({ id: org.member.id, first_name: 'Rosa', last_name: 'Rep' })
    expect(after.me.memberships).toMatchObject([{ user_full_name: 'Rosa Rep' }])
    for (const o of after.organizations) {
      expect(o).toHaveProperty(['memberships', 1, 'user_full_name'], 'Rosa Rep')
    }
  })
})
