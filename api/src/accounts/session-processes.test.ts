import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { AUTH_CACHE_SECONDS } from '../platform/security/auth-cache.js'
import { call } from '../tooling/test-support/test-app.js'
import { createTwoApps, type TwoApps } from '../tooling/test-support/two-apps.js'
import { setPassword } from './account-repo.js'

// Two api processes on one database (each its own caches), as a scaled-out deployment runs them.

const PASSWORD = 'quiet lantern orbit 7 maple'

let apps: TwoApps
beforeAll(async () => {
  apps = await createTwoApps()
})
afterAll(async () => {
  await apps.close()
})

describe('a session ended on one api process', () => {
  it('is refused by the other within the auth cache’s window, at most 5 seconds', async () => {
    expect(AUTH_CACHE_SECONDS).toBeLessThanOrEqual(5)
    const org = await apps.createOrg('Two processes')
    await setPassword(apps.a.database.db, apps.clock, org.member.id, PASSWORD)
    const user = await apps.a.database.db
      .selectFrom('user')
      .select('email')
      .where('id', '=', org.member.id)
      .executeTakeFirstOrThrow()
    const signIn = await call(apps.a.app, undefined, 'POST', '/auth/sign_in/', {
      body: { email: user.email, password: PASSWORD },
    })
    const session = signIn.json()
    // Process b has verified the key, so it holds it in its cache.
    expect((await call(apps.b.app, session.api_key, 'GET', '/me/')).statusCode).toBe(200)
    const out = await call(apps.a.app, session.api_key, 'DELETE', `/auth/session/${String(session.api_key_id)}/`)
    expect(out.statusCode).toBe(200)
    expect((await call(apps.a.app, session.api_key, 'GET', '/me/')).statusCode).toBe(401)
    apps.clock.advance(AUTH_CACHE_SECONDS * 1000)
    expect((await call(apps.b.app, session.api_key, 'GET', '/me/')).statusCode).toBe(401)
  })

  it('and a member deactivated on one is refused by the other within the same window, every key of theirs', async () => {
    const org = await apps.createOrg('Deactivated across processes')
    const session = (await call(apps.a.app, org.member.key, 'POST', '/auth/session/', { body: {} })).json()
    for (const key of [org.member.key, session.api_key])
      expect((await call(apps.b.app, key, 'GET', '/me/')).statusCode).toBe(200)
    const off = await call(apps.a.app, org.admin.key, 'POST', `/membership/${org.member.membershipId}/deactivate/`)
    expect(off.statusCode).toBe(200)
    apps.clock.advance(AUTH_CACHE_SECONDS * 1000)
    for (const key of [org.member.key, session.api_key])
      expect((await call(apps.b.app, key, 'GET', '/me/')).statusCode).toBe(401)
  })
})
