import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach, beforeAll, afterAll, expect, it, vi } from 'vitest'
import { serve, type Server } from '../../app/main.js'
import { openDatabase, sqliteFile } from '../../platform/data/database.js'
import { migrateToLatest } from '../../platform/data/migrate.js'
import { systemClock } from '../../platform/data/time.js'
import { WAL_BACKSTOP_PAGES, walAutocheckpoint } from '../../platform/data/wal-checkpointer.js'
import { createImportThreadHost } from './import-thread-host.js'
import { importRequested } from './import-worker.js'
import { basicAuth, createTestContext, type TestContext } from '../../tooling/test-support/test-app.js'

// Imports as `leadline serve` runs them (decision 0053): on the import thread, with its own connection, started by
// the api. A thread cannot load TypeScript, so these run the compiled thread (`npm test` builds the api first); its
// job core, createImportWorker, is the one import-job.test.ts drives in-process.

const threadFile = fileURLToPath(new URL('../../../dist/integrations/imports/import-thread.js', import.meta.url))

let ctx: TestContext
let server: Server | undefined

interface Import {
  id: string
  status: string
  counts: { created: number; contacts_created: number; failed: number }
  progress: { rows_done: number }
}

beforeAll(async () => {
  if (!existsSync(threadFile)) {
    throw new Error(
      `${threadFile} is missing: build the api first (npm test does; or corepack pnpm --filter @leadline/api run build).`,
    )
  }
  ctx = await createTestContext()
})
afterEach(async () => {
  await server?.close()
  server = undefined
})
afterAll(async () => {
  await ctx.close()
})

async function start(batchSize: number, idleMs = 30_000): Promise<Server> {
  server = await serve({
    config: { ...ctx.config, logLevel: 'silent' },
    port: 0,
    host: '127.0.0.1',
    importThreadFile: threadFile,
    importBatchSize: batchSize,
    importThreadTiming: { watchMs: 50, idleMs },
  })
  return server
}

function csv(rows: number, prefix: string): string {
  const lines = ['Company,First Name,Email']
  for (let i = 0; i < rows; i += 1)
    lines.push(`${prefix} ${String(i)} Inc,Person${String(i)},p${String(i)}@${prefix.toLowerCase()}.example`)
  return `${lines.join('\n')}\n`
}

async function api(s: Server, method: string, path: string, body?: string) {
  const res = await fetch(`${s.url}/api/v1${path}`, {
    method,
    headers: {
      authorization: basicAuth(ctx.org.member.key),
      ...(body === undefined ? {} : { 'content-type': 'text/csv' }),
    },
    ...(body === undefined ? {} : { body }),
  })
  const json: unknown = await res.json()
  return { status: res.status, json }
}

async function importOf(s: Server, id: string): Promise<Import> {
  return (await api(s, 'GET', `/import/${id}/`)).json as Import
}

/** Uploads `rows` rows and runs their import with the suggested mapping: its id. */
async function uploadAndRun(s: Server, filename: string, rows: number, prefix: string): Promise<string> {
  const uploaded = await api(s, 'POST', `/import/?filename=${filename}`, csv(rows, prefix))
  expect(uploaded.status).toBe(201)
  const { id } = uploaded.json as Import
  expect((await api(s, 'POST', `/import/${id}/run/`)).status).toBe(200)
  return id
}

async function untilDone(s: Server, id: string, timeout: number): Promise<Import> {
  return vi.waitFor(
    async () => {
      const state = await importOf(s, id)
      expect(state.status).toBe('done')
      return state
    },
    { timeout, interval: 50 },
  )
}

async function leadsNamed(prefix: string): Promise<number> {
  const row = await ctx.database.db
    .selectFrom('lead')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('organization_id', '=', ctx.org.id)
    .where('name', 'like', `${prefix} %`)
    .executeTakeFirstOrThrow()
  return Number(row.n)
}

it('runs an import on the import thread, to the end, with its events', async () => {
  const s = await start(7)
  expect(s.importThread).toBeDefined()
  const id = await uploadAndRun(s, 'threaded.csv', 40, 'Threaded')
  const done = await untilDone(s, id, 15_000)
  expect(done.counts).toMatchObject({ created: 40, contacts_created: 40, failed: 0 })
  expect(await leadsNamed('Threaded')).toBe(40)
  // Each lead's `created` event names the import, written by the thread in its batch's transaction.
  const events = await ctx.database.db
    .selectFrom('event')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('organization_id', '=', ctx.org.id)
    .where('object_type', '=', 'lead')
    .where('action', '=', 'created')
    .where('meta', 'like', `%${id}%`)
    .executeTakeFirstOrThrow()
  expect(Number(events.n)).toBe(40)
})

it('starts another thread when the thread dies, and the job resumes without writing a row twice', async () => {
  const s = await start(5)
  const host = s.importThread
  if (host === undefined) throw new Error('no import thread')
  const id = await uploadAndRun(s, 'dying.csv', 600, 'Dying')
  // Some batches are committed, not all: then the thread dies, as one out of heap would.
  await vi.waitFor(
    async () => {
      const state = await importOf(s, id)
      expect(state.progress.rows_done).toBeGreaterThan(0)
    },
    { timeout: 15_000, interval: 10 },
  )
  const owner = host.owner()
  const restarted = host.started()
  await host.kill()
  await restarted
  expect(host.owner()).not.toBe(owner)
  const done = await untilDone(s, id, 30_000)
  expect(done.counts).toMatchObject({ created: 600, contacts_created: 600, failed: 0 })
  expect(await leadsNamed('Dying')).toBe(600)
  // Claimed twice: by the thread that died, then (its lease given back at once) by the next.
  const row = await ctx.database.db
    .selectFrom('data_import')
    .select('attempts')
    .where('id', '=', id)
    .executeTakeFirstOrThrow()
  expect(row.attempts).toBe(2)
})

it('takes the api’s writes while the thread imports, each in turn, none refused', async () => {
  const s = await start(5)
  const id = await uploadAndRun(s, 'busy.csv', 600, 'Busy')
  const send = async (method: string, path: string, body: unknown) => {
    const res = await fetch(`${s.url}/api/v1${path}`, {
      method,
      headers: { authorization: basicAuth(ctx.org.member.key), 'content-type': 'application/json' },
      body: JSON.stringify(body),
    })
    return { status: res.status, json: (await res.json()) as { id: string } }
  }
  // Creates and updates (each a transaction that reads, then writes) for as long as the import runs.
  const statuses: number[] = []
  let writesDuringRun = 0
  for (let i = 0; ; i += 1) {
    const state = await importOf(s, id)
    if (state.status === 'done') break
    const made = await send('POST', '/lead/', { name: `Meanwhile ${String(i)}`, contacts: [{ name: 'Someone' }] })
    statuses.push(made.status)
    statuses.push((await send('PUT', `/lead/${made.json.id}/`, { description: 'Changed during an import' })).status)
    if (state.progress.rows_done > 0) writesDuringRun += 1
    if (i > 2000) throw new Error(`the import did not end: ${JSON.stringify(state)}`)
  }
  expect(writesDuringRun).toBeGreaterThan(0)
  expect(statuses.filter((status) => status !== 200)).toEqual([])
  expect(await leadsNamed('Busy')).toBe(600)
  expect(await leadsNamed('Meanwhile')).toBe(statuses.length / 2)
})

it('runs the thread only while an import is due: none at start, one for the run, none once idle, one again', async () => {
  const s = await start(50, 300)
  const host = s.importThread
  if (host === undefined) throw new Error('no import thread')
  await new Promise((resolve) => setTimeout(resolve, 200))
  expect(host.owner()).toBeUndefined()
  const first = await uploadAndRun(s, 'first.csv', 100, 'Idlefirst')
  expect(host.owner()).toBeDefined()
  await untilDone(s, first, 15_000)
  await vi.waitFor(
    () => {
      expect(host.owner()).toBeUndefined()
    },
    { timeout: 5000, interval: 20 },
  )
  const second = await uploadAndRun(s, 'second.csv', 100, 'Idlesecond')
  expect((await untilDone(s, second, 15_000)).counts).toMatchObject({ created: 100, failed: 0 })
  expect(await leadsNamed('Idlesecond')).toBe(100)
})

it("holds the api connection's own checkpoints back while the thread and its checkpointer run, then puts them back", async () => {
  // A SQLite file of its own, whichever database the other tests run on: the checkpointer is SQLite's.
  const dir = mkdtempSync(join(tmpdir(), 'leadline-wal-host-'))
  const url = `sqlite:${join(dir, 'host.db')}`
  const database = openDatabase(url)
  try {
    await migrateToLatest(database.db)
    const apiConnection = database.sqlite
    if (apiConnection === undefined) throw new Error('no SQLite connection')
    const errors: unknown[] = []
    const host = createImportThreadHost({
      db: database.db,
      clock: systemClock,
      file: threadFile,
      wal: { file: sqliteFile(url), apiConnection },
      data: {
        databaseUrl: url,
        sqliteCacheMb: 8,
        appUrl: 'http://127.0.0.1:1',
        leadWebhookUrl: null,
        writeLockBuffer: undefined,
      },
      watchMs: 50,
      idleMs: 60_000,
      onError: (error) => errors.push(error),
    })
    expect(walAutocheckpoint(apiConnection)).toBe(1000)
    host.start()
    const started = host.started()
    importRequested()
    await started
    expect(walAutocheckpoint(apiConnection)).toBe(WAL_BACKSTOP_PAGES)
    await host.stop()
    expect(walAutocheckpoint(apiConnection)).toBe(1000)
    expect(errors).toEqual([])
  } finally {
    await database.close()
    rmSync(dir, { recursive: true, force: true })
  }
})
