import { spawn, type ChildProcessByStdio } from 'node:child_process'
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { availableParallelism, tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import type { Readable } from 'node:stream'
import { fileURLToPath } from 'node:url'
import { setTimeout as sleep } from 'node:timers/promises'
import { parseArgs } from 'node:util'
import { sql } from 'kysely'
import { isPostgresUrl, openDatabase } from '../../platform/data/database.js'
import { prepareBenchDatabase, prepareReportDatabase } from './bench-database.js'
import {
  availableLoader,
  firstAnswers,
  measureLatency,
  measureThroughput,
  type LatencyRun,
  type LoaderName,
  type LoadTarget,
  type ThroughputRun,
} from './bench-load.js'
import {
  answered,
  formatReport,
  LEAD_SEARCH_KEYS,
  median,
  parseOnly,
  reportJson,
  SCENARIO_KEYS,
  type BenchFigures,
  type ScenarioKey,
  type ScenarioResult,
} from './bench-report.js'
import { storeLeadBodies } from './raw-server.js'
import { API_NODE_FLAGS, startBenchBff, withNpmStartAllocator, type BenchBff } from './bench-bff.js'
import { formatImport, importFile, measureImport } from './bench-import.js'
import { BULK_EDIT_QUERY, formatBulkEdit, measureBulkEdit } from './bench-bulk-edit.js'
import {
  benchScreens,
  formatScreenPaints,
  parseScreenPaints,
  screenPaintFigures,
  type ScreenFigures,
} from './bench-screens.js'
import { formatComparison, parseRunFigures, type RunFigures } from './bench-compare.js'
import { DEMO_SEARCH_WORDS } from '../demo/demo-lead-rows.js'

// `npm run bench` (scripts/bench.mjs runs this): a real api process and a raw limit server side by side, each
// scenario measured for throughput at 32 connections and for latency one request at a time, and one table.

const USAGE = `Usage: npm run bench -- [--leads N] [--sqlite | --postgres | --db URL] [--seconds S] [--sample K]
                     [--only KEYS] [--rounds R] [--opportunities N] [--engines] [--json]

  A run measures SQLite, then PostgreSQL, and prints the two side by side at the end.
  --leads N     demo leads in the database (default 100000); a SQLite file under data/bench/ per N is kept and reused,
                and so is the PostgreSQL cluster under data/bench/postgres/ with its seeds
  --sqlite      SQLite alone
  --postgres    PostgreSQL alone, on the bench's own cluster (started, and stopped at the end, by the command)
  --db URL      benchmark this database alone (sqlite:<path> or postgres://…); a demo seed of N leads in it is
                reused, else one is seeded
  --seconds S   seconds per measurement (default 10); each scenario is measured twice
  --sample K    lead ids the point reads rotate through (default 300)
  --rounds R    measure each scenario's throughput R times, the scenarios taking turns, and report the median
                (default 1): on a machine busy with other work, ratios to raw then compare like with like
  --only KEYS   measure only these scenarios, comma-separated, out of
                ${SCENARIO_KEYS.join(', ')} (the ratios need raw)
  --opportunities N
                opportunities the report scenario groups by month (default 1000000), in a SQLite file of its own
                under data/bench/, kept and reused; on PostgreSQL, in the bench cluster's database
                bench_opportunities_N (not measured with --db alone)
  --engines     measure the lead searches (page, search-*, palette, sort-columns) twice, side by side: answered by
                the in-memory index and by SQL alone (LEADLINE_LEAD_SEARCH), each on an api process of its own
  --json        print each database's figures as one JSON object, a line, on stdout (the tables go to stderr)

  --only import imports a CSV of --import-rows rows (default 1000000, about 150 MB, written once under data/bench/)
                over HTTP into a fresh SQLite file through a real api process, and prints the time and the api's
                peak RSS against the targets (2 minutes, 300 MB); only when named, and alone. With --db
                postgres://… the file goes into a new organization of that database instead, for comparison
  --only bulk-edit
                copies the SQLite file of --leads leads, starts an api process on the copy, edits the status of every
                lead of "${BULK_EDIT_QUERY}" (half of the demo's) over POST /bulk_action/edit/, polls it until done,
                and prints its time, leads/s and the api's peak RSS against the target (60 s for 50,000 leads);
                only when named, and alone, on SQLite

  --only screens
                loads each screen (leads, a lead, inbox, opportunities, reports, settings) fresh three times in
                Chromium, through a BFF serving the built web app and signed in to the bench's organization, and
                prints each one's largest contentful paint against the target (300 ms); alone when named, and after
                the other scenarios in a run without --only (unless --json), when the web app is built

  The api processes run with the node flags npm start gives the api (--max-semi-space-size=8).
  LEADLINE_BENCH_API_NODE_ARGS, when set, is passed to their node after those (for example
  '--cpu-prof --cpu-prof-dir=prof' to profile them, or '--max-semi-space-size=16' for V8's own)
`

const here = dirname(fileURLToPath(import.meta.url))
const cliPath = join(here, '..', '..', 'app', 'cli', 'cli.js')
const rawServerPath = join(here, 'raw-server-main.js')
const bffMain = resolve(here, '..', '..', '..', '..', 'bff', 'dist', 'main.js')
const webDist = resolve(here, '..', '..', '..', '..', 'web', 'dist')
const screenPaint = resolve(here, '..', '..', '..', '..', 'e2e', 'screen-paint.mjs')
const dataDir = resolve(here, '..', '..', '..', '..', 'data', 'bench')
const MEASURED_CONNECTIONS = 32
const WARM_UP_SECONDS = 1
/** How long a scenario's first answers may take in all (a million-lead index is read in minutes on this machine). */
const FIRST_ANSWERS_MS = 20 * 60_000
const SETTLE_MS = 300_000

function positiveInt(value: string | undefined, flag: string, fallback: number): number {
  if (value === undefined) return fallback
  const n = Number(value)
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(n) || n < 1) {
    throw new Error(`${flag} must be a positive integer, got "${value}"`)
  }
  return n
}

/** A child process that prints `{"url"}` on stdout once it listens. */
type Server = ChildProcessByStdio<null, Readable, null>

/** How long an api may take to say it is ready (its lead indexes built: some 20 s for a million leads on SQLite). */
const READY_WITHIN_MS = 15 * 60_000

/**
 * Starts a server; an api (`serve`) is waited for until `/readyz` says ready, so that no figure is measured while it
 * still builds its lead indexes (docs/decisions/0061).
 */
async function startServer(args: string[], env: NodeJS.ProcessEnv): Promise<{ child: Server; url: string }> {
  const started = await listening(args, env)
  if (!args.includes('serve')) return started
  for (const until = Date.now() + READY_WITHIN_MS; ;) {
    if (started.child.exitCode !== null) throw new Error(`the api exited with ${String(started.child.exitCode)}`)
    const ready = await fetch(`${started.url}/readyz`).then(
      async (res) => {
        await res.body?.cancel()
        return res.ok
      },
      () => false,
    )
    if (ready) return started
    if (Date.now() > until) {
      started.child.kill('SIGTERM')
      throw new Error(`the api was not ready within ${String(READY_WITHIN_MS / 60_000)} minutes`)
    }
    await sleep(100)
  }
}

function listening(args: string[], env: NodeJS.ProcessEnv): Promise<{ child: Server; url: string }> {
  // LEADLINE_BENCH_API_NODE_ARGS (for example `--cpu-prof --cpu-prof-dir=prof`) go to the api processes' node only.
  const nodeArgs = (process.env.LEADLINE_BENCH_API_NODE_ARGS ?? '').split(' ').filter((arg) => arg !== '')
  const child = spawn(process.execPath, [...API_NODE_FLAGS, ...nodeArgs, ...args], {
    env: withNpmStartAllocator(env),
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  return new Promise((resolvePromise, reject) => {
    let out = ''
    const onData = (chunk: Buffer) => {
      out += chunk.toString()
      const match = /"url":"(http:\/\/[\d.:]+)"/.exec(out)
      if (match?.[1] !== undefined) {
        child.stdout.off('data', onData)
        child.stdout.resume()
        resolvePromise({ child, url: match[1] })
      }
    }
    child.stdout.on('data', onData)
    child.once('error', reject)
    child.once('exit', (code) => {
      reject(new Error(`${args[0] ?? 'server'} exited with ${String(code)} before listening`))
    })
  })
}

async function stop(child: Server | undefined): Promise<void> {
  if (child === undefined || child.exitCode !== null || child.signalCode !== null) return
  const exited = new Promise((resolvePromise) => child.once('exit', resolvePromise))
  child.kill('SIGTERM')
  await exited
}

/** The process's peak resident memory (VmHWM) in MB, where /proc tells. */
function peakRssMb(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined
  try {
    const status = readFileSync(`/proc/${String(pid)}/status`, 'utf8')
    const kb = /^VmHWM:\s+(\d+) kB/m.exec(status)?.[1]
    return kb === undefined ? undefined : Number(kb) / 1024
  } catch {
    return undefined
  }
}

/**
 * The peak resident memory of whichever process `pidOf` names, sampled every 250 ms (a process that has exited
 * cannot be asked any more, so the last sample stands) and read once more when asked.
 */
function rssWatch(pidOf: () => number | undefined) {
  let peak: number | undefined
  const sample = () => {
    const now = peakRssMb(pidOf())
    if (now !== undefined) peak = Math.max(peak ?? 0, now)
    return peak
  }
  const sampler = setInterval(sample, 250)
  return {
    peak: sample,
    stop: () => {
      clearInterval(sampler)
    },
  }
}

function searches(queries: readonly string[]): string[] {
  return queries.map((q) => `/api/v1/lead/?query=${encodeURIComponent(q)}`)
}

/** Issue 34's table: dates with a sort, flags, a phone, counts, a field with a flag, an address. */
const FILTER_SEARCHES = [
  'created<2026-03-01 sort:-updated',
  'has:tasks',
  'has:phone -status:"Bad Fit"',
  'phone:415',
  'opportunities>0',
  'not has:email',
  'custom.Employees>4000 has:email',
  'main st',
]

/**
 * The leads list's first page of 50 after a click on a column's header (issue 33), for the columns no index walks:
 * each reads the value of every lead, then sorts.
 */
const SORTED_COLUMNS = [
  'status',
  '-last_activity',
  'custom.Employees',
  '-opportunity_value',
  'next_task',
  'email',
  'contact_name',
]

/**
 * The command palette's requests as a user types names, an email and a phone number: each what
 * web/src/features/palette/palette-search.ts sends for that text (every word of three characters or more quoted; a
 * phone number whole), with its `_limit` and `_fields`, encoded as the web app's client encodes them.
 */
const PALETTE_TYPED = ['"oli"', '"olivia"', '"olivia" "pat"', '"sum"', '"summit"', '"summit" "robo"', '"415 555"']

function paletteSearches(): string[] {
  const fields = 'id,display_name,status_label,contacts,opportunities'
  return PALETTE_TYPED.map(
    (query) => `/api/v1/lead/?${new URLSearchParams({ query, _limit: '8', _fields: fields }).toString()}`,
  )
}

interface Scenario {
  key: ScenarioKey
  name: string
  target: LoadTarget
  /** The server's process, to wait for it to go idle between runs. */
  pid: number | undefined
  /** Requests at once while latency is measured (one unless given). */
  latencyConnections?: number
  /**
   * A process started for this scenario alone (the BFF) warms up for as long as a measurement, not WARM_UP_SECONDS:
   * the api it is compared with has served the scenarios before it, and a process a second old runs at about two
   * thirds of its warmed rate while V8 still compiles its hot paths (docs/decisions/0076).
   */
  ownProcess?: true
}

/** CPU time a process has used, in clock ticks; undefined where /proc cannot tell. */
function cpuTicks(pid: number): number | undefined {
  try {
    const fields = readFileSync(`/proc/${String(pid)}/stat`, 'utf8')
      .split(') ')[1]
      ?.split(' ')
    return Number(fields?.[11]) + Number(fields?.[12])
  } catch {
    return undefined
  }
}

/**
 * Waits until a server is idle: a run stops sending, but the server still works through what it had accepted
 * (with slow answers, requests of connections that timed out too). Idle is under 10 ms of CPU in 250 ms.
 */
async function settle(pid: number | undefined): Promise<void> {
  const deadline = Date.now() + SETTLE_MS
  let before = pid === undefined ? undefined : cpuTicks(pid)
  while (Date.now() < deadline) {
    await sleep(250)
    const now = pid === undefined ? undefined : cpuTicks(pid)
    if (now === undefined || before === undefined || now - before <= 1) return
    before = now
  }
}

/**
 * Each scenario's throughput `rounds` times, the scenarios taking turns, so that a machine busy with other work for a
 * while slows every scenario alike; its median is reported. A scenario warms up before its first run, and its latency
 * is measured after its last.
 */
async function measureAll(
  loader: LoaderName,
  scenarios: readonly Scenario[],
  seconds: number,
  rounds: number,
): Promise<ScenarioResult[]> {
  // By name: with --engines, a search scenario is measured on two processes under one key.
  const throughputs = new Map<string, ThroughputRun[]>()
  const latencies = new Map<string, LatencyRun>()
  for (let round = 1; round <= rounds; round++) {
    for (const scenario of scenarios) {
      const which = rounds > 1 ? ` (round ${String(round)} of ${String(rounds)})` : ''
      process.stderr.write(`measuring ${scenario.name}${which}…\n`)
      if (round === 1) {
        const first = await firstAnswers(scenario.target, FIRST_ANSWERS_MS)
        process.stderr.write(
          `  first answers: ${String(first.answered)} of ${String(first.asked)} in ${first.seconds.toFixed(1)} s, the slowest ${first.slowestMs.toFixed(0)} ms\n`,
        )
        const warmUp = scenario.ownProcess === true ? seconds : Math.min(WARM_UP_SECONDS, seconds)
        await measureThroughput(loader, scenario.target, MEASURED_CONNECTIONS, warmUp)
        await settle(scenario.pid)
      }
      const run = await measureThroughput(loader, scenario.target, MEASURED_CONNECTIONS, seconds)
      throughputs.set(scenario.name, [...(throughputs.get(scenario.name) ?? []), run])
      await settle(scenario.pid)
      if (round === rounds) {
        latencies.set(
          scenario.name,
          await measureLatency(loader, scenario.target, seconds, scenario.latencyConnections),
        )
      }
      // Which scenario raised a process's peak: the API's RSS target is read over the whole run.
      const peak = peakRssMb(scenario.pid)
      if (peak !== undefined) process.stderr.write(`  its server's peak RSS so far: ${peak.toFixed(0)} MB\n`)
    }
  }
  return scenarios.map((scenario): ScenarioResult => {
    const runs = throughputs.get(scenario.name) ?? []
    const latency = latencies.get(scenario.name)
    return {
      key: scenario.key,
      name: scenario.name,
      requestsPerSecond: median(runs.map((r) => r.requestsPerSecond)),
      loaderCores: median(runs.map((r) => r.loaderCores)),
      p50: latency?.p50 ?? Number.NaN,
      p99: latency?.p99 ?? Number.NaN,
      non2xx: runs.reduce((sum, r) => sum + r.non2xx, 0) + (latency?.non2xx ?? 0),
      errors: runs.reduce((sum, r) => sum + r.errors, 0) + (latency?.errors ?? 0),
    }
  })
}

/** The API's answers for the sampled leads, as the raw server will serve them. */
async function leadBodies(apiUrl: string, authorization: string, ids: readonly string[]) {
  const bodies = new Map<string, string>()
  for (const id of ids) {
    const res = await fetch(`${apiUrl}/api/v1/lead/${id}/`, { headers: { authorization } })
    const body = await res.text()
    if (res.status !== 200) throw new Error(`GET /api/v1/lead/${id}/ answered ${String(res.status)}: ${body}`)
    bodies.set(id, body)
  }
  return bodies
}

/** The id of the first pipeline `target`'s organization has, as the board opens on it. */
/** The organization's first pipeline: its id and its statuses' ids, in the board's order. */
async function firstPipeline(target: LoadTarget): Promise<{ id: string; statuses: string[] }> {
  const res = await fetch(`${target.url}/api/v1/pipeline/`, { headers: { authorization: target.authorization } })
  const body = await res.text()
  if (res.status !== 200) throw new Error(`GET /api/v1/pipeline/ answered ${String(res.status)}: ${body}`)
  const parsed: unknown = JSON.parse(body)
  const data: unknown = typeof parsed === 'object' && parsed !== null ? Reflect.get(parsed, 'data') : undefined
  const first: unknown = Array.isArray(data) ? data[0] : undefined
  const field = (value: unknown, name: string): unknown =>
    typeof value === 'object' && value !== null ? Reflect.get(value, name) : undefined
  const id = field(first, 'id')
  const listed = field(first, 'statuses')
  const named = Array.isArray(listed) ? listed.map((status) => field(status, 'id')) : []
  const statuses = named.filter((status): status is string => typeof status === 'string')
  if (typeof id !== 'string' || statuses.length === 0 || statuses.length !== named.length) {
    throw new Error(`GET /api/v1/pipeline/ named no pipeline with statuses: ${body}`)
  }
  return { id, statuses }
}

async function sampleIds(url: string, organizationId: string, sample: number): Promise<string[]> {
  const database = openDatabase(url)
  try {
    const rows = await database.db
      .selectFrom('lead')
      .select('id')
      .where('organization_id', '=', organizationId)
      .orderBy(sql`random()`)
      .limit(sample)
      .execute()
    return rows.map((r) => r.id)
  } finally {
    await database.close()
  }
}

/** The database's size, and its five largest indexes: what a lead costs on disk (issue 34). */
async function databaseSize(url: string): Promise<NonNullable<BenchFigures['size']>> {
  const database = openDatabase(url)
  try {
    const db = database.db
    if (database.dialect === 'sqlite') {
      const { rows: total } = await sql<{ bytes: number }>`select page_count * page_size as bytes
        from pragma_page_count(), pragma_page_size()`.execute(db)
      const { rows: indexes } = await sql<{ name: string; bytes: number }>`select d.name, sum(d.pgsize) as bytes
        from dbstat d join sqlite_schema s on s.name = d.name where s.type = 'index'
        group by d.name order by bytes desc limit 5`.execute(db)
      return { bytes: total[0]?.bytes ?? 0, largestIndexes: indexes }
    }
    const { rows: total } = await sql<{ bytes: string }>`select pg_database_size(current_database()) as bytes`.execute(
      db,
    )
    const { rows: indexes } = await sql<{ name: string; bytes: string }>`select indexrelname as name,
        pg_relation_size(indexrelid) as bytes from pg_stat_user_indexes order by 2 desc limit 5`.execute(db)
    return {
      bytes: Number(total[0]?.bytes ?? 0),
      largestIndexes: indexes.map((i) => ({ ...i, bytes: Number(i.bytes) })),
    }
  } finally {
    await database.close()
  }
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      leads: { type: 'string' },
      db: { type: 'string' },
      seconds: { type: 'string' },
      sample: { type: 'string' },
      only: { type: 'string' },
      rounds: { type: 'string' },
      opportunities: { type: 'string' },
      'import-rows': { type: 'string' },
      json: { type: 'boolean' },
      engines: { type: 'boolean' },
      // For scripts/bench.mjs: where a run writes its figures, and the runs' figures to print side by side.
      'figures-file': { type: 'string' },
      'report-db': { type: 'string' },
      compare: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  })
  if (values.help === true) {
    process.stdout.write(USAGE)
    return 0
  }
  if (values.compare !== undefined) {
    const runs = values.compare.split(',').map((file) => parseRunFigures(readFileSync(file, 'utf8'), file))
    const table = `\n${formatComparison(runs)}\n`
    if (values.json === true) process.stderr.write(table)
    else process.stdout.write(table)
    return 0
  }
  const figuresFile = values['figures-file']
  const writeFigures = (figures: RunFigures) => {
    if (figuresFile !== undefined) writeFileSync(figuresFile, JSON.stringify(figures))
  }
  if (values.only?.trim() === 'import') {
    return benchImport(positiveInt(values['import-rows'], '--import-rows', 1_000_000), values.db)
  }
  const leads = positiveInt(values.leads, '--leads', 100_000)
  if (values.only?.trim() === 'bulk-edit') {
    if (values.db !== undefined) throw new Error('--only bulk-edit runs on a copy of the SQLite file: leave out --db')
    return benchBulkEdit(leads)
  }
  if (values.only?.trim() === 'screens') {
    const screens = await benchScreenPaints(values.db, leads)
    writeFigures({ database: screens.database, leads, screens: screens.figures })
    return 0
  }
  const seconds = positiveInt(values.seconds, '--seconds', 10)
  const sample = positiveInt(values.sample, '--sample', 300)
  const only = parseOnly(values.only)
  const rounds = positiveInt(values.rounds, '--rounds', 1)
  const opportunities = positiveInt(values.opportunities, '--opportunities', 1_000_000)
  const database = await prepareBenchDatabase({ url: values.db, leads, dataDir, cliPath })
  const authorization = `Basic ${Buffer.from(`${database.apiKey}:`).toString('base64')}`
  const ids = await sampleIds(database.url, database.organizationId, sample)
  const size = await databaseSize(database.url)

  const scratch = mkdtempSync(join(tmpdir(), 'leadline-bench-'))
  let code: number
  let written: RunFigures
  let api: Server | undefined
  let raw: Server | undefined
  let reportApi: Server | undefined
  let sqlApi: Server | undefined
  let bff: BenchBff | undefined
  let peak: number | undefined
  const sampler = setInterval(() => {
    const now = peakRssMb(api?.pid)
    if (now !== undefined) peak = Math.max(peak ?? 0, now)
  }, 250)
  try {
    const apiEnv = { ...process.env, LOG_LEVEL: 'warn', LEADLINE_RATE_LIMIT: '1000000000' }
    const engines = values.engines === true
    const started = await startServer(
      [cliPath, 'serve', '--port', '0', '--json', '--db', database.url],
      engines ? { ...apiEnv, LEADLINE_LEAD_SEARCH: 'index' } : apiEnv,
    )
    api = started.child
    const apiUrl = started.url
    const rawFile = join(scratch, 'raw.db')
    // Also when raw is left out: the bodies are read once here, so every lead read measured is of a cached view.
    storeLeadBodies(rawFile, await leadBodies(apiUrl, authorization, ids))
    const rawEnv = { ...process.env, LEADLINE_BENCH_RAW_DB: rawFile, LEADLINE_BENCH_AUTHORIZATION: authorization }
    const rawStarted = only.has('raw') ? await startServer([rawServerPath], rawEnv) : undefined
    raw = rawStarted?.child
    const leadPaths = ids.map((id) => `/api/v1/lead/${id}/`)
    const on = (url: string, paths: readonly string[]): LoadTarget => ({ url, authorization, paths })
    // The BFF, in front of this api, signed in with the bench organization's key: it sends the key, not the browser.
    if (only.has('bff-lead')) {
      bff = await startBenchBff({
        bffMain,
        apiUrl,
        dataDir: join(scratch, 'bff'),
        apiKey: database.apiKey,
        nodeArgs: (process.env.LEADLINE_BENCH_API_NODE_ARGS ?? '').split(' ').filter((arg) => arg !== ''),
      })
    }
    const bffPaths = ids.map((id) => `/api/v1/lead/${id}/`)
    const specs: Omit<Scenario, 'pid'>[] = [
      { key: 'raw', name: 'raw limit (lead by id)', target: on(rawStarted?.url ?? '', leadPaths) },
      { key: 'lead', name: 'lead read GET /lead/{id}/', target: on(apiUrl, leadPaths) },
      { key: 'me', name: 'GET /me/', target: on(apiUrl, ['/api/v1/me/']) },
      { key: 'lead-c10', name: 'lead read, 10 at once', target: on(apiUrl, leadPaths), latencyConnections: 10 },
      {
        key: 'bff-lead',
        name: 'lead read via the BFF, 10 at once',
        target: { url: bff?.url ?? '', authorization: '', headers: bff?.headers ?? {}, paths: bffPaths },
        latencyConnections: 10,
        ownProcess: true,
      },
      {
        key: 'page',
        name: '100-lead page',
        target: on(
          apiUrl,
          [0, 100, 200, 300, 400].map((skip) => `/api/v1/lead/?_limit=100&_skip=${String(skip)}`),
        ),
      },
      {
        key: 'search-text',
        name: 'search: free text',
        target: on(apiUrl, searches(['olivia', 'main st', 'denver', 'robotics'])),
      },
      {
        // More words than an index keeps the matches of (lead-index.ts), taken in turn: each is looked up afresh.
        key: 'search-text-new',
        name: 'search: free text, new words',
        target: on(apiUrl, searches(DEMO_SEARCH_WORDS)),
      },
      {
        key: 'search-fields',
        name: 'search: fields',
        target: on(
          apiUrl,
          searches([
            'status:customer city:boston',
            'custom.Employees>4000 has:email',
            'contact_name:patel status:qualified',
          ]),
        ),
      },
      {
        key: 'search-dates',
        name: 'search: dates + sort',
        target: on(
          apiUrl,
          searches([
            'created>"90 days ago" sort:name',
            'updated:"last month" sort:-created',
            'created<2026-01-01 sort:updated',
          ]),
        ),
      },
      {
        // The searches of issue 34's own table, measured there before the in-memory index (75-112 ms the widest).
        key: 'search-filters',
        name: 'search: filters',
        target: on(apiUrl, searches(FILTER_SEARCHES)),
      },
      { key: 'palette', name: 'palette: search as one types', target: on(apiUrl, paletteSearches()) },
      {
        key: 'sort-columns',
        name: 'list sorted by a column',
        target: on(
          apiUrl,
          SORTED_COLUMNS.map((key) => `/api/v1/lead/?_limit=50&query=${encodeURIComponent(`* sort:${key}`)}`),
        ),
      },
      {
        // The organization's activities of one type or a few, newest first (migration 0054): a rare type's page read
        // every activity of the organization before (16 s for the demo's completed tasks at 100,000 leads).
        key: 'activity-types',
        name: 'activities by type',
        target: on(
          apiUrl,
          [
            '/activity/note/',
            '/activity/task_completed/',
            '/activity/status_change/opportunity/?_skip=50',
            '/activity/?_type__in=Note,TaskCompleted',
            '/activity/?_type__in=LeadStatusChange,Created&_skip=50',
          ].map((path) => `/api/v1${path}${path.includes('?') ? '&' : '?'}_limit=50`),
        ),
      },
    ]
    // The report (issue 34: a million opportunities grouped by month) has a database of its own: a SQLite file, or
    // on PostgreSQL the database scripts/bench.mjs makes beside the leads' in the bench's cluster.
    const reportDb = values['report-db']
    if (reportDb !== undefined && !isPostgresUrl(reportDb)) throw new Error('--report-db takes a postgres:// URL')
    const report =
      !only.has('report') && !only.has('opportunity-sorts') && !only.has('board-columns')
        ? undefined
        : database.kind === 'sqlite'
          ? await prepareReportDatabase({ opportunities, dataDir, cliPath })
          : reportDb === undefined
            ? undefined
            : await prepareReportDatabase({ opportunities, dataDir, cliPath, url: reportDb })
    if (report !== undefined) {
      const reportStarted = await startServer([cliPath, 'serve', '--port', '0', '--json', '--db', report.url], apiEnv)
      reportApi = reportStarted.child
      const reportOn = (paths: string[]): LoadTarget => ({
        url: reportStarted.url,
        authorization: `Basic ${Buffer.from(`${report.apiKey}:`).toString('base64')}`,
        paths,
      })
      specs.push({
        key: 'report',
        name: 'report: won by month',
        target: reportOn(['/api/v1/opportunity/?_group_by=date_won__month']),
      })
      // The list view's orders (a pipeline's, as the board's list asks) and the API's own, a page of 50 each.
      const { id: pipeline, statuses } = await firstPipeline(reportOn([]))
      specs.push({
        key: 'opportunity-sorts',
        name: 'opportunity list: sorted pages',
        target: reportOn(
          [
            `pipeline_id=${pipeline}&_order_by=-value`,
            `pipeline_id=${pipeline}&_order_by=confidence`,
            `pipeline_id=${pipeline}`,
            '_order_by=-date_won',
            '_order_by=-date_updated',
            'status_type=active&_order_by=value',
          ].map((query) => `/api/v1/opportunity/?_limit=50&${query}`),
        ),
      })
      // The board as it opens: each status of the pipeline, its first 20 newest first with the column's sums.
      specs.push({
        key: 'board-columns',
        name: "board: a pipeline's columns",
        target: reportOn(statuses.map((status) => `/api/v1/opportunity/?status_id=${status}&_limit=20&_skip=0`)),
      })
    }
    const apiPid = api.pid
    const rawPid = raw?.pid
    let scenarios = specs
      .filter((spec) => only.has(spec.key))
      .map((spec): Scenario => ({
        ...spec,
        pid:
          spec.key === 'raw'
            ? rawPid
            : spec.key === 'report' || spec.key === 'opportunity-sorts' || spec.key === 'board-columns'
              ? reportApi?.pid
              : spec.key === 'bff-lead'
                ? bff?.child.pid
                : apiPid,
      }))
    if (engines) {
      // The same searches on a second api process whose searches SQL alone answers, each measured after its twin.
      const sqlStarted = await startServer([cliPath, 'serve', '--port', '0', '--json', '--db', database.url], {
        ...apiEnv,
        LEADLINE_LEAD_SEARCH: 'sql',
      })
      sqlApi = sqlStarted.child
      scenarios = scenarios.flatMap((scenario) =>
        (LEAD_SEARCH_KEYS as readonly ScenarioKey[]).includes(scenario.key)
          ? [
              { ...scenario, name: `${scenario.name} (index)` },
              {
                ...scenario,
                name: `${scenario.name} (sql)`,
                target: { ...scenario.target, url: sqlStarted.url },
                pid: sqlStarted.child.pid,
              },
            ]
          : [scenario],
      )
    }
    const loader = availableLoader()
    if (loader === 'autocannon')
      process.stderr.write('wrk is not installed (apt-get install wrk): autocannon, in this process, loads instead\n')
    const results = await measureAll(loader, scenarios, seconds, rounds)
    const last = peakRssMb(api.pid)
    if (last !== undefined) peak = Math.max(peak ?? 0, last)
    const figures: BenchFigures = {
      cores: availableParallelism(),
      loader,
      database: database.kind,
      location: database.location,
      leads,
      secondsPerRun: seconds,
      rounds,
      seedSeconds: database.seedSeconds,
      apiPeakRssMb: peak,
      size,
      ...(report === undefined ? {} : { reportOpportunities: opportunities }),
      scenarios: results,
    }
    written = reportJson(figures)
    if (values.json === true) {
      process.stderr.write(`${formatReport(figures)}\n`)
      process.stdout.write(`${JSON.stringify(written)}\n`)
    } else {
      process.stdout.write(`\n${formatReport(figures)}\n`)
    }
    code = results.some((r) => r.non2xx + r.errors > 0 || !answered(r)) ? 1 : 0
  } finally {
    clearInterval(sampler)
    await stop(raw)
    await stop(reportApi)
    await stop(sqlApi)
    await stop(bff?.child)
    await stop(api)
    rmSync(scratch, { recursive: true, force: true })
  }
  // A whole run prints the screens' paint too, on the same database, once the processes above are stopped.
  if (values.only === undefined && values.json !== true) {
    if (!existsSync(join(webDist, 'index.html'))) {
      process.stdout.write(`\nscreens: not measured, the web app is not built (${webDist})\n`)
    } else {
      written = { ...written, screens: (await benchScreenPaints(values.db, leads)).figures }
    }
  }
  writeFigures(written)
  return code
}

/** The import scenario, alone: its own api process on a fresh SQLite file, or on the PostgreSQL database `db`. */
async function benchImport(rows: number, db: string | undefined): Promise<number> {
  const say = (line: string) => process.stderr.write(`${line}\n`)
  if (db !== undefined && !isPostgresUrl(db)) throw new Error('--only import takes a postgres:// URL as --db')
  say(`preparing the ${String(rows)}-row CSV under data/bench/`)
  const file = await importFile(dataDir, rows)
  const scratch = mkdtempSync(join(tmpdir(), 'leadline-bench-import-'))
  const dbUrl = db ?? `sqlite:${join(scratch, 'import.db')}`
  let api: Server | undefined
  const rss = rssWatch(() => api?.pid)
  try {
    const figures = await measureImport({
      cliPath,
      dbUrl,
      file,
      rows,
      startApi: async () => {
        const env = { ...process.env, LOG_LEVEL: 'warn', LEADLINE_RATE_LIMIT: '1000000000' }
        const started = await startServer([cliPath, 'serve', '--port', '0', '--json', '--db', dbUrl], env)
        api = started.child
        return started.url
      },
      peak: rss.peak,
      say,
    })
    process.stdout.write(`\n${formatImport(figures)}\n`)
    return 0
  } finally {
    rss.stop()
    await stop(api)
    rmSync(scratch, { recursive: true, force: true })
  }
}

/**
 * The bulk edit scenario, alone: its own api process on a copy of the seeded SQLite file, so that the edit (half
 * the leads' statuses, their activities and events) never reaches the database the other scenarios read.
 */
async function benchBulkEdit(leads: number): Promise<number> {
  const say = (line: string) => process.stderr.write(`${line}\n`)
  const seeded = await prepareBenchDatabase({ url: undefined, leads, dataDir, cliPath })
  const scratch = mkdtempSync(join(tmpdir(), 'leadline-bench-bulk-edit-'))
  const copy = join(scratch, 'bulk-edit.db')
  say(`copying ${seeded.location} to ${copy}`)
  // The seed's connections are closed, so its write-ahead log is checkpointed; a leftover one is copied with it.
  const file = seeded.url.replace(/^sqlite:/, '')
  for (const suffix of ['', '-wal']) {
    if (existsSync(`${file}${suffix}`)) copyFileSync(`${file}${suffix}`, `${copy}${suffix}`)
  }
  let api: Server | undefined
  const rss = rssWatch(() => api?.pid)
  try {
    const env = { ...process.env, LOG_LEVEL: 'warn', LEADLINE_RATE_LIMIT: '1000000000' }
    const started = await startServer([cliPath, 'serve', '--port', '0', '--json', '--db', `sqlite:${copy}`], env)
    api = started.child
    say(`editing the status of "${BULK_EDIT_QUERY}"`)
    const figures = await measureBulkEdit({
      apiUrl: started.url,
      authorization: `Basic ${Buffer.from(`${seeded.apiKey}:`).toString('base64')}`,
      leads,
      peak: rss.peak,
      say,
    })
    process.stdout.write(`\n${formatBulkEdit(figures)}\n`)
    return 0
  } finally {
    rss.stop()
    await stop(api)
    rmSync(scratch, { recursive: true, force: true })
  }
}

/**
 * `--only screens`: the api on the bench's database and a BFF serving the built web app, signed in with the
 * organization's key; e2e/screen-paint.mjs loads each screen fresh three times in Chromium and reports its largest
 * contentful paint. The web app must be built (`npm start` and `npm test` build it).
 */
async function benchScreenPaints(
  url: string | undefined,
  leads: number,
): Promise<{ database: string; figures: ScreenFigures[] }> {
  const say = (line: string) => process.stderr.write(`${line}\n`)
  if (!existsSync(join(webDist, 'index.html'))) {
    throw new Error(`the web app is not built (${webDist}): run corepack pnpm --filter @leadline/web build`)
  }
  const database = await prepareBenchDatabase({ url, leads, dataDir, cliPath })
  const [leadId] = await sampleIds(database.url, database.organizationId, 1)
  if (leadId === undefined) throw new Error('the bench organization has no lead')
  const scratch = mkdtempSync(join(tmpdir(), 'leadline-bench-screens-'))
  let api: Server | undefined
  let bff: BenchBff | undefined
  try {
    const env = { ...process.env, LOG_LEVEL: 'warn', LEADLINE_RATE_LIMIT: '1000000000' }
    const started = await startServer([cliPath, 'serve', '--port', '0', '--json', '--db', database.url], env)
    api = started.child
    bff = await startBenchBff({
      bffMain,
      apiUrl: started.url,
      dataDir: join(scratch, 'bff'),
      apiKey: database.apiKey,
      nodeArgs: [],
      webDist,
    })
    const screens = benchScreens(leadId)
    say(`loading ${String(screens.length)} screens, each three times, in Chromium`)
    const input = { url: bff.url, cookie: bff.headers.cookie, screens, loads: 3 }
    const stdout = await new Promise<string>((resolvePromise, reject) => {
      const child = spawn(process.execPath, [screenPaint], {
        env: { ...process.env, LEADLINE_SCREENS: JSON.stringify(input) },
        stdio: ['ignore', 'pipe', 'inherit'],
      })
      let out = ''
      child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()))
      child.once('error', reject)
      child.once('exit', (code) => {
        if (code === 0) resolvePromise(out)
        else reject(new Error(`the screens measurement exited with ${String(code)}`))
      })
    })
    const paints = parseScreenPaints(stdout)
    process.stdout.write(`\n${formatScreenPaints(paints)}\n`)
    return { database: database.kind, figures: screenPaintFigures(paints) }
  } finally {
    if (bff !== undefined) await stop(bff.child)
    await stop(api)
    rmSync(scratch, { recursive: true, force: true })
  }
}

try {
  process.exitCode = await main()
} catch (error) {
  process.stderr.write(`bench: ${error instanceof Error ? error.message : String(error)}\n`)
  process.exitCode = 1
}
