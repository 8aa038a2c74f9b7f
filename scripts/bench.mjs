// `npm run bench` (README.md, Benchmarks): builds the api if it was never built, starts a throwaway PostgreSQL cluster
// for --postgres, and runs the benchmark (api/src/tooling/bench/bench.ts) with the other options. Not part of `npm test`.
import console from 'node:console'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import process from 'node:process'
import { build, repoRoot, run } from './lib/bootstrap.mjs'
import { startCluster } from './lib/postgres-cluster.mjs'

const benchPath = join(repoRoot, 'api', 'dist', 'tooling', 'bench', 'bench.js')

async function main() {
  const args = process.argv.slice(2)
  const postgres = args.includes('--postgres')
  const passed = args.filter((arg) => arg !== '--postgres')
  if (postgres && passed.some((arg) => arg === '--db' || arg.startsWith('--db='))) {
    console.error('npm run bench: --postgres and --db exclude each other')
    return 2
  }
  if (!existsSync(benchPath)) {
    console.error('the api is not built yet; building')
    if ((await build()) !== 0) {
      console.error('npm run bench: the build failed')
      return 1
    }
  }
  if (!postgres) return run(process.execPath, [benchPath, ...passed])
  // Postgres's default shared_buffers (128 MB) holds a tenth of a 100,000-lead database: every other page a search
  // reads would come from the operating system. A server of its own is given a quarter of its memory; this one takes
  // 1 GB, what a small team's server would give it (docs/decisions/0013-postgres-planner-and-buffers.md).
  const cluster = await startCluster({ installIfMissing: true, settings: { shared_buffers: '1GB' } })
  console.error(`started a throwaway PostgreSQL cluster at ${cluster.url}`)
  try {
    return await run(process.execPath, [benchPath, ...passed, '--db', cluster.url])
  } finally {
    await cluster.stop()
    console.error('stopped and removed the PostgreSQL cluster')
  }
}

process.exitCode = await main()
