import { describe, expect, test } from 'vitest'
import {
  INVITATION_INVALID,
  KEY_FORMS,
  LINK_TOKEN,
  PASSWORD,
  RESET_INVALID,
  sessionPair,
  bffOnFakeApi,
} from './test-support/harness.js'

// The public pages of invitations and password resets speak to the api through the BFF: the api's answers pass as
// they are, an accepted invitation starts a session as a password sign-in does, and every call is limited as
// sign-ins are.

const stack = bffOnFakeApi({ signInAttempts: 3 })

const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  stack.bff.call(path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  })

/** What the fake api was sent at `path`, as JSON. */
function sentTo(path: string): Record<string, unknown> {
  const request = stack.upstream.requests.findLast((r) => r.url === path)
  if (request === undefined) throw new Error(`nothing reached ${path}`)
  expect(request.headers.authorization).toBeUndefined()
  expect(request.headers['x-forwarded-for']).toBe('127.0.0.1')
  return JSON.parse(request.body)
}

describe('invitations', () => {
  test('a lookup passes the api’s answer through, a refusal with its status', async () => {
    const found = await post('/auth/invitation/lookup', { token: LINK_TOKEN })
    expect(found.status).toBe(200)
    expect(found.json).toEqual({ email: 'ann@example.com', organization_name: 'Bluth Company', existing_user: false })
    expect(sentTo('/api/v1/auth/invitation/lookup/')).toEqual({ token: LINK_TOKEN })
    const refused = await post('/auth/invitation/lookup', { token: 'old' })
    expect(refused.status).toBe(400)
    expect(refused.json).toEqual({ error: INVITATION_INVALID })
  })

  test('accepting starts a session as a password sign-in does, and never shows the key', async () => {
    const accepted = await post('/auth/invitation/accept', {
      token: LINK_TOKEN,
      first_name: 'Ann',
      last_name: 'Veal',
      password: PASSWORD,
      time_zone: 'America/New_York',
      extra: 'not passed on',
    })
    expect(accepted.status, accepted.text).toBe(200)
    expect(accepted.json).toMatchObject({ user: { id: 'user_ann' }, role: 'admin', time_zone: 'America/New_York' })
    for (const form of KEY_FORMS) expect(accepted.text).not.toContain(form)
    const sent = sentTo('/api/v1/auth/invitation/accept/')
    expect(sent).toMatchObject({ token: LINK_TOKEN, first_name: 'Ann', last_name: 'Veal', password: PASSWORD })
    expect(sent).toHaveProperty('idle_seconds')
    expect(sent).not.toHaveProperty('extra')
    const cookie = sessionPair(accepted.setCookies)
    expect(cookie).toMatch(/^__Host-leadline_session=/)
    const session = await stack.bff.call('/auth/session', { cookie })
    expect(session.json).toMatchObject({ user: { id: 'user_ann' }, organization: { name: 'Bluth Company' } })
    expect((await stack.bff.call('/api/v1/lead/', { cookie })).status).toBe(200)
  })

  test('without a time zone the session starts in UTC; a zone that is not one is refused by field', async () => {
    const accepted = await post('/auth/invitation/accept', { token: LINK_TOKEN, password: PASSWORD })
    expect(accepted.status).toBe(200)
    expect(accepted.json).toMatchObject({ time_zone: 'UTC' })
    const bad = await post('/auth/invitation/accept', { token: LINK_TOKEN, password: PASSWORD, time_zone: 'Mars/Base' })
    expect(bad.status).toBe(400)
    expect(bad.json).toEqual({
      errors: [],
      'field-errors': { time_zone: '"Mars/Base" is not a known IANA time zone.' },
    })
  })

  test('passes refusals through with their status and body, and starts no session', async () => {
    const weak = await post('/auth/invitation/accept', { token: LINK_TOKEN, password: 'short' })
    expect(weak.status).toBe(400)
    expect(weak.json).toEqual({ errors: [], 'field-errors': { password: 'Use at least 12 characters.' } })
    expect(weak.setCookies).toEqual([])
    const invalid = await post('/auth/invitation/accept', { token: 'old', password: PASSWORD })
    expect(invalid.status).toBe(400)
    expect(invalid.json).toEqual({ error: INVITATION_INVALID })
    expect(invalid.setCookies).toEqual([])
  })
})

describe('password reset', () => {
  test('asking passes through, a 429 with its Retry-After', async () => {
    const asked = await post('/auth/password-reset', { email: 'ann@example.com' })
    expect(asked.status).toBe(200)
    expect(asked.json).toEqual({})
    expect(sentTo('/api/v1/auth/password_reset/')).toEqual({ email: 'ann@example.com' })
    const limited = await post('/auth/password-reset', { email: 'locked@example.com' })
    expect(limited.status).toBe(429)
    expect(limited.headers.get('retry-after')).toBe('120')
  })

  test('completing passes through and signs no one in', async () => {
    const done = await post('/auth/password-reset/complete', { token: LINK_TOKEN, password: PASSWORD })
    expect(done.status).toBe(200)
    expect(done.json).toEqual({})
    expect(done.setCookies).toEqual([])
    expect(sentTo('/api/v1/auth/password_reset/complete/')).toEqual({ token: LINK_TOKEN, password: PASSWORD })
    const invalid = await post('/auth/password-reset/complete', { token: 'old', password: PASSWORD })
    expect(invalid.status).toBe(400)
    expect(invalid.json).toEqual({ error: RESET_INVALID })
    expect(stack.upstream.requests.filter((r) => r.url === '/api/v1/me/')).toEqual([])
  })
})

describe('limits and CSRF', () => {
  test('refused links count as failed sign-ins, and past the limit every route answers 429 without asking the api', async () => {
    for (let i = 0; i < 3; i += 1)
      expect((await post('/auth/invitation/lookup', { token: `old${i}` })).status).toBe(400)
    const before = stack.upstream.requests.length
    for (const [path, body] of [
      ['/auth/invitation/lookup', { token: LINK_TOKEN }],
      ['/auth/invitation/accept', { token: LINK_TOKEN, password: PASSWORD }],
      ['/auth/password-reset', { email: 'ann@example.com' }],
      ['/auth/password-reset/complete', { token: LINK_TOKEN, password: PASSWORD }],
      ['/auth/session', { email: 'ann@example.com', password: PASSWORD, time_zone: 'UTC' }],
    ] as const) {
      const limited = await post(path, body)
      expect(limited.status, path).toBe(429)
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0)
    }
    expect(stack.upstream.requests.length).toBe(before)
  })

  test('every route needs X-Requested-With: leadline', async () => {
    for (const path of [
      '/auth/invitation/lookup',
      '/auth/invitation/accept',
      '/auth/password-reset',
      '/auth/password-reset/complete',
    ]) {
      const refused = await post(path, { token: LINK_TOKEN }, { 'x-requested-with': '' })
      expect(refused.status, path).toBe(403)
    }
    expect(stack.upstream.requests).toEqual([])
  })
})
