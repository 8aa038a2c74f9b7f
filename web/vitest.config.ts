import { defineConfig } from 'vitest/config'

// Unit tests for the web app's pure rules (drafts, bodies, formatting, the kit's class merging), and screens rendered in
// jsdom (`// @vitest-environment jsdom`) against a fake server (src/lib/screen-fixture.tsx); whole journeys through the
// real servers are the e2e suite's.
export default defineConfig({
  resolve: { conditions: ['@leadline/source'] },
  test: {
    include: ['src/**/*.test.{ts,tsx}', 'vite-route-preloads.test.ts'],
  },
})
