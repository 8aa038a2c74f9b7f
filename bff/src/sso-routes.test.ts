import { describe, expect, test } from 'vitest'
import { NEW_YORK, sessionPair, SSO_AUTHORIZATION_URL, SSO_STATE, bffOnFakeApi } from './test-support/harness.js'

// Single sign-on through the BFF: it sends the browser to the provider the api names and hands the URL the browser
// came back to to the api, against the harness's fake api.

const stack = bffOnFakeApi({ signInAttempts: 3 })

/** A navigation, as a browser makes it: no X-Requested-With. */
function navigate(path: string, cookie?: string) {
  return stack.bff.call(path, { headers: { 'x-requested-with': '' }, ...(cookie === undefined ? {} : { cookie }) })
}

function loginPair(setCookies: string[]): string {
  return (setCookies.find((c) => c.startsWith('__Host-leadline_sso=')) ?? '').split(';')[0] ?? ''
}

function ssoError(location: string | null): string | null {
  return new URL(location ?? '', 'http://x').searchParams.get('sso_error')
}

async function started(): Promise<string> {
  const start = await navigate(`/auth/sso/start?email=${encodeURIComponent('ann@sso.example')}&time_zone=${NEW_YORK}`)
  expect(start.status).toBe(302)
  expect(start.headers.get('location')).toBe(SSO_AUTHORIZATION_URL)
  return loginPair(start.setCookies)
}

describe('single sign-on', () => {
  test('start sends the browser to the provider, with a Lax cookie holding the state', async () => {
    const start = await navigate('/auth/sso/start?email=ann%40sso.example')
    expect(start.status).toBe(302)
    expect(start.headers.get('location')).toBe(SSO_AUTHORIZATION_URL)
    const asked = stack.upstream.requests.find((r) => r.url === '/api/v1/auth/sso/start/')
    expect(JSON.parse(asked?.body ?? '')).toEqual({ email: 'ann@sso.example' })
    const cookie = start.setCookies.find((c) => c.startsWith('__Host-leadline_sso=')) ?? ''
    expect(cookie).toContain(SSO_STATE)
    expect(cookie).toContain('SameSite=Lax')
    expect(cookie).toContain('HttpOnly')
  })

  test('the callback makes a session as a password sign-in does and goes home', async () => {
    const login = await started()
    const back = await navigate(`/auth/sso/callback?code=good&state=${SSO_STATE}`, login)
    expect(back.status).toBe(302)
    expect(back.headers.get('location')).toBe('/')
    const finish = stack.upstream.requests.find((r) => r.url === '/api/v1/auth/sso/finish/')
    const sent = JSON.parse(finish?.body ?? '') as Record<string, unknown>
    expect(new URL(String(sent.callback_url)).search).toBe(`?code=good&state=${SSO_STATE}`)
    expect(finish?.headers['x-forwarded-for']).toBe('127.0.0.1')
    const session = await stack.bff.call('/auth/session', { cookie: sessionPair(back.setCookies) })
    expect(session.json).toMatchObject({ user: { id: 'user_ann' }, time_zone: NEW_YORK })
  })

  test('a refusal goes back to sign-in with the api’s words, and no session', async () => {
    const login = await started()
    const back = await navigate(`/auth/sso/callback?code=stranger&state=${SSO_STATE}`, login)
    expect(back.status).toBe(302)
    expect(ssoError(back.headers.get('location'))).toBe(
      'No member of this organization uses that address; ask an admin for an invitation.',
    )
    expect(back.setCookies.some((c) => c.includes('leadline_session='))).toBe(false)
  })

  test('a callback in a browser that did not start the sign-in is refused without asking the api', async () => {
    const back = await navigate(`/auth/sso/callback?code=good&state=${SSO_STATE}`)
    expect(ssoError(back.headers.get('location'))).toMatch(/not started in this browser/)
    const other = await navigate(`/auth/sso/callback?code=good&state=another`, await started())
    expect(ssoError(other.headers.get('location'))).toMatch(/not started in this browser/)
    expect(stack.upstream.requests.some((r) => r.url === '/api/v1/auth/sso/finish/')).toBe(false)
  })

  test('an invitation’s page starts it with the link’s token, and a dead link goes back to sign-in saying so', async () => {
    const start = await navigate(`/auth/sso/start?invitation=good-invitation&time_zone=${NEW_YORK}`)
    expect(start.status).toBe(302)
    expect(start.headers.get('location')).toBe(SSO_AUTHORIZATION_URL)
    const asked = stack.upstream.requests.findLast((r) => r.url === '/api/v1/auth/sso/start/')
    expect(JSON.parse(asked?.body ?? '')).toEqual({ invitation: 'good-invitation' })
    const back = await navigate(`/auth/sso/callback?code=good&state=${SSO_STATE}`, loginPair(start.setCookies))
    expect(back.headers.get('location')).toBe('/')
    const dead = await navigate('/auth/sso/start?invitation=used-up')
    expect(ssoError(dead.headers.get('location'))).toBe('This invitation link is not valid any more.')
  })

  test('an address no provider covers goes back to sign-in saying so', async () => {
    const start = await navigate('/auth/sso/start?email=ann%40example.com')
    expect(start.status).toBe(302)
    expect(ssoError(start.headers.get('location'))).toBe('Single sign-on is not set up for example.com.')
  })

  test('is refused once the address has failed too often', async () => {
    for (let i = 0; i < 3; i++) await navigate(`/auth/sso/callback?code=good&state=${SSO_STATE}`)
    const start = await navigate('/auth/sso/start?email=ann%40sso.example')
    expect(ssoError(start.headers.get('location'))).toMatch(/Too many failed sign-ins/)
  })

  test('availability is passed through', async () => {
    const yes = await stack.bff.call('/auth/sso/available?email=ann%40sso.example')
    expect(yes.json).toEqual({ available: true })
    const no = await stack.bff.call('/auth/sso/available?email=ann%40example.com')
    expect(no.json).toEqual({ available: false })
  })
})
