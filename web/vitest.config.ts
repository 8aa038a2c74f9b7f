import { defineConfig } from 'vitest/config'

// Unit tests for the web app's pure rules (drafts, bodies, formatting); screens are tested by the e2e journeys.
export default defineConfig({
  resolve: { conditions: ['@leadline/source'] },
  test: {
    include: ['src/**/*.test.ts'],
  },
})
