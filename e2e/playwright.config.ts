import { defineConfig } from '@playwright/test'
import { CHROMIUM_ARGS, CHROMIUM_PATH } from './chromium.mjs'

// `*.postgres.spec.ts` need a Postgres server (LEADLINE_TEST_DB, which `npm test` sets while its cluster runs).
const onPostgres = (process.env.LEADLINE_TEST_DB ?? '').startsWith('postgres')

// Debian's Chromium, never a downloaded browser (ARCHITECTURE.md §3). A failed journey keeps its trace and a screenshot.
export default defineConfig({
  testDir: './tests',
  testIgnore: onPostgres ? [] : ['**/*.postgres.spec.ts'],
  // Kills the api and bff processes of a worker that was killed before it could stop them.
  globalSetup: './global-setup.config.ts',
  outputDir: './test-results',
  fullyParallel: false,
  workers: 1,
  retries: 0,
  // Generous: a busy two-core machine runs the api, the bff and Chromium at once; what a journey waits for is in its
  // own expectations (a live update's 2 seconds among them).
  timeout: 60_000,
  expect: { timeout: 7_000 },
  reporter: [['list']],
  use: {
    trace: 'retain-on-failure',
    screenshot: 'only-on-failure',
    launchOptions: { executablePath: CHROMIUM_PATH, args: [...CHROMIUM_ARGS] },
  },
})
