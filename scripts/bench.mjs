// `npm run bench` (README.md, Benchmarks): builds the api if it was never built, then runs the benchmark
// (api/src/tooling/bench/bench.ts) on SQLite and on PostgreSQL — the bench's own cluster under data/bench/postgres/,
// kept between runs as the SQLite files are — and prints the two side by side. --sqlite, --postgres or --db URL
// measure one database alone. Not part of `npm test`.
import console from 'node:console'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import process from 'node:process'
import { build, repoRoot, run } from './lib/bootstrap.mjs'
import { startCluster } from './lib/postgres-cluster.mjs'

const benchPath = join(repoRoot, 'api', 'dist', 'tooling', 'bench', 'bench.js')
const clusterDir = join(repoRoot, 'data', 'bench', 'postgres')
/** Scenarios that run on a SQLite file of their own whatever the database. */
const SQLITE_ONLY = new Set(['import', 'bulk-edit'])

function optionValue(args, name) {
  const at = args.findIndex((arg) => arg === name || arg.startsWith(`${name}=`))
  if (at === -1) return undefined
  return args[at].includes('=') ? args[at].slice(name.length + 1) : args[at + 1]
}

/** Which databases to measure: both unless the arguments name one; null (and a message) when they contradict. */
function databasesFor(args) {
  const sqlite = args.includes('--sqlite')
  const postgres = args.includes('--postgres')
  const db = optionValue(args, '--db') !== undefined
  if ([sqlite, postgres, db].filter(Boolean).length > 1) {
    console.error('npm run bench: --sqlite, --postgres and --db exclude each other')
    return null
  }
  if (db) return ['given']
  if (postgres) return ['postgres']
  if (sqlite || SQLITE_ONLY.has(optionValue(args, '--only')?.trim())) return ['sqlite']
  return ['sqlite', 'postgres']
}

/**
 * Postgres's default shared_buffers (128 MB) holds a tenth of a 100,000-lead database: every other page a search
 * reads would come from the operating system. A server of its own is given a quarter of its memory; this one takes
 * 1 GB, what a small team's server would give it (docs/decisions/0013-postgres-planner-and-buffers.md).
 */
async function onPostgres(passed) {
  let cluster
  try {
    cluster = await startCluster({ installIfMissing: true, settings: { shared_buffers: '1GB' }, keepIn: clusterDir })
  } catch (error) {
    console.error(`PostgreSQL: not measured, its cluster did not start: ${error.message}`)
    return 1
  }
  console.error(`started the bench's PostgreSQL cluster (data/bench/postgres) at ${cluster.url}`)
  try {
    // A database a lead count, as the SQLite files are: each seed's size is its database's alone.
    const url = await cluster.database(`bench_${leadsOf(passed)}`)
    // The report's million opportunities have a database of their own, as on SQLite they have a file.
    const report = reportWanted(passed)
      ? ['--report-db', await cluster.database(`bench_opportunities_${opportunitiesOf(passed)}`)]
      : []
    return await run(process.execPath, [benchPath, ...passed, '--db', url, ...report])
  } finally {
    await cluster.stop()
    console.error("stopped the bench's PostgreSQL cluster")
  }
}

/** Whether the run reads the report's opportunities: every run without --only, or one naming a scenario of them. */
function reportWanted(args) {
  const only = optionValue(args, '--only')
  return only === undefined || only.split(',').some((key) => ['report', 'opportunity-sorts'].includes(key.trim()))
}

/** The --opportunities the bench is given (1,000,000 when none), as the database's name takes it. */
function opportunitiesOf(args) {
  const value = optionValue(args, '--opportunities')
  return value !== undefined && /^[0-9]{1,9}$/.test(value) ? String(Number(value)) : '1000000'
}

/** The --leads the bench is given (100,000 when none; a value it refuses is left for it to say so). */
function leadsOf(args) {
  for (const [i, arg] of args.entries()) {
    const value =
      arg === '--leads' ? args[i + 1] : arg.startsWith('--leads=') ? arg.slice('--leads='.length) : undefined
    if (value !== undefined && /^[0-9]{1,9}$/.test(value)) return String(Number(value))
  }
  return '100000'
}

async function main() {
  const args = process.argv.slice(2)
  const help = args.includes('--help') || args.includes('-h')
  const databases = help ? ['given'] : databasesFor(args)
  if (databases === null) return 2
  const passed = args.filter((arg) => arg !== '--postgres' && arg !== '--sqlite')
  if (!existsSync(benchPath)) {
    console.error('the api is not built yet; building')
    if ((await build()) !== 0) {
      console.error('npm run bench: the build failed')
      return 1
    }
  }
  if (databases.length === 1 && databases[0] !== 'postgres') return run(process.execPath, [benchPath, ...passed])
  if (databases.length === 1) return onPostgres(passed)

  // The headings go where the tables go: stdout, unless --json keeps it for the figures.
  const json = passed.includes('--json')
  const heading = (text) => (json ? console.error : console.log)(`\n━━━ ${text} ━━━`)
  const scratch = mkdtempSync(join(tmpdir(), 'leadline-bench-runs-'))
  try {
    const files = []
    let code = 0
    for (const database of databases) {
      const file = join(scratch, `${database}.json`)
      const withFile = [...passed, '--figures-file', file]
      heading(database === 'sqlite' ? 'SQLite' : 'PostgreSQL')
      const exit =
        database === 'sqlite' ? await run(process.execPath, [benchPath, ...withFile]) : await onPostgres(withFile)
      code = Math.max(code, exit)
      if (existsSync(file)) files.push(file)
    }
    if (files.length > 1) {
      heading('side by side')
      const compare = [benchPath, '--compare', files.join(','), ...(json ? ['--json'] : [])]
      code = Math.max(code, await run(process.execPath, compare))
    }
    return code
  } finally {
    rmSync(scratch, { recursive: true, force: true })
  }
}

process.exitCode = await main()
