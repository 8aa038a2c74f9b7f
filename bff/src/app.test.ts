import { readFile, stat, writeFile } from 'node:fs/promises'
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http'
import { join } from 'node:path'
import { gunzipSync } from 'node:zlib'
import { afterEach, beforeEach, describe, expect, test } from 'vitest'
import { SECURITY_HEADERS } from './app.js'
import { hashId, SESSION_DB_FILE } from './session.js'
import {
  assertNoKey,
  deadPort,
  DEMO_KEY,
  HANG_KEY,
  KEY,
  KEY_FORMS,
  SESSION_KEY,
  annAtTheApi,
  DEMO_SESSION_KEY,
  EXPORT_CSV,
  EXPORT_DOWNLOAD,
  FIELDS_PATH,
  PASSWORD,
  TWO_FACTOR_CODE,
  NEW_YORK,
  rawRequest,
  sessionPair,
  signIn,
  startBff,
  startFakeUpstream,
  tempDir,
  testConfig,
  type StartedBff,
} from './test-support/harness.js'

let upstream: Awaited<ReturnType<typeof startFakeUpstream>>
let dir: Awaited<ReturnType<typeof tempDir>>
let bff: StartedBff

beforeEach(async () => {
  upstream = await startFakeUpstream()
  dir = await tempDir()
  bff = await startBff(testConfig({ apiUrl: upstream.url, dataDir: dir.path }))
})

afterEach(async () => {
  await bff.close()
  await upstream.close()
  await dir.remove()
})

const json = { 'content-type': 'application/json' }

/** A GET whose answer is kept as the bytes that came, undecoded. */
function bytesOf(
  url: string,
  path: string,
  headers: Record<string, string>,
): Promise<{ status: number; headers: IncomingHttpHeaders; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url + path, { headers }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (chunk: Buffer) => chunks.push(chunk))
      res.on('end', () => {
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) })
      })
    })
    req.on('error', reject)
    req.end()
  })
}

/** A GET's answer with its fields as they came, in order, each line on its own. */
function rawFieldsOf(
  url: string,
  path: string,
  headers: Record<string, string>,
): Promise<{ status: number; fields: [string, string][]; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url + path, { headers }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (chunk: Buffer) => chunks.push(chunk))
      res.on('end', () => {
        const fields: [string, string][] = []
        for (let at = 0; at < res.rawHeaders.length; at += 2) {
          fields.push([res.rawHeaders[at] ?? '', res.rawHeaders[at + 1] ?? ''])
        }
        resolve({ status: res.statusCode ?? 0, fields, body: Buffer.concat(chunks) })
      })
    })
    req.on('error', reject)
    req.end()
  })
}

describe('sign-in', () => {
  test('a valid key makes a session; the answer and the cookie carry the user, never the key', async () => {
    const response = await bff.call('/auth/session', {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ api_key: KEY, time_zone: NEW_YORK }),
    })
    expect(response.status).toBe(200)
    expect(response.json).toEqual({
      user: {
        id: 'user_ann',
        first_name: 'Ann',
        last_name: 'Veal',
        email: 'ann@example.com',
        display_name: 'Ann Veal',
      },
      organization: { id: 'orga_test', name: 'Bluth Company' },
      role: 'admin',
      time_zone: NEW_YORK,
      two_factor_setup_required: false,
    })
    expect(response.setCookies).toHaveLength(1)
    const cookie = response.setCookies[0] ?? ''
    expect(cookie).toMatch(/^__Host-leadline_session=[A-Za-z0-9_-]{43}; /)
    expect(cookie.split('; ').slice(1).sort()).toEqual(['HttpOnly', 'Path=/', 'SameSite=Strict', 'Secure'])

    const me = upstream.requests.find((r) => r.url === '/api/v1/me/')
    expect(me?.headers.authorization).toBe(`Basic ${Buffer.from(`${SESSION_KEY}:`).toString('base64')}`)
    expect(me?.headers['x-tz-offset']).toMatch(/^-[45]\.0$/)
  })

  test('a key the API refuses answers 401 and sets no cookie', async () => {
    const response = await bff.call('/auth/session', {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ api_key: 'api_wrong', time_zone: 'UTC' }),
    })
    expect(response.status).toBe(401)
    expect(response.json).toEqual({ error: 'That API key was not accepted.' })
    expect(response.setCookies).toEqual([])
    expect(response.headers.get('www-authenticate')).toBeNull()
  })

  test('a session’s own key pasted as an API key is refused like any key the API refuses, not as a server error', async () => {
    const response = await bff.call('/auth/session', {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ api_key: SESSION_KEY, time_zone: 'UTC' }),
    })
    expect(response.status).toBe(401)
    expect(response.json).toEqual({ error: 'That API key was not accepted.' })
    expect(response.setCookies).toEqual([])
  })

  test('neither a key nor an email, or an unknown time zone, is a field error, and the API is not asked', async () => {
    const noKey = await bff.call('/auth/session', {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ time_zone: 'UTC' }),
    })
    expect(noKey.status).toBe(400)
    expect(noKey.json).toEqual({ errors: [], 'field-errors': { email: 'Enter your email.' } })
    const blankKey = await bff.call('/auth/session', {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ api_key: ' ', time_zone: 'UTC' }),
    })
    expect(blankKey.json).toEqual({ errors: [], 'field-errors': { api_key: 'Enter an API key.' } })
    const noPassword = await bff.call('/auth/session', {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ email: 'ann@example.com', password: '', time_zone: 'UTC' }),
    })
    expect(noPassword.json).toEqual({ errors: [], 'field-errors': { password: 'Enter your password.' } })
    const badZone = await bff.call('/auth/session', {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ api_key: KEY, time_zone: 'Mars/Olympus_Mons' }),
    })
    expect(badZone.status).toBe(400)
    expect(badZone.json).toEqual({
      errors: [],
      'field-errors': { time_zone: '"Mars/Olympus_Mons" is not a known IANA time zone.' },
    })
    const notJson = await bff.call('/auth/session', { method: 'POST', headers: json, body: '{"api_key":' })
    expect(notJson.status).toBe(400)
    expect(upstream.requests).toEqual([])
  })

  test('GET /auth/session answers the same shape with the cookie and 401 without', async () => {
    const cookie = await signIn(bff)
    const current = await bff.call('/auth/session', { cookie })
    expect(current.status).toBe(200)
    expect(current.json).toMatchObject({ user: { id: 'user_ann' }, organization: { name: 'Bluth Company' } })
    const anonymous = await bff.call('/auth/session')
    expect(anonymous.status).toBe(401)
    expect(anonymous.json).toEqual({ error: 'You are not signed in.' })
    const forged = await bff.call('/auth/session', { cookie: `__Host-leadline_session=${'A'.repeat(43)}` })
    expect(forged.status).toBe(401)
  })

  test('PUT /auth/session changes the zone the offset is computed from', async () => {
    const cookie = await signIn(bff)
    bff.clock.now = new Date('2026-01-15T12:00:00Z')
    const updated = await bff.call('/auth/session', {
      method: 'PUT',
      headers: json,
      cookie,
      body: JSON.stringify({ time_zone: 'Asia/Kolkata' }),
    })
    expect(updated.status).toBe(200)
    expect(updated.json).toMatchObject({ time_zone: 'Asia/Kolkata' })
    await bff.call('/api/v1/lead/', { cookie })
    expect(upstream.requests.at(-1)?.headers['x-tz-offset']).toBe('5.5')
  })

  test('PUT /auth/session reads who the person is again: a new name or role shows without signing in again', async () => {
    const cookie = await signIn(bff)
    Object.assign(annAtTheApi, { firstName: 'Annie', role: 'user' })
    try {
      const updated = await bff.call('/auth/session', {
        method: 'PUT',
        headers: json,
        cookie,
        body: JSON.stringify({ time_zone: 'UTC' }),
      })
      expect(updated.json).toMatchObject({ user: { first_name: 'Annie', display_name: 'Annie Veal' }, role: 'user' })
      expect((await bff.call('/auth/session', { cookie })).json).toMatchObject({ role: 'user' })
    } finally {
      Object.assign(annAtTheApi, { firstName: 'Ann', role: 'admin' })
    }
  })

  test('the zone chosen on the Profile wins over the browser’s, at sign-in and when the session is refreshed', async () => {
    annAtTheApi.timeZone = 'Asia/Tokyo'
    try {
      const cookie = await signIn(bff)
      expect((await bff.call('/auth/session', { cookie })).json).toMatchObject({ time_zone: 'Asia/Tokyo' })
      bff.clock.now = new Date('2026-01-15T12:00:00Z')
      await bff.call('/api/v1/lead/', { cookie })
      expect(upstream.requests.at(-1)?.headers['x-tz-offset']).toBe('9.0')
      const put = { method: 'PUT', headers: json, cookie, body: JSON.stringify({ time_zone: 'Europe/Paris' }) }
      expect((await bff.call('/auth/session', put)).json).toMatchObject({ time_zone: 'Asia/Tokyo' })
      // Back to the browser's zone once the Profile's is cleared; a zone the runtime does not know is not taken.
      annAtTheApi.timeZone = null
      expect((await bff.call('/auth/session', put)).json).toMatchObject({ time_zone: 'Europe/Paris' })
      annAtTheApi.timeZone = 'Mars/Olympus_Mons'
      expect((await bff.call('/auth/session', put)).json).toMatchObject({ time_zone: 'Europe/Paris' })
    } finally {
      annAtTheApi.timeZone = null
    }
  })

  test('DELETE /auth/session signs out and clears the cookie', async () => {
    const cookie = await signIn(bff)
    const out = await bff.call('/auth/session', { method: 'DELETE', cookie })
    expect(out.status).toBe(204)
    expect(out.setCookies[0]).toMatch(/^__Host-leadline_session=; /)
    expect(out.setCookies[0]).toContain('Max-Age=0')
    expect((await bff.call('/auth/session', { cookie })).status).toBe(401)
    expect((await bff.call('/api/v1/lead/', { cookie })).status).toBe(401)
    expect(await bff.store.count()).toBe(0)
    // The session's key ends at the api too, asked with that key.
    const revoke = upstream.requests.find((r) => r.method === 'DELETE')
    expect(revoke?.url).toBe(`/api/v1/auth/session/${SESSION_KEY.slice(0, SESSION_KEY.indexOf('.'))}/`)
    expect(revoke?.headers.authorization).toBe(`Basic ${Buffer.from(`${SESSION_KEY}:`).toString('base64')}`)
  })

  test('a pasted key is exchanged for a key for this session alone, which is all the BFF keeps', async () => {
    const response = await bff.call('/auth/session', {
      method: 'POST',
      headers: { ...json, 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0' },
      body: JSON.stringify({ api_key: KEY, time_zone: 'UTC' }),
    })
    expect(response.status).toBe(200)
    const exchange = upstream.requests.find((r) => r.url === '/api/v1/auth/session/')
    expect(exchange?.headers.authorization).toBe(`Basic ${Buffer.from(`${KEY}:`).toString('base64')}`)
    expect(JSON.parse(exchange?.body ?? '')).toEqual({
      description: 'Firefox on Linux',
      expires_in: 30 * 24 * 60 * 60,
      idle_seconds: 60 * 60,
    })
    const cookie = sessionPair(response.setCookies)
    await bff.call('/api/v1/lead/', { cookie })
    const proxied = upstream.requests.filter((r) => r.url === '/api/v1/lead/')
    expect(proxied.map((r) => r.headers.authorization)).toEqual([
      `Basic ${Buffer.from(`${SESSION_KEY}:`).toString('base64')}`,
    ])
  })
})

describe('sign-in with email and password', () => {
  const signInWith = (email: string, password: string, headers: Record<string, string> = {}) =>
    bff.call('/auth/session', {
      method: 'POST',
      headers: { ...json, ...headers },
      body: JSON.stringify({ email, password, time_zone: NEW_YORK }),
    })

  test('makes a session with the key the api mints, telling the api who is asking', async () => {
    const response = await signInWith('ann@example.com', PASSWORD)
    expect(response.status).toBe(200)
    expect(response.json).toMatchObject({ user: { id: 'user_ann', email: 'ann@example.com' }, role: 'admin' })
    for (const form of KEY_FORMS) expect(response.text).not.toContain(form)
    const asked = upstream.requests.find((r) => r.url === '/api/v1/auth/sign_in/')
    expect(asked?.headers.authorization).toBeUndefined()
    expect(asked?.headers['x-forwarded-for']).toBe('127.0.0.1')
    expect(JSON.parse(asked?.body ?? '')).toMatchObject({ email: 'ann@example.com', password: PASSWORD })
    const cookie = sessionPair(response.setCookies)
    expect((await bff.call('/auth/session', { cookie })).json).toMatchObject({ user: { id: 'user_ann' } })
  })

  test('passes the api’s refusal through in its words, and counts it against the address', async () => {
    const wrong = await signInWith('ann@example.com', 'not the password')
    expect(wrong.status).toBe(401)
    expect(wrong.json).toEqual({ error: 'That email and password do not match an account.' })
    expect(wrong.setCookies).toEqual([])
    const locked = await signInWith('locked@example.com', PASSWORD)
    expect(locked.status).toBe(429)
    expect(locked.headers.get('retry-after')).toBe('120')
    expect(locked.json).toEqual({ error: 'Too many failed attempts; try again in 2 minute(s).' })
  })

  test('passes a two-factor code on, and the api’s asking for one through with its two_factor field', async () => {
    const signInWithCode = (body: Record<string, unknown>) =>
      bff.call('/auth/session', {
        method: 'POST',
        headers: json,
        body: JSON.stringify({ email: 'two-factor@example.com', password: PASSWORD, time_zone: NEW_YORK, ...body }),
      })
    const asked = await signInWithCode({})
    expect(asked.status).toBe(401)
    expect(asked.json).toEqual({
      error: 'Enter the code from your authenticator app, or a recovery code.',
      two_factor: 'required',
    })
    expect(asked.setCookies).toEqual([])
    const wrong = await signInWithCode({ code: '000000' })
    expect(wrong.status).toBe(401)
    expect(wrong.json).toEqual({ error: 'That code is not right.', two_factor: 'required' })
    const tooLong = await signInWithCode({ code: '1'.repeat(40) })
    expect(tooLong.status).toBe(400)
    expect(tooLong.json).toEqual({ errors: [], 'field-errors': { code: expect.any(String) } })

    const right = await signInWithCode({ code: ` ${TWO_FACTOR_CODE} ` })
    expect(right.status).toBe(200)
    expect(right.json).toMatchObject({ user: { id: 'user_ann' }, two_factor_setup_required: false })
    const sent = upstream.requests
      .filter((r) => r.url === '/api/v1/auth/sign_in/')
      .map((r) => JSON.parse(r.body) as Record<string, unknown>)
      .filter((b) => b.email === 'two-factor@example.com')
    // No code is sent as none; one is sent as typed, trimmed.
    expect(sent.map((b) => b.code)).toEqual([undefined, '000000', TWO_FACTOR_CODE])
    expect(sessionPair(right.setCookies)).toBeTruthy()
  })

  test('asking for a code is not counted against the address, a wrong code is', async () => {
    await bff.close()
    bff = await startBff(testConfig({ apiUrl: upstream.url, dataDir: dir.path, signInAttempts: 2 }))
    const attempt = (code?: string) =>
      bff.call('/auth/session', {
        method: 'POST',
        headers: json,
        body: JSON.stringify({
          email: 'two-factor@example.com',
          password: PASSWORD,
          time_zone: NEW_YORK,
          ...(code === undefined ? {} : { code }),
        }),
      })
    for (let i = 0; i < 3; i++) expect((await attempt()).status).toBe(401)
    expect((await attempt('000000')).status).toBe(401)
    expect((await attempt('111111')).status).toBe(401)
    expect((await attempt(TWO_FACTOR_CODE)).status).toBe(429)
  })

  test('says when the organization requires two-factor the person has not turned on', async () => {
    const held = await signInWith('held@example.com', PASSWORD)
    expect(held.status).toBe(200)
    expect(held.json).toMatchObject({ user: { id: 'user_ann' }, two_factor_setup_required: true })
    const ann = await signInWith('ann@example.com', PASSWORD)
    expect(ann.json).toMatchObject({ two_factor_setup_required: false })
  })
})

describe('CSRF', () => {
  test('every /api/ and /auth/ request needs X-Requested-With: leadline', async () => {
    const cookie = await signIn(bff)
    const before = upstream.requests.length
    for (const [path, method] of [
      ['/api/v1/lead/', 'GET'],
      ['/api/v1/lead/', 'POST'],
      ['/auth/session', 'GET'],
      ['/auth/session', 'POST'],
      ['/auth/session', 'DELETE'],
      ['/auth/demo-users', 'GET'],
    ] as const) {
      for (const value of [undefined, 'XMLHttpRequest']) {
        const headers: Record<string, string> =
          value === undefined ? { 'x-requested-with': '' } : { 'x-requested-with': value }
        const response = await bff.call(path, { method, cookie, headers })
        expect(response.status, `${method} ${path} with ${String(value)}`).toBe(403)
        expect(response.json).toEqual({
          error: 'Requests to /api/ and /auth/ must send the header X-Requested-With: leadline.',
        })
      }
    }
    expect(upstream.requests.length).toBe(before)
    expect((await bff.call('/auth/session', { cookie })).status).toBe(200)
  })

  test.each([
    ['an email attachment', '/api/v1/email_attachment/emlatt_1/'],
    ['an export file', EXPORT_DOWNLOAD],
    ['an import’s failed rows', '/api/v1/import/imp_1/failed_rows/'],
    ['the audit log’s CSV', '/api/v1/audit_log/csv/'],
  ])("%s's download link needs no header, unless another site (or subdomain) follows it", async (_what, link) => {
    const cookie = await signIn(bff)
    const noHeader = { 'x-requested-with': '' }
    for (const site of [undefined, 'same-origin', 'none']) {
      const headers = site === undefined ? noHeader : { ...noHeader, 'sec-fetch-site': site }
      const response = await bff.call(link, { cookie, headers })
      expect(response.status, String(site)).toBe(200)
      expect(upstream.requests.at(-1)?.url).toBe(link)
    }
    const before = upstream.requests.length
    for (const [path, method, site] of [
      [link, 'GET', 'same-site'],
      [link, 'GET', 'cross-site'],
      [link, 'DELETE', 'same-origin'],
      [link, 'POST', 'same-origin'],
      [`${link}x/`, 'GET', 'same-origin'],
      ['/api/v1/email_attachment/', 'POST', 'same-origin'],
      ['/api/v1/export/expo_1/', 'GET', 'same-origin'],
      ['/api/v1/export/expo_1/download/x/', 'GET', 'same-origin'],
      ['/api/v1/export/lead/', 'POST', 'same-origin'],
      ['/api/v1/import/imp_1/', 'GET', 'same-origin'],
      ['/api/v1/import/imp_1/undo/', 'POST', 'same-origin'],
      ['/api/v1/lead/', 'GET', 'same-origin'],
    ] as const) {
      const response = await bff.call(path, { method, cookie, headers: { ...noHeader, 'sec-fetch-site': site } })
      expect(response.status, `${method} ${path} from ${site}`).toBe(403)
    }
    expect(upstream.requests.length).toBe(before)
    // Signed out, the link is a 401 like any other request.
    expect((await bff.call(link, { headers: noHeader })).status).toBe(401)
  })

  test("an export's gzip file reaches the browser intact: encoded once, saved as the CSV it holds", async () => {
    const cookie = await signIn(bff)
    // As a browser follows the link (it accepts gzip): the API's bytes, with their encoding and length.
    const raw = await bytesOf(bff.url, EXPORT_DOWNLOAD, { cookie, 'accept-encoding': 'gzip, deflate, br' })
    expect(raw.status).toBe(200)
    expect(raw.headers['content-encoding']).toBe('gzip')
    expect(raw.headers['content-type']).toBe('text/csv; charset=utf-8')
    expect(raw.headers['content-disposition']).toBe('attachment; filename="leads-leads-expo_1.csv"')
    expect(raw.headers['content-length']).toBe(String(raw.body.length))
    expect(raw.headers['cache-control']).toBe('no-store')
    expect(gunzipSync(raw.body).toString('utf8')).toBe(EXPORT_CSV)
    // A client that decodes what it is told (fetch, as a browser's download does) gets the CSV itself.
    const decoded = await bff.call(EXPORT_DOWNLOAD, { cookie, headers: { 'x-requested-with': '' } })
    expect(decoded.text).toBe(EXPORT_CSV)
  })
})

describe('proxy', () => {
  test('forwards method, query and body with the key, the offset and the client; never the browser cookie', async () => {
    const cookie = await signIn(bff)
    const response = await bff.call('/api/v1/lead/?query=name%3Abluth&_limit=5', {
      method: 'POST',
      cookie: `${cookie}; other=browser`,
      headers: {
        ...json,
        authorization: 'Basic ZXZpbDo=',
        'x-tz-offset': '9',
        connection: 'x-browser-hop',
        'x-browser-hop': '1',
        'x-forwarded-for': '10.0.0.1',
      },
      body: JSON.stringify({ name: 'Bluth Company' }),
    })
    expect(response.status).toBe(200)
    expect(response.json).toEqual({
      method: 'POST',
      url: '/api/v1/lead/?query=name%3Abluth&_limit=5',
      body: '{"name":"Bluth Company"}',
    })
    const received = upstream.requests.at(-1)
    expect(received?.headers.authorization).toBe(`Basic ${Buffer.from(`${SESSION_KEY}:`).toString('base64')}`)
    expect(received?.headers['x-tz-offset']).toMatch(/^-[45]\.0$/)
    expect(received?.headers['x-leadline-client']).toBe('web')
    expect(received?.headers['content-type']).toBe('application/json')
    expect(received?.headers.cookie).toBeUndefined()
    expect(received?.headers['x-browser-hop']).toBeUndefined()
    // The browser's own X-Forwarded-For stays behind: the BFF says the address it saw (an untrusted client's).
    expect(received?.headers['x-forwarded-for']).toBe('127.0.0.1')
    expect(received?.headers['x-requested-with']).toBeUndefined()
    // The upstream's cookies, hop-by-hop headers and Basic challenge stay behind; its other headers pass.
    expect(response.setCookies).toEqual([])
    expect(response.headers.get('x-secret-hop')).toBeNull()
    expect(response.headers.get('www-authenticate')).toBeNull()
    for (const name of ['proxy-authenticate', 'server', 'x-powered-by', 'strict-transport-security'])
      expect(response.headers.get(name), name).toBeNull()
    expect(response.headers.get('keep-alive')).not.toContain('72')
    expect(response.headers.get('content-security-policy')).toBe(SECURITY_HEADERS['content-security-policy'])
    expect(response.headers.get('x-rate-limit-limit')).toBe('2400')
  })

  test('API errors pass through unchanged', async () => {
    const cookie = await signIn(bff)
    const missing = await bff.call('/api/v1/missing/', { cookie })
    expect(missing.status).toBe(404)
    expect(missing.text).toBe('{"error":"Lead not found."}')
    const invalid = await bff.call('/api/v1/invalid/', { cookie, method: 'POST', headers: json, body: '{}' })
    expect(invalid.status).toBe(400)
    expect(invalid.json).toEqual({ errors: [], 'field-errors': { name: 'This field is required.' } })
    const boom = await bff.call('/api/v1/boom-json/', { cookie })
    expect(boom.status).toBe(500)
    expect(boom.json).toEqual({ error: 'Internal server error', request_id: 'req_1' })
  })

  test('an HTML 5xx page from upstream is replaced by JSON', async () => {
    const cookie = await signIn(bff)
    const response = await bff.call('/api/v1/boom-html/', { cookie })
    expect(response.status).toBe(500)
    expect(response.headers.get('content-type')).toMatch(/^application\/json/)
    expect(response.json).toEqual({ error: 'The CRM service failed to answer.' })
    expect(response.text).not.toContain('at Object')
  })

  test('a key the API stops accepting ends the session', async () => {
    const cookie = await signIn(bff)
    const revoked = await bff.call('/api/v1/revoked/', { cookie })
    expect(revoked.status).toBe(401)
    expect(revoked.json).toEqual({ error: 'API key revoked.' })
    expect(revoked.headers.get('www-authenticate')).toBeNull()
    const after = await bff.call('/auth/session', { cookie })
    expect(after.status).toBe(401)
    expect(after.setCookies[0]).toContain('Max-Age=0')
  })

  test('without a session /api answers 401 JSON and the API is not asked', async () => {
    const response = await bff.call('/api/v1/lead/')
    expect(response.status).toBe(401)
    expect(response.json).toEqual({ error: 'You are not signed in.' })
    expect(upstream.requests).toEqual([])
  })

  test('only /api/v1/… in origin form is proxied', async () => {
    const cookie = await signIn(bff)
    const before = upstream.requests.length
    const headers = { 'x-requested-with': 'leadline', cookie }
    const cases: [string, number][] = [
      ['/api/v2/x', 404],
      ['/api/x', 404],
      ['/api/v1', 404],
      ['/api/v1/../x', 400],
      ['/api/v1/lead/../../v2/x', 400],
      ['/api/v1/%2e%2e/x', 400],
      ['/api/v1/%2E%2e/x', 400],
      ['/api/v1/.%2e/x', 400],
      ['/api/v1/./lead/', 400],
      ['/api/v1//lead/', 400],
      ['/api/v1/lead%2f..%2fx', 400],
      ['/api/v1/lead\\..\\x', 400],
      ['//evil.example/api/v1/x', 400],
      ['http://evil.example/api/v1/lead/', 400],
      ['http://127.0.0.1/api/v1/lead/', 400],
    ]
    for (const [target, status] of cases) {
      const response = await rawRequest(bff.url, target, headers)
      expect(response.status, target).toBe(status)
      expect(JSON.parse(response.body), target).toHaveProperty('error')
    }
    expect(upstream.requests.length).toBe(before)
    // The allowlist is not simply refusing everything.
    expect((await rawRequest(bff.url, '/api/v1/lead/?a=1', headers)).status).toBe(200)
  })

  test('a method the API does not speak answers 405 JSON before the body is read, and the API is not asked', async () => {
    const cookie = await signIn(bff)
    const before = upstream.requests.length
    // A declared body over the cap would answer 413 if the body were looked at before the method.
    const headers = {
      'x-requested-with': 'leadline',
      cookie,
      'content-type': 'application/xml',
      'content-length': String(2 * 1024 * 1024),
    }
    const response = await rawRequest(bff.url, '/api/v1/lead/', headers, 'PROPFIND')
    expect(response.status).toBe(405)
    expect(JSON.parse(response.body)).toEqual({ error: 'Method not allowed.' })
    expect(response.headers.allow).toBe('GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS')
    expect(upstream.requests.length).toBe(before)
  })

  test('a body over 1 MiB answers 413 without reaching the API; one just under passes', async () => {
    const cookie = await signIn(bff)
    const before = upstream.requests.length
    const big = await bff.call('/api/v1/lead/', {
      method: 'POST',
      cookie,
      headers: json,
      body: JSON.stringify({ note: 'x'.repeat(1024 * 1024) }),
    })
    expect(big.status).toBe(413)
    expect(big.json).toEqual({ error: 'Request body is larger than 1 MiB.' })
    expect(upstream.requests.length).toBe(before)
    const fits = await bff.call('/api/v1/lead/', {
      method: 'POST',
      cookie,
      headers: json,
      body: JSON.stringify({ note: 'x'.repeat(1024 * 1024 - 20) }),
    })
    expect(fits.status).toBe(200)
  })

  test('a chunked body over 1 MiB (no Content-Length) answers 413 without reaching the API', async () => {
    const cookie = await signIn(bff)
    const before = upstream.requests.length
    const chunk = new TextEncoder().encode('x'.repeat(64 * 1024))
    let sent = 0
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent >= 24) controller.close()
        else controller.enqueue(chunk)
        sent += 1
      },
    })
    const response = await bff.call('/api/v1/lead/', { method: 'POST', cookie, headers: json, body, duplex: 'half' })
    expect(response.status).toBe(413)
    expect(response.json).toEqual({ error: 'Request body is larger than 1 MiB.' })
    expect(upstream.requests.length).toBe(before)
  })

  test.each([
    ['America/New_York in autumn', NEW_YORK, '2026-11-01T05:59:59Z', '-4.0', '2026-11-01T06:00:00Z', '-5.0'],
    ['America/New_York in spring', NEW_YORK, '2026-03-08T06:59:59Z', '-5.0', '2026-03-08T07:00:00Z', '-4.0'],
    // Southern hemisphere: daylight time ends in April, at 03:00 AEDT on the first Sunday.
    ['Australia/Sydney in April', 'Australia/Sydney', '2026-04-04T15:59:59Z', '11.0', '2026-04-04T16:00:00Z', '10.0'],
    // A half-hour zone without DST: the same offset on both sides of New York's change.
    ['Asia/Kolkata', 'Asia/Kolkata', '2026-03-08T06:59:59Z', '5.5', '2026-03-08T07:00:00Z', '5.5'],
  ])('X-TZ-Offset follows %s at request time', async (_name, zone, before, offsetBefore, after, offsetAfter) => {
    const cookie = await signIn(bff, zone)
    bff.clock.now = new Date(before)
    await bff.call('/api/v1/lead/', { cookie })
    expect(upstream.requests.at(-1)?.headers['x-tz-offset']).toBe(offsetBefore)
    bff.clock.now = new Date(after)
    await bff.call('/api/v1/lead/', { cookie })
    expect(upstream.requests.at(-1)?.headers['x-tz-offset']).toBe(offsetAfter)
  })

  test('an API that does not answer in time is a 504 JSON, not a request hanging forever', async () => {
    await bff.close()
    bff = await startBff(testConfig({ apiUrl: upstream.url, dataDir: dir.path, apiTimeoutMs: 300 }))
    const cookie = await signIn(bff)
    const started = Date.now()
    const response = await bff.call('/api/v1/hang/', { cookie })
    expect(response.status).toBe(504)
    expect(response.json).toEqual({ error: 'The CRM service did not answer in time.' })
    expect(Date.now() - started).toBeLessThan(5000)
    expect(upstream.requests.filter((r) => r.url === '/api/v1/hang/')).toHaveLength(1)
    // The session survives: the key was not refused.
    expect((await bff.call('/auth/session', { cookie })).status).toBe(200)

    const slowSignIn = await bff.call('/auth/session', {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ api_key: HANG_KEY, time_zone: 'UTC' }),
    })
    expect(slowSignIn.status).toBe(504)
    expect(slowSignIn.json).toEqual({ error: 'The CRM service did not answer in time.' })
    expect(slowSignIn.setCookies).toEqual([])
  })

  test('the API being down answers 502 JSON', async () => {
    const cookie = await signIn(bff)
    await upstream.close()
    const response = await bff.call('/api/v1/lead/', { cookie })
    expect(response.status).toBe(502)
    expect(response.json).toEqual({ error: 'The CRM service is not reachable.' })
    const signInDown = await bff.call('/auth/session', {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ api_key: KEY, time_zone: 'UTC' }),
    })
    expect(signInDown.status).toBe(502)
    expect(signInDown.json).toEqual({ error: 'The CRM service is not reachable.' })
  })
})

describe('sessions', () => {
  test('an idle session expires; activity keeps it alive', async () => {
    await bff.close()
    const start = new Date('2026-03-01T09:00:00Z')
    bff = await startBff(testConfig({ apiUrl: upstream.url, dataDir: dir.path, sessionIdleMs: 30 * 60_000 }), {
      now: start,
    })
    const cookie = await signIn(bff)
    bff.clock.now = new Date(start.getTime() + 29 * 60_000)
    expect((await bff.call('/api/v1/lead/', { cookie })).status).toBe(200)
    bff.clock.now = new Date(start.getTime() + 58 * 60_000)
    expect((await bff.call('/auth/session', { cookie })).status).toBe(200)
    bff.clock.now = new Date(start.getTime() + 88 * 60_000 + 1)
    const expired = await bff.call('/auth/session', { cookie })
    expect(expired.status).toBe(401)
    expect(expired.setCookies[0]).toContain('Max-Age=0')
    expect(await bff.store.count()).toBe(0)
  })

  test('sessions survive a restart; the file holds neither the key nor the session id', async () => {
    const cookie = await signIn(bff)
    await bff.close()
    const file = join(dir.path, SESSION_DB_FILE)
    const text = (await readFile(file)).toString('latin1')
    for (const form of KEY_FORMS) expect(text).not.toContain(form)
    expect(text).not.toContain(cookie.split('=')[1])
    expect(text).toContain(hashId(cookie.split('=')[1] ?? ''))
    expect((await stat(file)).mode & 0o777).toBe(0o600)

    bff = await startBff(testConfig({ apiUrl: upstream.url, dataDir: dir.path }))
    const after = await bff.call('/auth/session', { cookie })
    expect(after.status).toBe(200)
    expect((await bff.call('/api/v1/lead/', { cookie })).status).toBe(200)
    expect(upstream.requests.at(-1)?.headers.authorization).toBe(
      `Basic ${Buffer.from(`${SESSION_KEY}:`).toString('base64')}`,
    )
  })

  test('a session cannot be used under another server secret', async () => {
    const cookie = await signIn(bff)
    await bff.close()
    bff = await startBff(testConfig({ apiUrl: upstream.url, dataDir: dir.path, secret: Buffer.alloc(32, 9) }))
    expect((await bff.call('/auth/session', { cookie })).status).toBe(401)
  })

  test('the insecure switch drops Secure and the __Host- prefix', async () => {
    await bff.close()
    bff = await startBff(testConfig({ apiUrl: upstream.url, dataDir: dir.path, insecureCookies: true }))
    const response = await bff.call('/auth/session', {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ api_key: KEY, time_zone: 'UTC' }),
    })
    const cookie = response.setCookies[0] ?? ''
    expect(cookie).toMatch(/^leadline_session=[A-Za-z0-9_-]{43}; /)
    expect(cookie.split('; ').slice(1).sort()).toEqual(['HttpOnly', 'Path=/', 'SameSite=Strict'])
    expect((await bff.call('/auth/session', { cookie: sessionPair(response.setCookies) })).status).toBe(200)
  })
})

describe('demo sign-in', () => {
  test('is off unless a seed file is configured', async () => {
    expect((await bff.call('/auth/demo-users')).status).toBe(404)
    const response = await bff.call('/auth/demo-session', {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ email: 'rep@demo.example', time_zone: 'UTC' }),
    })
    expect(response.status).toBe(404)
    expect(upstream.requests).toEqual([])
  })

  async function writeSeedFile(): Promise<string> {
    const seedFile = join(dir.path, 'demo-seed.json')
    await writeFile(
      seedFile,
      JSON.stringify({
        organization_id: 'orga_test',
        organization_name: 'Bluth Company',
        users: [
          {
            user_id: 'user_rep',
            membership_id: 'memb_2',
            email: 'rep@demo.example',
            first_name: 'Rita',
            last_name: 'Rep',
            role: 'user',
            title: 'Sales rep',
            api_key: DEMO_KEY,
          },
        ],
      }),
    )
    return seedFile
  }

  test('lists the demo users without keys and signs in as one, reading the key server-side', async () => {
    await bff.close()
    const seedFile = await writeSeedFile()
    bff = await startBff(testConfig({ apiUrl: upstream.url, dataDir: dir.path, demoSeedFile: seedFile }))
    const users = await bff.call('/auth/demo-users')
    expect(users.status).toBe(200)
    expect(users.json).toEqual([
      { email: 'rep@demo.example', title: 'Sales rep', role: 'user', display_name: 'Rita Rep' },
    ])

    const unknown = await bff.call('/auth/demo-session', {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ email: 'nobody@demo.example', time_zone: 'UTC' }),
    })
    expect(unknown.status).toBe(404)

    const session = await bff.call('/auth/demo-session', {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ email: 'REP@demo.example', time_zone: 'Europe/Paris' }),
    })
    expect(session.status).toBe(200)
    expect(session.json).toMatchObject({ user: { id: 'user_rep', display_name: 'Rita Rep' }, role: 'user' })
    const cookie = sessionPair(session.setCookies)
    await bff.call('/api/v1/lead/', { cookie })
    expect(upstream.requests.at(-1)?.headers.authorization).toBe(
      `Basic ${Buffer.from(`${DEMO_SESSION_KEY}:`).toString('base64')}`,
    )
  })

  test('is refused and not advertised when the BFF listens beyond loopback, with a warning', async () => {
    await bff.close()
    const seedFile = await writeSeedFile()
    bff = await startBff(
      testConfig({ apiUrl: upstream.url, dataDir: dir.path, host: '0.0.0.0', demoSeedFile: seedFile }),
    )
    expect(bff.logs.find((line) => line.includes('"level":40'))).toMatch(/demo sign-in is off.*LEADLINE_DEMO_SIGN_IN=1/)
    expect((await bff.call('/auth/demo-users')).status).toBe(404)
    const session = await bff.call('/auth/demo-session', {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ email: 'rep@demo.example', time_zone: 'UTC' }),
    })
    expect(session.status).toBe(404)
    expect(session.setCookies).toEqual([])
    expect(upstream.requests).toEqual([])
  })

  test('is refused through a proxy on loopback, unless LEADLINE_DEMO_SIGN_IN=1 opts in', async () => {
    await bff.close()
    const seedFile = await writeSeedFile()
    bff = await startBff(testConfig({ apiUrl: upstream.url, dataDir: dir.path, demoSeedFile: seedFile }))
    const demoSignIn = (headers: Record<string, string>) =>
      bff.call('/auth/demo-session', {
        method: 'POST',
        headers: { ...json, ...headers },
        body: JSON.stringify({ email: 'rep@demo.example', time_zone: 'UTC' }),
      })
    const proxied: Record<string, string>[] = [
      { 'x-forwarded-for': '203.0.113.9' },
      { forwarded: 'for=203.0.113.9;proto=https' },
      { 'x-real-ip': '203.0.113.9' },
    ]
    for (const headers of proxied) {
      const users = await bff.call('/auth/demo-users', { headers })
      expect(users.status, JSON.stringify(headers)).toBe(404)
      expect(users.json).toEqual({
        error: 'Demo sign-in is not offered through a proxy (LEADLINE_DEMO_SIGN_IN=1 allows it).',
      })
      const session = await demoSignIn(headers)
      expect(session.status, JSON.stringify(headers)).toBe(404)
      expect(session.setCookies).toEqual([])
    }
    expect(upstream.requests).toEqual([])
    expect((await demoSignIn({})).status).toBe(200)

    await bff.close()
    bff = await startBff(
      testConfig({ apiUrl: upstream.url, dataDir: dir.path, demoSeedFile: seedFile, demoSignIn: 'on' }),
    )
    for (const headers of proxied) expect((await demoSignIn(headers)).status, JSON.stringify(headers)).toBe(200)
  })

  test('works beyond loopback when LEADLINE_DEMO_SIGN_IN=1 opts in', async () => {
    await bff.close()
    const seedFile = await writeSeedFile()
    bff = await startBff(
      testConfig({
        apiUrl: upstream.url,
        dataDir: dir.path,
        host: '0.0.0.0',
        demoSeedFile: seedFile,
        demoSignIn: 'on',
      }),
    )
    expect(bff.logs.join('')).not.toContain('"level":40')
    expect((await bff.call('/auth/demo-users')).json).toEqual([
      { email: 'rep@demo.example', title: 'Sales rep', role: 'user', display_name: 'Rita Rep' },
    ])
    const session = await bff.call('/auth/demo-session', {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ email: 'rep@demo.example', time_zone: 'UTC' }),
    })
    expect(session.status).toBe(200)
  })
})

describe('requests from another site', () => {
  const signInBody = JSON.stringify({ api_key: KEY, time_zone: 'UTC' })

  test('a state-changing request with a foreign Origin or Sec-Fetch-Site: cross-site is refused before anything', async () => {
    const cookie = await signIn(bff)
    const before = upstream.requests.length
    const foreign: Record<string, string>[] = [
      { origin: 'https://evil.example' },
      { origin: 'null' },
      { origin: bff.url.replace('http:', 'https:') },
      { origin: bff.url, 'sec-fetch-site': 'cross-site' },
      { 'sec-fetch-site': 'cross-site' },
    ]
    const requests: [string, { method: string; cookie?: string; body?: string; headers?: Record<string, string> }][] = [
      ['/auth/session', { method: 'POST', body: signInBody }],
      ['/auth/session', { method: 'PUT', cookie, body: JSON.stringify({ time_zone: 'Asia/Tokyo' }) }],
      ['/auth/session', { method: 'DELETE', cookie }],
      ['/auth/demo-session', { method: 'POST', body: JSON.stringify({ email: 'rep@demo.example', time_zone: 'UTC' }) }],
      ['/api/v1/lead/', { method: 'POST', cookie, body: '{"name":"x"}' }],
      ['/api/v1/lead/lead_1/', { method: 'DELETE', cookie }],
      // Refused before the X-Requested-With check and before any body is parsed.
      ['/api/v1/lead/', { method: 'PATCH', cookie, body: '{', headers: { 'x-requested-with': 'nope' } }],
    ]
    for (const headers of foreign) {
      for (const [path, init] of requests) {
        const response = await bff.call(path, { ...init, headers: { ...json, ...headers, ...init.headers } })
        expect(response.status, `${init.method} ${path} ${JSON.stringify(headers)}`).toBe(403)
        expect(response.json).toEqual({ error: 'Requests from another site are refused.' })
        expect(response.setCookies).toEqual([])
      }
    }
    expect(upstream.requests.length).toBe(before)
    const current = await bff.call('/auth/session', { cookie, headers: { origin: 'https://evil.example' } })
    expect(current.status, 'a GET from anywhere still reads').toBe(200)
    expect(current.json).toMatchObject({ time_zone: NEW_YORK })
  })

  test('the own origin, the configured public origin and clients without either header pass', async () => {
    await bff.close()
    bff = await startBff(testConfig({ apiUrl: upstream.url, dataDir: dir.path, publicOrigin: 'https://crm.example' }))
    const allowed: Record<string, string>[] = [
      { origin: bff.url },
      { origin: bff.url.toUpperCase() },
      { origin: bff.url, 'sec-fetch-site': 'same-origin' },
      { origin: 'https://crm.example' },
      { 'sec-fetch-site': 'same-origin' },
      { 'sec-fetch-site': 'none' },
      {},
    ]
    for (const headers of allowed) {
      const response = await bff.call('/auth/session', {
        method: 'POST',
        headers: { ...json, ...headers },
        body: signInBody,
      })
      expect(response.status, JSON.stringify(headers)).toBe(200)
    }
    const other = await bff.call('/auth/session', {
      method: 'POST',
      headers: { ...json, origin: 'https://crm.example.evil' },
      body: signInBody,
    })
    expect(other.status).toBe(403)
  })

  test("behind a trusted proxy the origin is the proxy's protocol and host", async () => {
    const headers = {
      ...json,
      origin: 'https://crm.example',
      'x-forwarded-proto': 'https',
      'x-forwarded-host': 'crm.example',
    }
    const untrusted = await bff.call('/auth/session', { method: 'POST', headers, body: signInBody })
    expect(untrusted.status).toBe(403)
    await bff.close()
    bff = await startBff(testConfig({ apiUrl: upstream.url, dataDir: dir.path, trustProxy: true }))
    const trusted = await bff.call('/auth/session', { method: 'POST', headers, body: signInBody })
    expect(trusted.status).toBe(200)
  })
})

describe('failed sign-ins', () => {
  const attempt = (key: string, headers: Record<string, string> = {}) =>
    bff.call('/auth/session', {
      method: 'POST',
      headers: { ...json, ...headers },
      body: JSON.stringify({ api_key: key, time_zone: 'UTC' }),
    })
  const meCalls = () => upstream.requests.filter((r) => r.url === '/api/v1/me/').length

  test('are limited per address with 429 and Retry-After; the window frees the address again', async () => {
    await bff.close()
    const start = new Date('2026-03-01T09:00:00Z')
    bff = await startBff(
      testConfig({ apiUrl: upstream.url, dataDir: dir.path, signInAttempts: 3, signInWindowMs: 15 * 60_000 }),
      { now: start },
    )
    for (let i = 0; i < 3; i += 1) expect((await attempt(`api_wrong${i}`)).status).toBe(401)
    bff.clock.now = new Date(start.getTime() + 5 * 60_000)
    const asked = meCalls()
    const limited = await attempt(KEY)
    expect(limited.status).toBe(429)
    expect(limited.json).toEqual({ error: 'Too many failed sign-ins; try again in 10 minute(s).' })
    expect(limited.headers.get('retry-after')).toBe(String(10 * 60))
    expect(limited.setCookies).toEqual([])
    expect(meCalls(), 'a limited attempt does not reach the API').toBe(asked)
    const demo = await bff.call('/auth/demo-session', {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ email: 'rep@demo.example', time_zone: 'UTC' }),
    })
    expect(demo.status).toBe(429)

    bff.clock.now = new Date(start.getTime() + 15 * 60_000)
    expect((await attempt(KEY)).status).toBe(200)
  })

  test('successful sign-ins do not count', async () => {
    await bff.close()
    bff = await startBff(testConfig({ apiUrl: upstream.url, dataDir: dir.path, signInAttempts: 2 }))
    for (let i = 0; i < 5; i += 1) expect((await attempt(KEY)).status).toBe(200)
    expect((await attempt('api_wrong')).status).toBe(401)
    expect((await attempt(KEY)).status).toBe(200)
    expect((await attempt('api_wrong')).status).toBe(401)
    expect((await attempt(KEY)).status).toBe(429)
  })

  test('count the first X-Forwarded-For address only when the proxy is trusted', async () => {
    await bff.close()
    bff = await startBff(testConfig({ apiUrl: upstream.url, dataDir: dir.path, signInAttempts: 2 }))
    const from = (address: string) => ({ 'x-forwarded-for': `${address}, 10.0.0.1` })
    expect((await attempt('api_wrong', from('203.0.113.5'))).status).toBe(401)
    expect((await attempt('api_wrong', from('203.0.113.6'))).status).toBe(401)
    // Untrusted, the header is ignored: both came from this test's socket address.
    expect((await attempt(KEY, from('203.0.113.7'))).status).toBe(429)

    await bff.close()
    bff = await startBff(
      testConfig({ apiUrl: upstream.url, dataDir: dir.path, signInAttempts: 2, trustProxy: true, demoSignIn: 'on' }),
    )
    expect((await attempt('api_wrong', from('203.0.113.5'))).status).toBe(401)
    expect((await attempt('api_wrong', from('203.0.113.5'))).status).toBe(401)
    expect((await attempt(KEY, from('203.0.113.5'))).status).toBe(429)
    expect((await attempt(KEY, from('203.0.113.6'))).status).toBe(200)
  })
})

describe('absolute session lifetime', () => {
  test('a session ends at LEADLINE_SESSION_MAX_DAYS even while in use', async () => {
    await bff.close()
    const start = new Date('2026-03-01T09:00:00Z')
    const day = 24 * 60 * 60_000
    bff = await startBff(
      testConfig({ apiUrl: upstream.url, dataDir: dir.path, sessionIdleMs: 60 * 60_000, sessionMaxAgeMs: 2 * day }),
      { now: start },
    )
    const cookie = await signIn(bff)
    for (let at = 50 * 60_000; at <= 2 * day; at += 50 * 60_000) {
      bff.clock.now = new Date(start.getTime() + at)
      expect((await bff.call('/api/v1/lead/', { cookie })).status).toBe(200)
    }
    bff.clock.now = new Date(start.getTime() + 2 * day + 1)
    const ended = await bff.call('/auth/session', { cookie })
    expect(ended.status).toBe(401)
    expect(ended.setCookies[0]).toContain('Max-Age=0')
    expect(await bff.store.count()).toBe(0)
  })
})

describe('Strict-Transport-Security', () => {
  const HSTS = 'max-age=31536000; includeSubDomains'

  test('is sent over https only: never on plain http, and X-Forwarded-Proto counts only from a trusted proxy', async () => {
    for (const path of ['/healthz', '/auth/session', '/some/page']) {
      expect((await bff.call(path)).headers.get('strict-transport-security'), path).toBeNull()
      const claimed = await bff.call(path, { headers: { 'x-forwarded-proto': 'https' } })
      expect(claimed.headers.get('strict-transport-security'), path).toBeNull()
    }
    const reader = await signIn(bff)
    const read = await bff.call('/api/v1/lead/', { cookie: reader, headers: { 'x-forwarded-proto': 'https' } })
    expect(read.status).toBe(200)
    expect(read.headers.get('strict-transport-security')).toBeNull()
    await bff.close()
    bff = await startBff(testConfig({ apiUrl: upstream.url, dataDir: dir.path, trustProxy: true }))
    for (const path of ['/healthz', '/auth/session', '/some/page']) {
      const secure = await bff.call(path, { headers: { 'x-forwarded-proto': 'https' } })
      expect(secure.headers.get('strict-transport-security'), path).toBe(HSTS)
      expect((await bff.call(path)).headers.get('strict-transport-security'), path).toBeNull()
    }
    const cookie = await signIn(bff)
    const proxied = await bff.call('/api/v1/lead/', { cookie, headers: { 'x-forwarded-proto': 'https' } })
    // The API's own max-age=1 is dropped; the BFF's stands.
    expect(proxied.headers.get('strict-transport-security')).toBe(HSTS)
  })
})

describe('a signed-in read (the fast lane past the routes)', () => {
  test('carries the security headers and no-store, and reaches the API as any request does', async () => {
    const cookie = await signIn(bff)
    const read = await bff.call('/api/v1/lead/?query=acme', { cookie })
    expect(read.status).toBe(200)
    for (const [name, value] of Object.entries(SECURITY_HEADERS)) expect(read.headers.get(name), name).toBe(value)
    expect(read.headers.get('cache-control')).toBe('no-store')
    expect(read.headers.get('x-powered-by')).toBeNull()
    const sent = upstream.requests.at(-1)
    expect(sent?.url).toBe('/api/v1/lead/?query=acme')
    expect(sent?.headers['x-tz-offset']).toMatch(/^-[45]\.0$/)
    expect(sent?.headers.authorization).toMatch(/^Basic /)
    expect(sent?.headers.cookie).toBeUndefined()
  })

  test('writes each field once, a field the API names too the API’s, whether the answer is sent whole or streamed', async () => {
    const cookie = await signIn(bff)
    for (const path of [FIELDS_PATH, `${FIELDS_PATH}?stream`]) {
      const answer = await rawFieldsOf(bff.url, path, { cookie, 'x-requested-with': 'leadline' })
      expect(answer.status).toBe(200)
      const sentId = upstream.requests.at(-1)?.headers['x-request-id']
      expect(sentId).toMatch(/^[0-9a-f-]{36}$/)
      const named = (name: string) => answer.fields.filter(([field]) => field.toLowerCase() === name).map(([, v]) => v)
      for (const [name, value] of Object.entries(SECURITY_HEADERS)) expect(named(name), name).toEqual([value])
      expect(named('x-request-id'), path).toEqual([sentId])
      expect(named('cache-control'), path).toEqual(['private, max-age=5'])
      expect(named('x-repeated'), path).toEqual(['one', 'two'])
      // Every other field once, those Node adds itself included (Date, Connection, Keep-Alive).
      const names = answer.fields.map(([name]) => name.toLowerCase()).filter((name) => name !== 'x-repeated')
      expect(names.length, names.join(', ')).toBe(new Set(names).size)
      expect(named('date')).toHaveLength(1)
      expect(named('content-type'), path).toEqual(['application/json'])
      expect(JSON.parse(answer.body.toString('utf8'))).toEqual({ ok: true })
      if (path === FIELDS_PATH) {
        expect(named('vary')).toEqual(['Origin, Accept-Encoding'])
        expect(named('content-length')).toEqual([String(answer.body.length)])
      } else {
        // Streamed answers go through the compression middleware, which adds to Vary itself.
        expect(named('vary')).toEqual([expect.stringMatching(/^Origin, Accept-Encoding$/i)])
        expect(named('transfer-encoding')).toEqual(['chunked'])
      }
    }
  })

  test('tells the API the browser’s address, a trusted proxy’s client only when the BFF trusts it', async () => {
    const spoofed = { 'x-forwarded-for': '203.0.113.9, 10.0.0.1' }
    const sentFor = async (path: string, init: { method?: string; body?: string } = {}) => {
      const cookie = await signIn(bff)
      const answer = await bff.call(path, {
        cookie,
        ...init,
        headers: { ...spoofed, ...(init.body === undefined ? {} : json) },
      })
      expect(answer.status).toBe(200)
      return upstream.requests.at(-1)?.headers['x-forwarded-for']
    }
    // A read takes the fast lane, a write the routes: both say the same.
    expect(await sentFor('/api/v1/lead/')).toBe('127.0.0.1')
    expect(await sentFor('/api/v1/lead/', { method: 'POST', body: '{}' })).toBe('127.0.0.1')
    await bff.close()
    bff = await startBff(testConfig({ apiUrl: upstream.url, dataDir: dir.path, trustProxy: true }))
    expect(await sentFor('/api/v1/lead/')).toBe('203.0.113.9')
    expect(await sentFor('/api/v1/lead/', { method: 'POST', body: '{}' })).toBe('203.0.113.9')
  })

  test('with a cookie whose session is gone, or whose key cannot be opened, is a 401 that clears the cookie', async () => {
    const gone = await signIn(bff)
    await bff.store.delete(gone.split('=')[1] ?? '')
    const first = await bff.call('/api/v1/lead/', { cookie: gone })
    expect(first.status).toBe(401)
    expect(first.json).toEqual({ error: 'You are not signed in.' })
    expect(first.setCookies[0]).toContain('Max-Age=0')

    const sealed = await signIn(bff)
    await bff.close()
    bff = await startBff(testConfig({ apiUrl: upstream.url, dataDir: dir.path, secret: Buffer.alloc(32, 9) }))
    const before = upstream.requests.length
    const second = await bff.call('/api/v1/lead/', { cookie: sealed })
    expect(second.status).toBe(401)
    expect(second.setCookies[0]).toContain('Max-Age=0')
    expect(await bff.store.count()).toBe(0)
    expect(upstream.requests.length).toBe(before)
  })
})

describe('logs', () => {
  test('hold no key and no cookie', async () => {
    const cookie = await signIn(bff)
    await bff.call('/api/v1/lead/?x=1', { cookie })
    await bff.call('/auth/session', {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ api_key: `${KEY}x`, time_zone: 'UTC' }),
    })
    // Failures too: a body that is not JSON, one too large, a 5xx page, a key in a query string.
    await bff.call('/auth/session', { method: 'POST', headers: json, body: `{"api_key":"${KEY}",` })
    await bff.call('/auth/session', {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ api_key: KEY, pad: 'x'.repeat(20_000) }),
    })
    await bff.call('/api/v1/boom-html/', { cookie })
    await bff.call(`/api/v1/missing/?api_key=${KEY}`, { cookie })
    const logs = bff.logs.join('')
    expect(logs).toContain('"path":"/api/v1/lead/"')
    for (const status of [400, 413, 500]) expect(logs).toContain(`"status":${status}`)
    for (const form of KEY_FORMS) expect(logs).not.toContain(form)
    expect(logs).not.toContain(cookie.split('=')[1])
  })
})

describe('healthz', () => {
  test('answers ok and whether the API answers', async () => {
    const up = await bff.call('/healthz')
    expect(up.status).toBe(200)
    expect(up.json).toEqual({ status: 'ok', upstream: 'ok' })
    await bff.close()
    bff = await startBff(testConfig({ apiUrl: `http://127.0.0.1:${await deadPort()}`, dataDir: dir.path }))
    const down = await bff.call('/healthz')
    expect(down.json).toEqual({ status: 'ok', upstream: 'unreachable' })
  })
})

describe('readyz', () => {
  test('is ready while its sessions answer, uncached, whatever the API’s state, which it shows', async () => {
    const up = await bff.call('/readyz')
    expect(up.status).toBe(200)
    expect(up.headers.get('cache-control')).toBe('no-store')
    expect(up.json).toEqual({ status: 'ready', sessions: 'ok', upstream: 'ok', draining: false })
    await bff.close()
    bff = await startBff(testConfig({ apiUrl: `http://127.0.0.1:${await deadPort()}`, dataDir: dir.path }))
    const apiDown = await bff.call('/readyz')
    expect(apiDown.status).toBe(200)
    expect(apiDown.json).toMatchObject({ status: 'ready', upstream: 'unreachable' })
  })

  test('is not ready once draining, though alive and serving', async () => {
    bff.startDraining()
    const draining = await bff.call('/readyz')
    expect(draining.status).toBe(503)
    expect(draining.json).toEqual({ status: 'not ready', sessions: 'ok', upstream: 'ok', draining: true })
    expect((await bff.call('/healthz')).status).toBe(200)
    expect((await bff.call('/auth/session')).status).toBe(401)
  })

  test('is not ready when its session store does not answer', async () => {
    await bff.store.close()
    const down = await bff.call('/readyz')
    expect(down.status).toBe(503)
    expect(down.json).toMatchObject({ status: 'not ready', sessions: 'unreachable', draining: false })
  })
})

test('the key leak check itself catches a leak', () => {
  expect(() => {
    assertNoKey({ text: `{"key":"${KEY}"}`, headers: new Headers() })
  }).toThrow(/reached the browser/)
  expect(() => {
    assertNoKey({ text: '', headers: new Headers({ 'x-debug': Buffer.from(`${KEY}:`).toString('base64') }) })
  }).toThrow(/reached the browser/)
})
