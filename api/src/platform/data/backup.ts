import { spawn } from 'node:child_process'
import { closeSync, existsSync, mkdirSync, openSync, readSync, renameSync, rmSync, statSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import SqliteDatabase from 'better-sqlite3'
import { isPostgresUrl, postgresDriver, sqliteFile } from './database.js'

// `leadline backup FILE` and `leadline restore FILE` (issue 35). SQLite: the online backup API, all pages in one
// step, which is one read transaction — a consistent copy while the api goes on writing (WAL: readers never block
// writers). Postgres: pg_dump's custom format (one snapshot) and pg_restore, when they are installed; otherwise the
// command to run is said. Each writes to FILE.partial and renames it into place, so an interrupted run leaves no
// file that looks whole.

export type BackupKind = 'sqlite' | 'postgres'

export interface BackupResult {
  file: string
  kind: BackupKind
  bytes: number
  /** The migrations the copy holds: the build it came from. */
  migrations: number
}

/** A tool the job needs is missing: the message holds the command to run instead. */
export class MissingToolError extends Error {
  override name = 'MissingToolError'
}

/** Input the command refuses: a FILE that exists, a target that is not empty, a file that is no backup. */
export class BackupRefused extends Error {
  override name = 'BackupRefused'
}

const SQLITE_MAGIC = 'SQLite format 3\0'
const PG_DUMP_MAGIC = 'PGDMP'

/** What `file` holds by its first bytes: a SQLite database, a pg_dump archive, or neither. */
export function backupKindOf(file: string): BackupKind | undefined {
  const head = Buffer.alloc(16)
  const fd = openSync(file, 'r')
  let read = 0
  try {
    read = readSync(fd, head, 0, 16, 0)
  } finally {
    closeSync(fd)
  }
  const text = head.subarray(0, read).toString('latin1')
  if (text === SQLITE_MAGIC) return 'sqlite'
  if (text.startsWith(PG_DUMP_MAGIC)) return 'postgres'
  return undefined
}

/** The URL without its password, and the password for PGPASSWORD: never on a command line `ps` shows. */
function connection(url: string): { url: string; env: NodeJS.ProcessEnv } {
  const parsed = new URL(url)
  const password = decodeURIComponent(parsed.password)
  parsed.password = ''
  return { url: parsed.toString(), env: password === '' ? {} : { PGPASSWORD: password } }
}

function run(tool: string, args: string[], env: NodeJS.ProcessEnv, instead: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(tool, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'] })
    let stderr = ''
    child.stderr.on('data', (chunk: Buffer) => {
      // Bounded: a failing tool's last words are enough.
      stderr = (stderr + chunk.toString('utf8')).slice(-4000)
    })
    child.once('error', (error: NodeJS.ErrnoException) => {
      reject(
        error.code === 'ENOENT' ? new MissingToolError(`${tool} is not installed; run instead:\n  ${instead}`) : error,
      )
    })
    child.once('close', (code) => {
      if (code === 0) resolve()
      else reject(new Error(`${tool} exited with ${String(code)}: ${stderr.trim()}`))
    })
  })
}

function quoted(arg: string): string {
  return /^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replaceAll("'", "'\\''")}'`
}

function migrationsInSqlite(file: string): number {
  const copy = new SqliteDatabase(file, { readonly: true, fileMustExist: true })
  try {
    const check = copy.pragma('quick_check', { simple: true })
    if (check !== 'ok') throw new Error(`the copy failed SQLite's check: ${String(check)}`)
    const row = copy.prepare('select count(*) as n from leadline_migration').get() as { n: number } | undefined
    return row?.n ?? 0
  } finally {
    copy.close()
  }
}

async function migrationsInPostgres(url: string): Promise<number> {
  const client = new (postgresDriver().Client)({ connectionString: url })
  await client.connect()
  try {
    const { rows } = await client.query<{ n: string }>('select count(*) as n from leadline_migration')
    return Number(rows[0]?.n ?? 0)
  } finally {
    await client.end()
  }
}

/** Copies the database at `url` into `file`, which must not exist yet. */
export async function backupDatabase(url: string, file: string): Promise<BackupResult> {
  if (existsSync(file)) throw new BackupRefused(`${file} already exists: name a new file`)
  const partial = `${file}.partial`
  rmSync(partial, { force: true })
  try {
    if (isPostgresUrl(url)) {
      const { url: bare, env } = connection(url)
      const args = ['--format=custom', '--no-owner', '--no-privileges', `--file=${partial}`, `--dbname=${bare}`]
      const instead = ['pg_dump', '--format=custom', '--no-owner', '--no-privileges', `--file=${file}`, bare]
      await run('pg_dump', args, env, instead.map(quoted).join(' '))
      renameSync(partial, file)
      return { file, kind: 'postgres', bytes: statSync(file).size, migrations: await migrationsInPostgres(url) }
    }
    const path = sqliteFile(url)
    if (path === ':memory:' || path === '') throw new BackupRefused('an in-memory database has nothing to back up')
    const source = new SqliteDatabase(path, { fileMustExist: true })
    try {
      source.pragma('busy_timeout = 5000')
      // Every page in one step: one read transaction, so the copy is of one moment however the api writes.
      await source.backup(partial, { progress: () => 0x7fffffff })
    } finally {
      source.close()
    }
    const migrations = migrationsInSqlite(partial)
    renameSync(partial, file)
    return { file, kind: 'sqlite', bytes: statSync(file).size, migrations }
  } catch (error) {
    rmSync(partial, { force: true })
    throw error
  }
}

async function postgresTables(url: string): Promise<number> {
  const client = new (postgresDriver().Client)({ connectionString: url })
  await client.connect()
  try {
    const { rows } = await client.query<{ n: string }>(
      "select count(*) as n from pg_tables where schemaname not in ('pg_catalog', 'information_schema')",
    )
    return Number(rows[0]?.n ?? 0)
  } finally {
    await client.end()
  }
}

function sqliteTables(file: string): number {
  if (!existsSync(file) || statSync(file).size === 0) return 0
  const target = new SqliteDatabase(file, { readonly: true, fileMustExist: true })
  try {
    const row = target.prepare("select count(*) as n from sqlite_master where type = 'table'").get() as { n: number }
    return row.n
  } finally {
    target.close()
  }
}

/** Restores `file` (a backup this command made) into the empty database at `url`. */
export async function restoreDatabase(url: string, file: string): Promise<BackupResult> {
  if (!existsSync(file)) throw new BackupRefused(`${file} does not exist`)
  const kind = backupKindOf(file)
  if (kind === undefined) throw new BackupRefused(`${file} is neither a SQLite database nor a pg_dump archive`)
  const target: BackupKind = isPostgresUrl(url) ? 'postgres' : 'sqlite'
  if (kind !== target) {
    throw new BackupRefused(
      `${file} is a ${kind} backup: restore it into a ${kind === 'sqlite' ? 'sqlite:' : 'postgres://'} database`,
    )
  }
  if (kind === 'postgres') {
    if ((await postgresTables(url)) > 0) throw new BackupRefused('the database is not empty: restore into a new one')
    const { url: bare, env } = connection(url)
    const args = ['--no-owner', '--no-privileges', '--exit-on-error', `--dbname=${bare}`, file]
    await run(
      'pg_restore',
      args,
      env,
      ['pg_restore', ...args.slice(0, 3), `--dbname=${bare}`, file].map(quoted).join(' '),
    )
    return { file, kind, bytes: statSync(file).size, migrations: await migrationsInPostgres(url) }
  }
  const path = sqliteFile(url)
  if (path === ':memory:' || path === '') throw new BackupRefused('restore into a file: --db sqlite:<path>')
  mkdirSync(dirname(resolve(path)), { recursive: true })
  if (sqliteTables(path) > 0) throw new BackupRefused(`${path} is not empty: restore into a new file`)
  const migrations = migrationsInSqlite(file)
  const partial = `${path}.partial`
  rmSync(partial, { force: true })
  const source = new SqliteDatabase(file, { readonly: true, fileMustExist: true })
  try {
    await source.backup(partial, { progress: () => 0x7fffffff })
  } catch (error) {
    rmSync(partial, { force: true })
    throw error
  } finally {
    source.close()
  }
  // An empty file left by an earlier open (and its journal files) gives way to the restored one.
  for (const suffix of ['-wal', '-shm', '-journal']) rmSync(`${path}${suffix}`, { force: true })
  renameSync(partial, path)
  return { file, kind, bytes: statSync(path).size, migrations }
}
