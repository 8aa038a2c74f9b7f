import { defineConfig } from 'vitest/config'

export default defineConfig({
  resolve: { conditions: ['@leadline/source'] },
  ssr: { resolve: { conditions: ['@leadline/source'] } },
  test: {
    include: ['src/**/*.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 30_000,
  },
})
