import { spawn } from 'node:child_process'
import { existsSync, rmSync } from 'node:fs'
import { isAbsolute, relative } from 'node:path'
import { sql } from 'kysely'
import { createApiKey } from '../../platform/security/api-key-repo.js'
import { isPostgresUrl, openDatabase, type Db } from '../../platform/data/database.js'
import { migrateToLatest } from '../../platform/data/migrate.js'
import { DEMO_ORGANIZATION_NAME } from '../demo/demo-seed.js'
import { ensureLeadSearchCurrent } from '../../crm/leads/lead-search-index.js'
import { systemClock } from '../../platform/data/time.js'
import { withBulkLoadSchema } from '../demo/demo-bulk-write.js'

// The benchmark's database: N demo leads seeded by `leadline seed demo`, or an earlier seed of N leads reused.

export interface BenchDatabase {
  url: string
  kind: 'sqlite' | 'postgres'
  /** The SQLite file, or the Postgres URL without its password. */
  location: string
  organizationId: string
  /** A key of the demo organization's admin. */
  apiKey: string
  /** How long seeding took; undefined when an earlier seed was reused. */
  seedSeconds: number | undefined
}

/** A Postgres URL with its password left out, for printing. */
export function redactedUrl(url: string): string {
  if (!isPostgresUrl(url)) return url.replace(/^sqlite:/, '')
  const parsed = new URL(url)
  if (parsed.password !== '') parsed.password = '***'
  return parsed.toString()
}

/** The demo organization holding exactly `leads` leads, with its admin's membership; undefined if there is none. */
async function completeDemo(db: Db, leads: number) {
  const found = await sql<{ organization_id: string; user_id: string; membership_id: string }>`
    select o.id as organization_id, m.user_id, m.id as membership_id
    from organization o
    join membership m on m.organization_id = o.id and m.role = 'admin'
    where o.name = ${DEMO_ORGANIZATION_NAME}
      and (select count(*) from lead l where l.organization_id = o.id) = ${leads}
    order by o.date_created desc, m.date_created
    limit 1`.execute(db)
  return found.rows[0]
}

/** Migrates the database, as every start does, and finds a finished seed of `leads` leads in it. */
async function reusable(url: string, leads: number) {
  const database = openDatabase(url)
  try {
    await migrateToLatest(database.db)
    await ensureLeadSearchCurrent(database.db)
    const demo = await completeDemo(database.db, leads)
    if (demo === undefined) return undefined
    const key = await createApiKey(database.db, systemClock, {
      organizationId: demo.organization_id,
      userId: demo.user_id,
      membershipId: demo.membership_id,
    })
    return { organizationId: demo.organization_id, apiKey: key.api_key }
  } finally {
    await database.close()
  }
}

interface SeedOutput {
  organizationId: string
  apiKey: string
}

function parseSeedOutput(stdout: string): SeedOutput {
  const parsed: unknown = JSON.parse(stdout)
  if (typeof parsed !== 'object' || parsed === null) throw new Error('seed demo printed no JSON object')
  const organizationId: unknown = Reflect.get(parsed, 'organization_id')
  const users: unknown = Reflect.get(parsed, 'users')
  const admin: unknown = Array.isArray(users) ? users.find((u: unknown) => isAdmin(u)) : undefined
  const apiKey: unknown = typeof admin === 'object' && admin !== null ? Reflect.get(admin, 'api_key') : undefined
  if (typeof organizationId !== 'string' || typeof apiKey !== 'string') {
    throw new Error('seed demo printed no organization_id or admin api_key')
  }
  return { organizationId, apiKey }
}

function isAdmin(user: unknown): boolean {
  return typeof user === 'object' && user !== null && Reflect.get(user, 'role') === 'admin'
}

/** Runs `leadline seed demo`, its progress on our stderr; resolves its output and how long it took. */
async function seed(cliPath: string, url: string, leads: number): Promise<SeedOutput & { seconds: number }> {
  const started = performance.now()
  const child = spawn(process.execPath, [cliPath, 'seed', 'demo', '--leads', String(leads), '--db', url, '--json'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  let stdout = ''
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()))
  const code = await new Promise<number | null>((resolve, reject) => {
    child.on('error', reject)
    child.on('close', resolve)
  })
  if (code !== 0) throw new Error(`leadline seed demo exited with ${String(code)}`)
  return { ...parseSeedOutput(stdout), seconds: (performance.now() - started) / 1000 }
}

/**
 * A database of `leads` demo leads: the given one (`--db`), else a SQLite file under `dataDir` named by the count.
 * A finished seed in it is reused (after migrating it); a SQLite file without one is seeded anew.
 */
export async function prepareBenchDatabase(options: {
  url: string | undefined
  leads: number
  dataDir: string
  cliPath: string
}): Promise<BenchDatabase> {
  const file = `${options.dataDir}/leads-${String(options.leads)}.db`
  const url = options.url ?? `sqlite:${file}`
  const kind = isPostgresUrl(url) ? 'postgres' : 'sqlite'
  const nearby = relative(process.cwd(), file)
  const location =
    options.url !== undefined || nearby.startsWith('..') || isAbsolute(nearby) ? redactedUrl(url) : nearby
  if (kind === 'postgres' || existsSync(file) || options.url !== undefined) {
    const found = await reusable(url, options.leads)
    if (found !== undefined) return { url, kind, location, ...found, seedSeconds: undefined }
  }
  // A file of ours without a finished seed is left from an interrupted run: start it again.
  if (options.url === undefined) {
    for (const suffix of ['', '-wal', '-shm']) rmSync(`${file}${suffix}`, { force: true })
  }
  process.stderr.write(`seeding ${options.leads.toLocaleString('en-US')} demo leads into ${location}\n`)
  const seeded = await seed(options.cliPath, url, options.leads)
  return {
    url,
    kind,
    location,
    organizationId: seeded.organizationId,
    apiKey: seeded.apiKey,
    seedSeconds: seeded.seconds,
  }
}

/** Leads of the report database's demo, whose opportunities are multiplied up to the count asked for. */
const REPORT_LEADS = 2_000

/** The demo organization's opportunities in a database, or undefined when it holds no finished demo seed. */
async function reportReady(url: string, opportunities: number) {
  const found = await reusable(url, REPORT_LEADS)
  if (found === undefined) return undefined
  const database = openDatabase(url)
  try {
    const row = await database.db
      .selectFrom('opportunity')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .where('organization_id', '=', found.organizationId)
      .executeTakeFirstOrThrow()
    return Number(row.n) === opportunities ? found : undefined
  } finally {
    await database.close()
  }
}

/** The opportunity's columns a report copy keeps as they are, before and after `date_won`, which it moves. */
const COPIED_BEFORE_WON = [
  'organization_id',
  'lead_id',
  'contact_id',
  'status_id',
  'user_id',
  'value',
  'value_period',
  'value_currency',
  'confidence',
] as const
const COPIED_AFTER_WON = ['date_lost', 'note', 'created_by', 'updated_by', 'date_created', 'date_updated'] as const

/**
 * The report scenario's database: on SQLite a file of its own (`data/bench/opportunities-N.db`), on PostgreSQL the
 * database `url` names (the bench's cluster makes `bench_opportunities_N`). It holds a demo of 2,000 leads whose
 * opportunities are copied, each copy with a new id and its `date_won` moved back a few days at a time over two
 * years, until the organization holds `opportunities`. The copies go in as the demo seed's bulk load writes
 * (withBulkLoadSchema): the opportunities' indexes, keys and counting triggers set aside, then made again, and the
 * rollup (migrations 0010 and 0047) added up from every opportunity as the triggers would have kept it. Row by row
 * through the triggers, Postgres rewrote each lead's revision and each day's rollup row a few hundred times in one
 * transaction (a million copies ran past 15 minutes). Reused while it holds that many.
 */
export async function prepareReportDatabase(options: {
  opportunities: number
  dataDir: string
  cliPath: string
  /** A PostgreSQL database for the report; without one, the SQLite file. */
  url?: string
}): Promise<{ url: string; organizationId: string; apiKey: string }> {
  const file = `${options.dataDir}/opportunities-${String(options.opportunities)}.db`
  const url = options.url ?? `sqlite:${file}`
  const postgres = isPostgresUrl(url)
  if (postgres || existsSync(file)) {
    const found = await reportReady(url, options.opportunities)
    if (found !== undefined) return { url, ...found }
  }
  // On PostgreSQL nothing is dropped: a demo left without its copies by an interrupted run stays beside the new one.
  if (!postgres) for (const suffix of ['', '-wal', '-shm']) rmSync(`${file}${suffix}`, { force: true })
  process.stderr.write(`preparing ${options.opportunities.toLocaleString('en-US')} opportunities for the report\n`)
  const seeded = await seed(options.cliPath, url, REPORT_LEADS)
  const database = openDatabase(url)
  try {
    const org = seeded.organizationId
    const base = await database.db
      .selectFrom('opportunity')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .where('organization_id', '=', org)
      .executeTakeFirstOrThrow()
    const missing = options.opportunities - Number(base.n)
    if (Number(base.n) === 0 || missing < 0) throw new Error('the report demo has no opportunities to copy')
    const copies = Math.ceil(missing / Number(base.n))
    // Each copy is its original with a new id (`oppo_` and 43 hexadecimal digits, which are base62 digits too) and,
    // when won, a date won moved back by its copy's number of days (modulo 700). Only these and the series of copy
    // numbers are written in each database's own words.
    const dialect = postgres
      ? {
          series: sql``,
          id: sql`substr(md5(random()::text) || md5(random()::text), 1, 43)`,
          won: sql`to_char(o.date_won::date - (copy.i % 700), 'YYYY-MM-DD')`,
          copies: sql`generate_series(1, ${copies}::int) as copy (i)`,
        }
      : {
          series: sql`with recursive copy(i) as (select 1 union all select i + 1 from copy where i < ${copies}) `,
          id: sql`substr(lower(hex(randomblob(22))), 1, 43)`,
          won: sql`date(o.date_won, '-' || (copy.i % 700) || ' days')`,
          copies: sql`copy`,
        }
    const columns = (names: readonly string[]) => sql.join(names.map((name) => sql.ref(name)))
    const originals = (names: readonly string[]) => sql.join(names.map((name) => sql.ref(`o.${name}`)))
    const copy = sql`${dialect.series}insert into opportunity (id, ${columns(COPIED_BEFORE_WON)}, date_won,
        ${columns(COPIED_AFTER_WON)})
      select 'oppo_' || ${dialect.id}, ${originals(COPIED_BEFORE_WON)},
        case when o.date_won is null then null else ${dialect.won} end, ${originals(COPIED_AFTER_WON)}
      from opportunity o, ${dialect.copies} where o.organization_id = ${org}
      limit ${missing}`
    await database.db.transaction().execute((tx) => withBulkLoadSchema(tx, ['opportunity'], () => copy.execute(tx)))
    // The planner's statistics for the opportunities the copies multiplied.
    await sql`analyze`.execute(database.db)
  } finally {
    await database.close()
  }
  return { url, organizationId: seeded.organizationId, apiKey: seeded.apiKey }
}
