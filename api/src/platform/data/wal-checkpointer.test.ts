import { existsSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import SqliteDatabase from 'better-sqlite3'
import { afterEach, beforeAll, expect, it, vi } from 'vitest'
import { startWalCheckpointer, walAutocheckpoint, type WalCheckpointer } from './wal-checkpointer.js'
import { scratchDirectories } from '../../tooling/test-support/scratch-directories.js'

// The checkpointer thread (decision 0085) on a real file. A thread cannot load TypeScript, so this runs the compiled
// thread (`npm test` builds the api first).

const threadFile = fileURLToPath(new URL('../../../dist/platform/data/wal-checkpoint-thread.js', import.meta.url))

const scratch = scratchDirectories('wal')
let writer: SqliteDatabase.Database | undefined
let checkpointer: WalCheckpointer | undefined

beforeAll(() => {
  if (!existsSync(threadFile)) {
    throw new Error(
      `${threadFile} is missing: build the api first (npm test does; or corepack pnpm --filter @leadline/api run build).`,
    )
  }
})
afterEach(async () => {
  await checkpointer?.stop()
  checkpointer = undefined
  writer?.close()
  writer = undefined
  scratch.removeAll()
})

/** A WAL file whose writer never checkpoints by itself, with `rows` rows of 4,000 bytes in its log. */
function fileWithLog(rows: number): string {
  const file = join(scratch.make(), 'wal.db')
  writer = new SqliteDatabase(file)
  writer.pragma('journal_mode = WAL')
  writer.pragma('wal_autocheckpoint = 0')
  writer.exec('create table filler (id integer primary key, body text not null)')
  const insert = writer.prepare('insert into filler (body) values (?)')
  writer.transaction(() => {
    for (let i = 0; i < rows; i += 1) insert.run('x'.repeat(4000))
  })()
  return file
}

it('copies the log into the database file beside a writer that does not checkpoint', async () => {
  const file = fileWithLog(1000)
  // Everything is in the log: the database file has at most its first pages.
  expect(statSync(file).size).toBeLessThan(100_000)
  const errors: unknown[] = []
  checkpointer = startWalCheckpointer({ file, threadFile, intervalMs: 20, onError: (error) => errors.push(error) })
  await checkpointer.started()
  await vi.waitFor(
    () => {
      expect(statSync(file).size).toBeGreaterThan(4_000_000)
    },
    { timeout: 5000, interval: 20 },
  )
  // And it goes on: what the writer commits next is copied too.
  const before = statSync(file).size
  const insert = writer?.prepare('insert into filler (body) values (?)')
  writer?.transaction(() => {
    for (let i = 0; i < 500; i += 1) insert?.run('y'.repeat(4000))
  })()
  await vi.waitFor(
    () => {
      expect(statSync(file).size).toBeGreaterThan(before + 2_000_000)
    },
    { timeout: 5000, interval: 20 },
  )
  expect(errors).toEqual([])
})

it('stops when asked: the thread ends and the writer carries on alone', async () => {
  const file = fileWithLog(10)
  checkpointer = startWalCheckpointer({ file, threadFile, intervalMs: 20, onError: () => undefined })
  await checkpointer.started()
  expect(await checkpointer.stop()).toBe('stopped')
  const size = statSync(file).size
  writer?.prepare('insert into filler (body) values (?)').run('z'.repeat(4000))
  await new Promise((resolve) => setTimeout(resolve, 100))
  // Nothing copies the new row's pages now.
  expect(statSync(file).size).toBe(size)
  expect(writer?.prepare('select count(*) as n from filler').get()).toEqual({ n: 11 })
})

it('says so when the file cannot be opened, and still stops', async () => {
  const dir = scratch.make()
  const errors: unknown[] = []
  checkpointer = startWalCheckpointer({
    file: join(dir, 'missing.db'),
    threadFile,
    intervalMs: 20,
    onError: (error) => errors.push(error),
  })
  await expect(checkpointer.started()).rejects.toThrow(/ended before it started/)
  expect(errors).toHaveLength(1)
  expect(errors[0]).toMatchObject({ message: expect.stringMatching(/missing\.db|unable to open|does not exist/i) })
  expect(await checkpointer.stop()).toBe('stopped')
})

it("sets a connection's own threshold without a transaction, and says what it was", () => {
  const file = fileWithLog(1)
  const connection = new SqliteDatabase(file)
  try {
    expect(walAutocheckpoint(connection)).toBe(1000)
    expect(walAutocheckpoint(connection, 16_384)).toBe(1000)
    expect(walAutocheckpoint(connection)).toBe(16_384)
    // Another connection keeps its own.
    expect(walAutocheckpoint(writer as SqliteDatabase.Database)).toBe(0)
  } finally {
    connection.close()
  }
})
