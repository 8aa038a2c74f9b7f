import { defineConfig } from 'vitest/config'

// Unit tests for the web app's pure rules (drafts, bodies, formatting, the kit's class merging); screens are tested by
// the e2e journeys.
export default defineConfig({
  resolve: { conditions: ['@leadline/source'] },
  test: {
    include: ['src/**/*.test.{ts,tsx}'],
  },
})
