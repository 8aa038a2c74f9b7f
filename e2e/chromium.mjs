// Debian's Chromium, never a downloaded browser (ARCHITECTURE.md §3), with the flags it runs under here: the journeys'
// config (playwright.config.ts) and the bench's screen paint (screen-paint.mjs) launch it alike.
import process from 'node:process'

export const CHROMIUM_PATH = process.env.LEADLINE_CHROMIUM ?? '/usr/bin/chromium'

export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
]
