import { createHash } from 'node:crypto'
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { cliPath, runCli } from '../../tooling/test-support/api-process.js'
import {
  call,
  createTestContext,
  createTestDatabase,
  testDatabaseKind,
  type TestContext,
  type TestDatabase,
} from '../../tooling/test-support/test-app.js'
import { openDatabase, type Db } from './database.js'

// `leadline backup` and `leadline restore` as a person runs them, on both databases (LEADLINE_TEST_DB): a copy made
// while leads are being written restores whole and consistent, a quiet database comes back table for table, and
// what the commands refuse leaves nothing behind.

let ctx: TestContext
let dir: string
const made: TestDatabase[] = []

beforeAll(async () => {
  if (!existsSync(cliPath)) throw new Error(`${cliPath} is missing: build the api first`)
  ctx = await createTestContext()
  dir = mkdtempSync(join(tmpdir(), 'leadline-backup-'))
})

afterAll(async () => {
  await ctx.close()
  for (const database of made) await database.drop()
  rmSync(dir, { recursive: true, force: true })
})

const leadline = runCli

async function emptyDatabase(): Promise<string> {
  if (testDatabaseKind === 'sqlite') return `sqlite:${join(mkdtempSync(join(dir, 'restored-')), 'leadline.db')}`
  const database = await createTestDatabase()
  made.push(database)
  return database.url
}

async function tables(db: Db): Promise<string[]> {
  const query =
    testDatabaseKind === 'sqlite'
      ? sql<{ name: string }>`select name from sqlite_master where type = 'table' and name not like 'sqlite_%'`
      : sql<{ name: string }>`select tablename as name from pg_tables where schemaname = 'public'`
  return (await query.execute(db)).rows.map((row) => row.name).sort()
}

/** Each table's row count and a SHA-256 of its rows (as JSON, sorted): equal only if every row is. */
async function fingerprint(url: string): Promise<Record<string, string>> {
  const handle = openDatabase(url)
  try {
    const out: Record<string, string> = {}
    for (const table of await tables(handle.db)) {
      const { rows } = await sql<Record<string, unknown>>`select * from ${sql.table(table)}`.execute(handle.db)
      const lines = rows
        .map((row) =>
          JSON.stringify(row, (_key, value: unknown) => (Buffer.isBuffer(value) ? value.toString('base64') : value)),
        )
        .sort()
      out[table] = `${String(rows.length)} ${createHash('sha256').update(lines.join('\n')).digest('hex')}`
    }
    return out
  } finally {
    await handle.close()
  }
}

async function count(url: string, query: string): Promise<number> {
  const handle = openDatabase(url)
  try {
    const { rows } = await sql<{ n: number | string }>`${sql.raw(query)}`.execute(handle.db)
    return Number(rows[0]?.n ?? 0)
  } finally {
    await handle.close()
  }
}

const newLead = (i: number) =>
  call(ctx.app, ctx.org.admin.key, 'POST', '/lead/', {
    body: {
      name: `Backup Co ${String(i)}`,
      contacts: [{ name: `Pat ${String(i)}`, emails: [{ email: `pat${String(i)}@backup.test` }] }],
    },
  })

describe('leadline backup and restore', () => {
  it('copies a database as leads are written: the copy restores whole, consistent, and of one moment', async () => {
    const leadsOf = (url: string) =>
      count(url, `select count(*) as n from lead where organization_id = '${ctx.org.id}'`)
    for (let i = 0; i < 20; i++) expect((await newLead(i)).statusCode).toBe(200)
    const before = await leadsOf(ctx.database.url)
    const file = join(dir, `during-${testDatabaseKind}.backup`)
    const writes = { on: true }
    let written = 0
    const writer = (async () => {
      for (let i = 1000; writes.on; i++) {
        expect((await newLead(i)).statusCode).toBe(200)
        written += 1
      }
    })()
    const backup = await leadline(['backup', file, '--db', ctx.database.url, '--json'])
    const duringBackup = written
    writes.on = false
    await writer
    expect(backup.code, backup.stderr).toBe(0)
    expect(duringBackup).toBeGreaterThan(0)
    expect(JSON.parse(backup.stdout)).toMatchObject({ file, kind: testDatabaseKind, migrations: expect.any(Number) })
    expect(existsSync(`${file}.partial`)).toBe(false)

    const target = await emptyDatabase()
    const restore = await leadline(['restore', file, '--db', target, '--json'])
    expect(restore.code, restore.stderr).toBe(0)
    const restored = await leadsOf(target)
    expect(restored).toBeGreaterThanOrEqual(before)
    expect(restored).toBeLessThanOrEqual(before + written)
    // Of one moment: what the triggers keep beside the leads agrees with them, and no contact lost its lead.
    expect(
      await count(target, `select leads as n from organization_lead_count where organization_id = '${ctx.org.id}'`),
    ).toBe(restored)
    expect(await count(target, 'select count(*) as n from contact where lead_id not in (select id from lead)')).toBe(0)
    expect(
      await count(target, `select count(*) as n from contact where organization_id = '${ctx.org.id}'`),
    ).toBeGreaterThanOrEqual(restored)
  })

  it('brings a quiet database back table for table: every count and checksum the same', async () => {
    for (let i = 2000; i < 2010; i++) expect((await newLead(i)).statusCode).toBe(200)
    const file = join(dir, `quiet-${testDatabaseKind}.backup`)
    const backup = await leadline(['backup', file, '--db', ctx.database.url])
    expect(backup.code, backup.stderr).toBe(0)
    expect(backup.stdout).toContain(`Backed up to ${file}`)
    const target = await emptyDatabase()
    expect((await leadline(['restore', file, '--db', target])).code).toBe(0)
    const source = await fingerprint(ctx.database.url)
    expect(Object.keys(source)).toEqual(expect.arrayContaining(['lead', 'contact', 'event', 'leadline_migration']))
    expect(await fingerprint(target)).toEqual(source)
  })

  it('refuses an existing FILE, a database that is not empty, and a file that is no backup, leaving nothing', async () => {
    const taken = join(dir, 'taken.backup')
    writeFileSync(taken, 'keep me')
    const exists = await leadline(['backup', taken, '--db', ctx.database.url])
    expect(exists.code).toBe(2)
    expect(exists.stderr).toContain('already exists')
    const file = join(dir, `refusals-${testDatabaseKind}.backup`)
    expect((await leadline(['backup', file, '--db', ctx.database.url])).code).toBe(0)
    const notEmpty = await leadline(['restore', file, '--db', ctx.database.url])
    expect(notEmpty.code).toBe(2)
    expect(notEmpty.stderr).toContain('not empty')
    const target = await emptyDatabase()
    const notBackup = await leadline(['restore', taken, '--db', target])
    expect(notBackup.code).toBe(2)
    expect(notBackup.stderr).toContain('neither a SQLite database nor a pg_dump archive')
    const inMemory = await leadline(['restore', file, '--db', 'sqlite::memory:'])
    expect(inMemory.code).toBe(2)
    expect(inMemory.stderr).toContain(testDatabaseKind === 'sqlite' ? 'restore into a file' : 'is a postgres backup')
    const missing = await leadline(['restore', join(dir, 'missing.backup'), '--db', target])
    expect(missing.code).toBe(2)
    expect(missing.stderr).toContain('does not exist')
    // The first refusals changed nothing: the target still restores.
    expect((await leadline(['restore', file, '--db', target])).code).toBe(0)
  })
})
