import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { provisionMember } from '../../crm/organizations/provision.js'
import { formatTimestamp } from '../data/time.js'
import { call, createTestContext, type TestContext } from '../../tooling/test-support/test-app.js'
import { revokeApiKey } from './api-key-repo.js'
import { AUTH_CACHE_SECONDS } from './auth-cache.js'

// A verified key is trusted for AUTH_CACHE_SECONDS on the app's clock; these tests move that clock.

let ctx: TestContext
beforeAll(async () => {
  ctx = await createTestContext()
})
afterAll(async () => {
  await ctx.close()
})

const WINDOW_MS = AUTH_CACHE_SECONDS * 1000

async function status(
  key: string,
  method: 'GET' | 'POST' | 'PUT' = 'GET',
  path = '/me/',
  body?: Record<string, unknown>,
) {
  const res = await call(ctx.app, key, method, path, body === undefined ? {} : { body })
  if (res.statusCode === 401) expect(res.headers['www-authenticate']).toBe('Basic realm="api"')
  return res.statusCode
}

describe('a revoked key', () => {
  it('keeps working until the cache window has passed since it was verified, then is refused for good', async () => {
    const org = await ctx.createOrg('Revoked')
    expect(await status(org.member.key)).toBe(200)
    await revokeApiKey(ctx.database.db, ctx.clock, org.member.keyId)
    expect(await status(org.member.key)).toBe(200)
    ctx.clock.advance(WINDOW_MS - 500)
    expect(await status(org.member.key)).toBe(200)
    ctx.clock.advance(500)
    expect(await status(org.member.key)).toBe(401)
    expect(await status(org.member.key)).toBe(401)
    ctx.clock.advance(WINDOW_MS)
    expect(await status(org.member.key)).toBe(401)
  })

  it('is refused at once when this process has not verified it recently', async () => {
    const org = await ctx.createOrg('Revoked before use')
    expect(await status(org.member.key)).toBe(200)
    ctx.clock.advance(WINDOW_MS)
    await revokeApiKey(ctx.database.db, ctx.clock, org.member.keyId)
    expect(await status(org.member.key)).toBe(401)
    expect(await status(org.admin.key)).toBe(200)
  })

  it('is refused once the window has passed even when the clock stepped back meanwhile', async () => {
    const org = await ctx.createOrg('Clock stepped back')
    const verifiedAt = ctx.clock.now()
    expect(await status(org.member.key)).toBe(200)
    await revokeApiKey(ctx.database.db, ctx.clock, org.member.keyId)
    // A wall clock can step back (an NTP correction, a resumed virtual machine): the window must not stretch.
    ctx.clock.set(new Date(verifiedAt.getTime() - 3_600_000))
    ctx.clock.advance(WINDOW_MS)
    expect(await status(org.member.key)).toBe(401)
    ctx.clock.set(new Date(verifiedAt.getTime() + WINDOW_MS))
  })
})

describe('a wrong secret for a key id this process has verified', () => {
  it('is refused every time, and the right key keeps working', async () => {
    const org = await ctx.createOrg('Wrong secrets')
    const key = org.member.key
    const keyId = org.member.keyId
    expect(key.startsWith(`${keyId}.`)).toBe(true)
    expect(await status(key)).toBe(200)
    const secret = key.slice(keyId.length + 1)
    const lastChanged = `${key.slice(0, -1)}${key.endsWith('A') ? 'B' : 'A'}`
    const wrong = [
      `${keyId}.${'A'.repeat(secret.length)}`,
      lastChanged,
      `${key}A`,
      key.slice(0, -1),
      `${keyId}.`,
      keyId,
      `${keyId}.${org.admin.key.slice(org.admin.keyId.length + 1)}`,
    ]
    for (let round = 0; round < 2; round++) {
      for (const presented of wrong) expect(await status(presented), presented).toBe(401)
      expect(await status(key)).toBe(200)
    }
  })
})

describe('a membership role changed in the database', () => {
  async function setRole(membershipId: string, role: 'admin' | 'user') {
    await ctx.database.db
      .updateTable('membership')
      .set({ role, date_updated: formatTimestamp(ctx.clock.now()) })
      .where('id', '=', membershipId)
      .execute()
  }

  it('admin → user: the key loses admin rights once the cache window has passed, and still reads', async () => {
    const org = await ctx.createOrg('Demoted')
    const boss = await provisionMember(ctx.database.db, ctx.clock, {
      organizationId: org.id,
      email: `boss-${org.id.slice(-8).toLowerCase()}@example.com`,
      role: 'admin',
    })
    expect(await status(boss.api_key, 'POST', '/status/lead/', { label: 'Before demotion' })).toBe(200)
    await setRole(boss.membership_id, 'user')
    ctx.clock.advance(WINDOW_MS)
    expect(await status(boss.api_key, 'POST', '/status/lead/', { label: 'After demotion' })).toBe(403)
    expect(await status(boss.api_key, 'PUT', `/organization/${org.id}/`, { name: 'Taken over' })).toBe(403)
    expect(await status(boss.api_key)).toBe(200)
    const statuses = await call(ctx.app, org.admin.key, 'GET', '/status/lead/')
    const statusLabels = statuses.json().data.map((s: { label: unknown }) => s.label)
    expect(statusLabels).toContain('Before demotion')
    expect(statusLabels).not.toContain('After demotion')
  })

  it('user → admin: the key gains admin rights once the cache window has passed', async () => {
    const org = await ctx.createOrg('Promoted')
    expect(await status(org.member.key, 'POST', '/status/lead/', { label: 'Before promotion' })).toBe(403)
    await setRole(org.member.membershipId, 'admin')
    ctx.clock.advance(WINDOW_MS)
    expect(await status(org.member.key, 'POST', '/status/lead/', { label: 'After promotion' })).toBe(200)
  })
})
