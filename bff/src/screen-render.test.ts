import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import pino from 'pino'
import { afterEach, beforeEach, describe, expect, test } from 'vitest'
import { PAGE_ANSWERS_ELEMENT_ID } from '@leadline/shared/first-screen-requests'
import { INLINE_STYLESHEET_MAX_BYTES, PageStylesheet } from './page-stylesheet.js'
import { loadScreenRenderer } from './screen-render.js'
import { signIn, startBff, startFakeUpstream, tempDir, testConfig, type StartedBff } from './test-support/harness.js'

// A signed-in page carries its first screen drawn by the web app's server render (decision 0092), here a module of
// the test's own in the render's place: what the BFF does with what it draws, not how the app draws (the web app's
// server-render.test.ts, and the journey web-first-answers.spec.ts through the real build).

const CSS = 'body{color:#123}.x{margin:0}'
const INDEX =
  '<!doctype html><html><head><title>Leadline</title>' +
  '<link rel="stylesheet" crossorigin href="/assets/index-abc.css"></head>' +
  '<body><div id="root"></div></body></html>'
const html = { accept: 'text/html' }

/** The test's render: the screen names the answers it was given, and some screens fail in each way one can. */
const RENDER_MODULE = `
export async function renderScreen({ url, session, answers }) {
  if (url.startsWith('/inbox')) return { notDrawn: 'not this one' }
  if (url.startsWith('/opportunities')) throw new Error('a component threw')
  if (url.startsWith('/settings')) {
    await new Promise((resolve) => setTimeout(resolve, 2000))
    return { html: '<p>too late</p>' }
  }
  return { html: '<h1>Drawn for ' + session.organization.id + '</h1><p>' + Object.keys(answers).join(' ') + '</p>' }
}
`

/** What the page's root holds. */
function rootOf(page: string): string {
  const open = '<div id="root">'
  const at = page.indexOf(open)
  return page.slice(at + open.length, page.indexOf(`<script type="application/json" id="${PAGE_ANSWERS_ELEMENT_ID}"`))
}

describe('a page drawn by the server render', () => {
  let upstream: Awaited<ReturnType<typeof startFakeUpstream>>
  let dir: Awaited<ReturnType<typeof tempDir>>
  let bff: StartedBff

  beforeEach(async () => {
    upstream = await startFakeUpstream()
    dir = await tempDir()
    const dist = join(dir.path, 'dist')
    await mkdir(join(dist, 'assets'), { recursive: true })
    await writeFile(join(dist, 'index.html'), INDEX)
    await writeFile(join(dist, 'assets', 'index-abc.css'), CSS)
    const module = join(dir.path, 'server-render.mjs')
    await writeFile(module, RENDER_MODULE)
    bff = await startBff(
      testConfig({ apiUrl: upstream.url, dataDir: dir.path, webDist: dist, webServerRender: module }),
    )
    expect(await bff.screens.loaded).toBe(true)
  })

  afterEach(async () => {
    await bff.close()
    await upstream.close()
    await dir.remove()
  })

  test('carries the screen in its root, inert until the app draws it again, and the answers after it', async () => {
    const cookie = await signIn(bff)
    const page = (await bff.call('/leads', { cookie, headers: html })).text
    expect(rootOf(page)).toMatch(/^<div inert><h1>Drawn for orga_\w+<\/h1><p>\/api\/v1\/status\/lead\/ /)
    expect(rootOf(page)).toContain('/api/v1/lead/?_skip=0&_limit=50</p></div></div>')
    expect(page.indexOf(`id="${PAGE_ANSWERS_ELEMENT_ID}"`)).toBeGreaterThan(page.indexOf('</h1>'))
    expect(page.endsWith('</body></html>')).toBe(true)
  })

  test('inlines the stylesheet under a nonce of its own, which the page’s policy lets in, and names it', async () => {
    const cookie = await signIn(bff)
    const nonces = new Set<string>()
    for (const path of ['/leads', '/reports']) {
      const page = await bff.call(path, { cookie, headers: html })
      const nonce = /<style nonce="([A-Za-z0-9+/]{22}==)">/.exec(page.text)?.[1] ?? ''
      expect(page.text, path).toContain(`<style nonce="${nonce}">${CSS}</style>`)
      expect(page.text, path).not.toContain('index-abc.css')
      // React Aria reads it from there for the styles it adds.
      expect(page.text, path).toContain(`<meta property="csp-nonce" nonce="${nonce}"></head>`)
      expect(page.headers.get('content-security-policy'), path).toBe(
        `default-src 'self'; frame-ancestors 'none'; base-uri 'self'; form-action 'self'; style-src 'self' 'nonce-${nonce}'`,
      )
      nonces.add(nonce)
    }
    expect(nonces.size).toBe(2)
    // Signed out, the page is the build's: linked, under the usual policy.
    const signedOut = await bff.call('/leads', { headers: html })
    expect(signedOut.text).toBe(INDEX)
    expect(signedOut.headers.get('content-security-policy')).not.toContain('style-src')
  })

  test('a screen the render does not draw, fails to draw or draws late leaves the root empty, and the page whole', async () => {
    const cookie = await signIn(bff)
    for (const path of ['/inbox', '/opportunities', '/settings']) {
      const started = Date.now()
      const page = (await bff.call(path, { cookie, headers: html })).text
      expect(Date.now() - started, path).toBeLessThan(1500)
      expect(rootOf(page), path).toBe('</div>')
      expect(page, path).toContain(`id="${PAGE_ANSWERS_ELEMENT_ID}"`)
    }
    expect(bff.logs.join('\n')).toContain('a component threw')
  })

  test('a screen without first answers is not drawn', async () => {
    const cookie = await signIn(bff)
    expect((await bff.call('/settings/users', { cookie, headers: html })).text).toContain('<div id="root"></div>')
  })
})

describe('loadScreenRenderer', () => {
  const logger = pino({ level: 'silent' })

  test('no module, or one without renderScreen, or one that fails to load: nothing is drawn', async () => {
    const dir = await tempDir()
    try {
      const answers = new Map([['/api/v1/a/', '{}']])
      const missing = loadScreenRenderer(join(dir.path, 'none.mjs'), logger)
      expect(await missing.loaded).toBe(false)
      expect(await missing.render('/leads', {}, answers)).toBeUndefined()
      await writeFile(join(dir.path, 'other.mjs'), 'export const something = 1\n')
      expect(await loadScreenRenderer(join(dir.path, 'other.mjs'), logger).loaded).toBe(false)
      await writeFile(join(dir.path, 'broken.mjs'), 'throw new Error("no")\n')
      expect(await loadScreenRenderer(join(dir.path, 'broken.mjs'), logger).loaded).toBe(false)
    } finally {
      await dir.remove()
    }
  })

  test('gives the render the answers parsed, and nothing to draw without answers', async () => {
    const dir = await tempDir()
    try {
      const file = join(dir.path, 'echo.mjs')
      await writeFile(file, 'export async function renderScreen(s) { return { html: JSON.stringify(s) } }\n')
      const renderer = loadScreenRenderer(file, logger)
      expect(await renderer.loaded).toBe(true)
      const drawn = await renderer.render('/leads?x=1', { a: 1 }, new Map([['/api/v1/a/', '{"b":[2]}']]))
      expect(JSON.parse(drawn ?? '')).toEqual({
        url: '/leads?x=1',
        session: { a: 1 },
        answers: { '/api/v1/a/': { b: [2] } },
      })
      expect(await renderer.render('/leads', {}, new Map())).toBeUndefined()
    } finally {
      await dir.remove()
    }
  })
})

describe('PageStylesheet', () => {
  test('leaves linked a sheet that could end its element, one too large, and a missing one', async () => {
    const dir = await tempDir()
    try {
      await mkdir(join(dir.path, 'assets'))
      const link = (name: string) => `<link rel="stylesheet" crossorigin href="/assets/${name}">`
      const meta = '<meta property="csp-nonce" nonce="n0">'
      await writeFile(join(dir.path, 'assets', 'ends.css'), 'a{content:"</STYLE>"}')
      await writeFile(join(dir.path, 'assets', 'large.css'), `a{}${' '.repeat(INLINE_STYLESHEET_MAX_BYTES)}`)
      await writeFile(join(dir.path, 'assets', 'fine.css'), 'a{color:red}')
      const sheets = new PageStylesheet(dir.path)
      for (const name of ['ends.css', 'large.css', 'missing.css'])
        expect(sheets.withStyles(`<head>${link(name)}</head>`, 'n0'), name).toBe(`<head>${link(name)}${meta}</head>`)
      expect(sheets.withStyles('<head></head>', 'n0')).toBe(`<head>${meta}</head>`)
      expect(sheets.withStyles(`<head>${link('fine.css')}</head>`, 'n0')).toBe(
        `<head><style nonce="n0">a{color:red}</style>${meta}</head>`,
      )
    } finally {
      await dir.remove()
    }
  })
})
