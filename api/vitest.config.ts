import { defineConfig } from 'vitest/config'

// `*.postgres.test.ts` check what only Postgres deployments promise (several api processes sharing one database);
// they belong to the Postgres run of the suite, where LEADLINE_TEST_DB is a postgres URL.
const onPostgres = (process.env.LEADLINE_TEST_DB ?? '').startsWith('postgres')

export default defineConfig({
  resolve: { conditions: ['@leadline/source'] },
  ssr: { resolve: { conditions: ['@leadline/source'] } },
  test: {
    include: ['src/**/*.test.ts'],
    exclude: onPostgres ? [] : ['src/**/*.postgres.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 30_000,
  },
})
