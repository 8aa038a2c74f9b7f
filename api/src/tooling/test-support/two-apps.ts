import type { FastifyInstance } from 'fastify'
import { buildApp } from '../../app/app.js'
import { loadConfig } from '../../platform/config.js'
import { openDatabase, type DatabaseHandle } from '../../platform/data/database.js'
import { migrateToLatest } from '../../platform/data/migrate.js'
import { createOrg, createTestDatabase, TestClock, testResolver, type TestOrg } from './test-app.js'

/** One side of a pair: an app with its own database handle, so its own caches, as a separate process has. */
export interface AppSide {
  app: FastifyInstance
  database: DatabaseHandle
}

export interface TwoApps {
  a: AppSide
  b: AppSide
  clock: TestClock
  /** A fresh organization (an admin and a plain user), so a test's lead lists hold only its own leads. */
  createOrg(name: string): Promise<TestOrg>
  close(): Promise<void>
}

/** Two apps on one test database (LEADLINE_TEST_DB picks SQLite or Postgres), each with its own connections. */
export async function createTwoApps(): Promise<TwoApps> {
  const testDb = await createTestDatabase()
  const clock = new TestClock()
  const config = loadConfig({ DATABASE_URL: testDb.url })
  const open = async (): Promise<AppSide> => {
    const database = openDatabase(testDb.url)
    await migrateToLatest(database.db)
    return { app: await buildApp({ database, config, clock, logger: false, resolve: testResolver }), database }
  }
  const a = await open()
  const b = await open()
  return {
    a,
    b,
    clock,
    createOrg: (name) => createOrg(a.database, clock, name),
    close: async () => {
      for (const side of [a, b]) {
        await side.app.close()
        await side.database.close()
      }
      await testDb.drop()
    },
  }
}
