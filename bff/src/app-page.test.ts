import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, test } from 'vitest'
import { SESSION_ELEMENT_ID, signedInPage } from './app-page.js'
import { PAGE_ANSWERS_ELEMENT_ID } from '@leadline/shared/first-screen-requests'
import {
  annAtTheApi,
  basic,
  SESSION_KEY,
  signIn,
  startBff,
  startFakeUpstream,
  tempDir,
  testConfig,
  type StartedBff,
} from './test-support/harness.js'

const INDEX = '<!doctype html><html><head><title>Leadline</title></head><body><div id="root"></div></body></html>'
const html = { accept: 'text/html' }

/** The JSON of the page's data block by this id, or undefined when it has none. */
function dataBlock(page: string, id: string): unknown {
  const open = `<script type="application/json" id="${id}">`
  const at = page.indexOf(open)
  if (at === -1) return undefined
  const end = page.indexOf('</script>', at)
  return JSON.parse(page.slice(at + open.length, end))
}

const sessionBlock = (page: string) => dataBlock(page, SESSION_ELEMENT_ID)
const answersBlock = (page: string) => dataBlock(page, PAGE_ANSWERS_ELEMENT_ID)

describe('signedInPage', () => {
  test('puts the block before </head>, or at the end of a page without one', () => {
    expect(signedInPage(INDEX, { a: 1 })).toBe(
      INDEX.replace('</head>', `<script type="application/json" id="${SESSION_ELEMENT_ID}">{"a":1}</script></head>`),
    )
    expect(signedInPage('<p>', { a: 1 })).toBe(
      `<p><script type="application/json" id="${SESSION_ELEMENT_ID}">{"a":1}</script>`,
    )
  })

  test('no value can end the block or open a comment, and the JSON reads back the same', () => {
    const session = { name: '</script><script>alert(1)</script><!--', other: 'a<b' }
    const page = signedInPage(INDEX, session)
    expect(page.match(/<\/script>/g)).toHaveLength(1)
    expect(page).not.toContain('<!--')
    expect(sessionBlock(page)).toEqual(session)
  })
})

describe('the app page', () => {
  let upstream: Awaited<ReturnType<typeof startFakeUpstream>>
  let dir: Awaited<ReturnType<typeof tempDir>>
  let bff: StartedBff

  beforeEach(async () => {
    upstream = await startFakeUpstream()
    dir = await tempDir()
    const dist = join(dir.path, 'dist')
    await mkdir(dist, { recursive: true })
    await writeFile(join(dist, 'index.html'), INDEX)
    await writeFile(
      join(dist, 'route-preloads.json'),
      JSON.stringify({ routes: [{ path: '/leads/$leadId', files: ['assets/_app-1a.js', 'assets/lead-2b.js'] }] }),
    )
    bff = await startBff(testConfig({ apiUrl: upstream.url, dataDir: dir.path, webDist: dist }))
  })

  afterEach(async () => {
    await bff.close()
    await upstream.close()
    await dir.remove()
  })

  test('signed in, it carries what GET /auth/session answers, and no cache keeps it', async () => {
    const cookie = await signIn(bff)
    const page = await bff.call('/leads', { cookie, headers: html })
    expect(page.status).toBe(200)
    expect(page.headers.get('content-type')).toMatch(/^text\/html/)
    expect(page.headers.get('cache-control')).toBe('no-store')
    const session = await bff.call('/auth/session', { cookie })
    expect(sessionBlock(page.text)).toEqual(session.json)
    // Beside the session, the first screen's answers (below) and the styles' nonce: nothing else of the page changes.
    const blocks = /<script type="application\/json"[^]*?<\/script>|<meta property="csp-nonce" nonce="[^"]+">/g
    expect(page.text.replace(blocks, '')).toBe(INDEX)
  })

  test('the first screen’s reads come in the page, as the API answers them to the person’s key and zone', async () => {
    const cookie = await signIn(bff)
    const page = await bff.call('/leads', { cookie, headers: html })
    const first = '/api/v1/lead/?_skip=0&_limit=50'
    const read = upstream.requests.find((request) => request.url === first)
    expect(read?.headers.authorization).toBe(basic(SESSION_KEY))
    // The zone's offset as the proxy sends it with the browser's own reads.
    await bff.call('/api/v1/me/', { cookie })
    const proxied = upstream.requests.findLast((request) => request.url === '/api/v1/me/')
    expect(read?.headers['x-tz-offset']).toBe(proxied?.headers['x-tz-offset'])
    // The fake API echoes a lead list's request, and answers the others with their address.
    expect(answersBlock(page.text)).toEqual({
      '/api/v1/status/lead/': { ok: true, url: '/api/v1/status/lead/' },
      '/api/v1/saved_search/?type=lead&_limit=100': { ok: true, url: '/api/v1/saved_search/?type=lead&_limit=100' },
      '/api/v1/custom_field/lead/?_limit=100': { ok: true, url: '/api/v1/custom_field/lead/?_limit=100' },
      [first]: { method: 'GET', url: first, body: '' },
    })
    expect(page.text.indexOf(`id="${PAGE_ANSWERS_ELEMENT_ID}"`)).toBeGreaterThan(page.text.indexOf('<div id="root">'))
    // A search, a screen that reads nothing first, a HEAD: no answers.
    const search = answersBlock((await bff.call('/leads?query=acme', { cookie, headers: html })).text)
    expect(Object.keys(search ?? {})).not.toContain(first)
    expect(answersBlock((await bff.call('/settings/users', { cookie, headers: html })).text)).toBeUndefined()
    const head = await bff.call('/leads', { method: 'HEAD', cookie, headers: html })
    expect(head.status).toBe(200)
    expect(head.text).toBe('')
  })

  test('the report’s first reads are this year’s in the person’s own zone', async () => {
    // New Year's Eve, 20:00 UTC: already 2027 in Tokyo, still 2026 in New York.
    bff.clock.now = new Date('2026-12-31T20:00:00Z')
    const year = async (timeZone: string) => {
      const cookie = await signIn(bff, timeZone)
      const answers = answersBlock((await bff.call('/reports', { cookie, headers: html })).text) ?? {}
      const reads = Object.keys(answers).filter((path) => path.startsWith('/api/v1/opportunity/'))
      expect(reads, timeZone).toHaveLength(2)
      return reads.map((path) => new URL(path, 'http://x').searchParams.get('date_won__gte'))
    }
    expect(await year('Asia/Tokyo')).toEqual(['2027-01-01', '2027-01-01'])
    expect(await year('America/New_York')).toEqual(['2026-01-01', '2026-01-01'])
  })

  test('a screen’s own chunks are preloaded, signed in only', async () => {
    const links =
      '<link rel="modulepreload" crossorigin href="/assets/_app-1a.js">' +
      '<link rel="modulepreload" crossorigin href="/assets/lead-2b.js">'
    const cookie = await signIn(bff)
    const lead = (await bff.call('/leads/lead_abc?activity=calls', { cookie, headers: html })).text
    expect(lead.indexOf(links)).toBeGreaterThan(0)
    expect(lead.indexOf(links)).toBeLessThan(lead.indexOf('</head>'))
    expect((await bff.call('/inbox', { cookie, headers: html })).text).not.toContain('modulepreload')
    // Signed out, the app goes to the sign-in page: the lead's code would be loaded for nothing.
    expect((await bff.call('/leads/lead_abc', { headers: html })).text).toBe(INDEX)
  })

  test('a name that reads as markup stays inside the block', async () => {
    Object.assign(annAtTheApi, { firstName: '</script><script>alert(1)</script>' })
    try {
      const cookie = await signIn(bff)
      // The profile is read again when the zone is sent, as the app does on its first screen.
      await bff.call('/auth/session', {
        method: 'PUT',
        cookie,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ time_zone: 'UTC' }),
      })
      // A screen whose page carries no answers (the app's root carries the leads list's, in a second block).
      const page = await bff.call('/settings/users', { cookie, headers: html })
      expect(page.text.match(/<\/script>/g)).toHaveLength(1)
      expect(sessionBlock(page.text)).toMatchObject({ user: { first_name: '</script><script>alert(1)</script>' } })
    } finally {
      Object.assign(annAtTheApi, { firstName: 'Ann' })
    }
  })

  test('signed out, or with a cookie that opens no session, it is the build’s page as it is', async () => {
    const anonymous = await bff.call('/leads', { headers: html })
    expect(anonymous.text).toBe(INDEX)
    expect(anonymous.headers.get('cache-control')).toBe('no-cache')
    const stale = await bff.call('/leads', { cookie: `__Host-leadline_session=${'A'.repeat(43)}`, headers: html })
    expect(stale.text).toBe(INDEX)
    // The stale cookie is cleared, as any other request with it would.
    expect(stale.setCookies.join('\n')).toMatch(/leadline_session=;/)
  })

  test('after signing out the page carries no session', async () => {
    const cookie = await signIn(bff)
    expect(sessionBlock((await bff.call('/', { cookie, headers: html })).text)).toBeDefined()
    await bff.call('/auth/session', { method: 'DELETE', cookie })
    expect((await bff.call('/', { cookie, headers: html })).text).toBe(INDEX)
  })
})
