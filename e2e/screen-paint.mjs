// Largest contentful paint of each screen, on a fresh load, in Debian's Chromium (issue 34; `npm run bench -- --only
// screens` runs it against a BFF signed in to the bench's organization). Reads its input as JSON from the
// LEADLINE_SCREENS environment variable ({ url, cookie, screens: [{ name, path }], loads }) and prints one JSON object:
// { screens: [{ name, path, lcp: [ms…], landed: [paths] }] }. It measures and says; the bench compares with the target.
import process from 'node:process'
import { URL } from 'node:url'
import { chromium } from '@playwright/test'
import { CHROMIUM_ARGS, CHROMIUM_PATH } from './chromium.mjs'

const input = JSON.parse(process.env.LEADLINE_SCREENS ?? '{}')
const [cookieName = '', ...cookieValue] = String(input.cookie ?? '').split('=')

/**
 * The page's largest contentful paint so far, in ms from navigation start (null when none was reported). It runs in
 * the page, hence the browser's globals through globalThis.
 */
function largestPaint() {
  return new Promise((resolve) => {
    let last = null
    new globalThis.PerformanceObserver((list) => {
      for (const entry of list.getEntries()) last = entry.startTime
    }).observe({ type: 'largest-contentful-paint', buffered: true })
    // Buffered entries come in the observer's first callback, after this task.
    globalThis.setTimeout(() => resolve(last), 100)
  })
}

const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: [...CHROMIUM_ARGS] })
try {
  const screens = []
  for (const screen of input.screens ?? []) {
    const lcp = []
    const landed = new Set()
    for (let i = 0; i < (input.loads ?? 3); i++) {
      // A fresh context each time: nothing cached, as a person opening the screen from a link.
      const context = await browser.newContext()
      await context.addCookies([{ name: cookieName, value: cookieValue.join('='), url: input.url }])
      const page = await context.newPage()
      await page.goto(`${input.url}${screen.path}`, { waitUntil: 'networkidle' })
      lcp.push(await page.evaluate(largestPaint))
      // Where the app ended up: a screen that sent the browser to sign in was not the one measured.
      landed.add(new URL(page.url()).pathname)
      await context.close()
    }
    screens.push({ name: screen.name, path: screen.path, lcp, landed: [...landed] })
  }
  process.stdout.write(`${JSON.stringify({ screens })}\n`)
} finally {
  await browser.close()
}
