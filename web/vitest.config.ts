import { defineConfig } from 'vitest/config'

// Unit tests for the web app's pure rules (drafts, bodies, formatting, the kit's class merging), and component tests of
// a few screens' states (Testing Library, in a happy-dom file's own environment); journeys are the e2e suite's.
export default defineConfig({
  resolve: { conditions: ['@leadline/source'] },
  test: {
    include: ['src/**/*.test.{ts,tsx}'],
  },
})
