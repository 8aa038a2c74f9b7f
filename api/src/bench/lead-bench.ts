import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { openDatabase } from '../db/database.js'
import { migrateToLatest } from '../db/migrate.js'
import { seedDemoLeads } from '../demo/demo-leads.js'
import { seedDemoOrganization } from '../demo/demo-seed.js'
import { systemClock } from '../platform/time.js'

// A benchmark, not a test: seeds N demo leads into a fresh database, starts a real api process, and prints
// requests per second and p50/p99 latency for the lead endpoints. Usage:
//   node api/dist/bench/lead-bench.js [--leads 100000] [--db sqlite:/tmp/x.db | postgres://…] [--seconds 10] [--concurrency 8]

const { values } = parseArgs({
  options: {
    leads: { type: 'string', default: '100000' },
    db: { type: 'string' },
    seconds: { type: 'string', default: '10' },
    concurrency: { type: 'string', default: '8' },
  },
})
const leadCount = Number(values.leads)
const seconds = Number(values.seconds)
const concurrency = Number(values.concurrency)
const scratch = mkdtempSync(join(tmpdir(), 'leadline-bench-'))
const databaseUrl = values.db ?? `sqlite:${join(scratch, 'bench.db')}`

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN
}

async function startApi(): Promise<{ url: string; stop: () => void }> {
  const cli = fileURLToPath(new URL('../cli.js', import.meta.url))
  const child = spawn(process.execPath, [cli, 'serve', '--port', '0', '--json', '--db', databaseUrl], {
    env: { ...process.env, LOG_LEVEL: 'warn', LEADLINE_RATE_LIMIT: '100000000' },
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  const url = await new Promise<string>((resolve, reject) => {
    let out = ''
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString()
      // `serve --json` prints {"url"} alone on stdout; its logs go to stderr.
      const match = /"url":"(http:\/\/[\d.:]+)"/.exec(out)
      if (match?.[1] !== undefined) resolve(match[1])
    })
    child.once('exit', (code) => {
      reject(new Error(`api exited with ${String(code)}`))
    })
  })
  return { url, stop: () => child.kill('SIGTERM') }
}

async function measure(name: string, url: string, key: string, paths: () => string) {
  const auth = `Basic ${Buffer.from(`${key}:`).toString('base64')}`
  const latencies: number[] = []
  let errors = 0
  const deadline = performance.now() + seconds * 1000
  const worker = async () => {
    while (performance.now() < deadline) {
      const started = performance.now()
      const res = await fetch(url + paths(), { headers: { authorization: auth } })
      await res.arrayBuffer()
      if (res.status !== 200) errors++
      latencies.push(performance.now() - started)
    }
  }
  const started = performance.now()
  await Promise.all(Array.from({ length: concurrency }, worker))
  const elapsed = (performance.now() - started) / 1000
  latencies.sort((a, b) => a - b)
  const row = {
    scenario: name,
    requests: latencies.length,
    'req/s': Math.round(latencies.length / elapsed),
    'p50 ms': Number(percentile(latencies, 50).toFixed(1)),
    'p99 ms': Number(percentile(latencies, 99).toFixed(1)),
    errors,
  }
  console.log(JSON.stringify(row))
  return row
}

async function main() {
  const database = openDatabase(databaseUrl)
  await migrateToLatest(database.db)
  const seedStarted = performance.now()
  const demo = await seedDemoOrganization(database.db, systemClock)
  await seedDemoLeads(database.db, systemClock, demo.organization_id, leadCount, {
    onProgress: (done, total) => {
      if (done % 10_000 === 0 || done === total) process.stderr.write(`seeded ${String(done)}/${String(total)}\n`)
    },
  })
  const seedSeconds = (performance.now() - seedStarted) / 1000
  const ids = (
    await database.db
      .selectFrom('lead')
      .select('id')
      .where('organization_id', '=', demo.organization_id)
      .limit(5000)
      .execute()
  ).map((r) => r.id)
  await database.close()
  const key = demo.users[0]?.api_key ?? ''
  console.log(
    JSON.stringify({
      database: databaseUrl.split(':')[0],
      leads: leadCount,
      'seed seconds': Number(seedSeconds.toFixed(1)),
      concurrency,
      seconds,
    }),
  )

  const api = await startApi()
  try {
    const pick = (items: string[]): string => items[Math.floor(Math.random() * items.length)] ?? ''
    const base = `${api.url}/api/v1`
    const results = [
      await measure('GET /lead/{id}/', base, key, () => `/lead/${pick(ids)}/`),
      await measure(
        'GET /lead/?_limit=100',
        base,
        key,
        () => `/lead/?_limit=100&_skip=${String(Math.floor(Math.random() * 50) * 100)}`,
      ),
      await measure(
        'search: free text',
        base,
        key,
        () => `/lead/?query=${encodeURIComponent(pick(['anvil', 'robotics', 'olivia', 'main st', 'denver']))}`,
      ),
      await measure(
        'search: fields',
        base,
        key,
        () =>
          `/lead/?query=${encodeURIComponent(pick(['status:customer city:boston', 'custom.Employees>4000 has:email', 'contact_name:patel status:qualified']))}`,
      ),
      await measure(
        'search: dates + sort',
        base,
        key,
        () =>
          `/lead/?query=${encodeURIComponent(pick(['created>"90 days ago" sort:name', 'updated:"last month" sort:-created', 'created<2026-01-01 sort:updated']))}`,
      ),
    ]
    console.table(results)
  } finally {
    api.stop()
    if (values.db === undefined) rmSync(scratch, { recursive: true, force: true })
  }
}

await main()
