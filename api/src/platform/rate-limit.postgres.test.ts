import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openDatabase, type DatabaseHandle } from '../db/database.js'
import { migrateToLatest } from '../db/migrate.js'
import {
  basicAuth,
  createOrg,
  createTestDatabase,
  TestClock,
  type TestDatabase,
  type TestOrg,
} from '../test-support/test-app.js'

const cli = fileURLToPath(new URL('../../dist/cli.js', import.meta.url))

interface Server {
  child: ChildProcess
  url: string
}

function startServer(databaseUrl: string): Promise<Server> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cli, 'serve', '--port', '0', '--db', databaseUrl], {
      env: { ...process.env, LEADLINE_RATE_LIMIT: '6', LEADLINE_RATE_WINDOW: '120', LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let output = ''
    const onData = (chunk: Buffer) => {
      output += chunk.toString()
      const match = /listening on (http:\/\/[^\s"]+)/.exec(output)
      if (match?.[1] !== undefined) resolve({ child, url: match[1].replace(/\/$/, '') })
    }
    child.stdout.on('data', onData)
    child.stderr.on('data', onData)
    child.on('exit', (code) => {
      reject(new Error(`api process exited with ${String(code)} before listening:\n${output}`))
    })
  })
}

let testDb: TestDatabase
let database: DatabaseHandle
let servers: Server[] = []
let org: TestOrg

beforeAll(async () => {
  if (!existsSync(cli)) throw new Error(`${cli} is missing: build the api package first (pnpm -r build)`)
  testDb = await createTestDatabase()
  database = openDatabase(testDb.url)
  await migrateToLatest(database.db)
  org = await createOrg(database, new TestClock(), 'Shared Limits Co')
  servers = await Promise.all([startServer(testDb.url), startServer(testDb.url)])
})

afterAll(async () => {
  for (const server of servers) server.child.kill('SIGTERM')
  await Promise.all(servers.map((s) => new Promise((resolve) => s.child.once('exit', resolve))))
  await database.close()
  await testDb.drop()
})

describe('two api processes on one Postgres', () => {
  it('share one rate limit per key, endpoint group and method', async () => {
    const results: { server: number; status: number; remaining: string | null }[] = []
    for (let i = 0; i < 8; i++) {
      const server = i % 2
      const res = await fetch(`${servers[server]?.url ?? ''}/api/v1/me/`, {
        headers: { authorization: basicAuth(org.admin.key) },
      })
      results.push({ server, status: res.status, remaining: res.headers.get('x-rate-limit-remaining') })
    }
    expect(results.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 200, 429, 429])
    expect(results.map((r) => r.remaining)).toEqual(['5', '4', '3', '2', '1', '0', '0', '0'])
  })
})
