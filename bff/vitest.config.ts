import { defineConfig } from 'vitest/config'

// `*.postgres.test.ts` check the BFF's Postgres session store; they make the Postgres run of the suite, where
// LEADLINE_TEST_DB is a postgres URL. The rest runs once, in the SQLite run.
const onPostgres = (process.env.LEADLINE_TEST_DB ?? '').startsWith('postgres')

export default defineConfig({
  resolve: { conditions: ['@leadline/source'] },
  ssr: { resolve: { conditions: ['@leadline/source'] } },
  test: {
    include: onPostgres ? ['src/**/*.postgres.test.ts'] : ['src/**/*.test.ts'],
    exclude: onPostgres ? [] : ['src/**/*.postgres.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 30_000,
  },
})
