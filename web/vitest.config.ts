import { defineConfig } from 'vitest/config'

// Unit tests for the web app's pure rules (drafts, bodies, formatting, the kit's class merging), and screens rendered in
// jsdom (`// @vitest-environment jsdom`) against a fake server (src/lib/screen-fixture.tsx); whole journeys through the
// real servers are the e2e suite's.
export default defineConfig({
  resolve: { conditions: ['@leadline/source'] },
  // The tests in Node's environment (the server render's) resolve as a server does: from the sources too, not from
  // a build of @leadline/shared that may be older.
  ssr: { resolve: { conditions: ['@leadline/source'] } },
  test: {
    include: ['src/**/*.test.{ts,tsx}', 'vite-route-preloads.test.ts'],
  },
})
