// `npm test` (ARCHITECTURE.md §4): install, build, typecheck, lint, format check, vitest on SQLite, the API suite on a
// throwaway Postgres, Playwright. The last line is always `N passed, M failed`; exit code 0 only when M is 0.
import console from 'node:console'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, join, relative } from 'node:path'
import process from 'node:process'
import {
  addCleanup,
  aptInstall,
  build,
  ensureDependencies,
  formatTable,
  pnpm,
  readJsonFile,
  repoRoot,
  workspacePackageDirs,
} from './lib/bootstrap.mjs'
import { startCluster } from './lib/postgres-cluster.mjs'

const chromiumPath = '/usr/bin/chromium'
const vitestConfigNames = ['vitest.config.ts', 'vitest.config.mts', 'vitest.config.js']

/** @type {{ name: string, status: string, passed: number, failed: number, detail: string, seconds: string }[]} */
const results = []
/** The failed tests by name, printed under the summary so a short log still says which test failed. */
const failedTests = []

function header(name) {
  console.log(`\n━━━ ${name} ━━━`)
}

/** Runs one step, records its outcome; a step that throws counts as 1 failed. Resolves true when nothing failed. */
async function step(name, body) {
  header(name)
  const startedAt = Date.now()
  let outcome
  try {
    outcome = await body()
  } catch (error) {
    console.error(error instanceof Error ? error.message : error)
    outcome = { failed: 1, detail: 'error: ' + firstLine(error) }
  }
  const passed = outcome.passed ?? 0
  const failed = outcome.failed ?? 0
  const status = outcome.status ?? (failed > 0 ? 'FAILED' : 'ok')
  const seconds = ((Date.now() - startedAt) / 1000).toFixed(1)
  results.push({ name, status, passed, failed, detail: outcome.detail ?? '', seconds })
  if (failed > 0) console.error(`✗ ${name}: ${outcome.detail ?? 'failed'}`)
  return failed === 0
}

function firstLine(error) {
  return String(error instanceof Error ? error.message : error).split('\n')[0]
}

function skip(name, reason) {
  results.push({ name, status: 'skipped', passed: 0, failed: 0, detail: reason, seconds: '' })
}

function commandOutcome(code) {
  return code === 0 ? { detail: 'ok' } : { failed: 1, detail: `exit code ${code}` }
}

async function pnpmStep(args) {
  console.log(`$ corepack pnpm ${args.join(' ')}`)
  return commandOutcome(await pnpm(args))
}

// A test file that cannot be imported fails without failing any test in it; it counts as one failed test.
function brokenTestFiles(report) {
  const files = Array.isArray(report.testResults) ? report.testResults : []
  return files.filter(
    (file) => file.status === 'failed' && !(file.assertionResults ?? []).some((test) => test.status === 'failed'),
  ).length
}

function vitestOutcome(code, report) {
  if (!report) return { failed: 1, detail: `vitest exited ${code} without writing its JSON report` }
  const passed = report.numPassedTests ?? 0
  const broken = brokenTestFiles(report)
  const failed = (report.numFailedTests ?? 0) + broken
  for (const file of Array.isArray(report.testResults) ? report.testResults : []) {
    const where = relative(repoRoot, String(file.name ?? ''))
    for (const test of file.assertionResults ?? []) {
      if (test.status === 'failed') {
        const why = firstLine(test.failureMessages?.[0] ?? '').slice(0, 200)
        failedTests.push(`${where} › ${test.fullName ?? test.title}${why ? ` — ${why}` : ''}`)
      }
    }
    if (file.status === 'failed' && !(file.assertionResults ?? []).some((test) => test.status === 'failed')) {
      failedTests.push(`${where} (could not run: ${firstLine(file.message ?? '')})`)
    }
  }
  const counts =
    `${passed} passed, ${failed} failed` +
    (broken ? ` (${broken} test file${broken === 1 ? '' : 's'} could not run)` : '')
  // An unhandled error fails the run without failing any test.
  if (code !== 0 && failed === 0) return { passed, failed: 1, detail: `${counts}, but vitest exited ${code}` }
  return { passed, failed, detail: counts }
}

async function vitestRun(packageDir, label, testDb, reportDir) {
  const outputFile = join(reportDir, `vitest-${label}.json`)
  const args = ['exec', 'vitest', 'run', '--reporter=default', '--reporter=json', `--outputFile=${outputFile}`]
  console.log(`$ (cd ${relative(repoRoot, packageDir)} && LEADLINE_TEST_DB=${testDb} corepack pnpm ${args.join(' ')})`)
  const code = await pnpm(args, { cwd: packageDir, env: { LEADLINE_TEST_DB: testDb } })
  return vitestOutcome(code, readJsonFile(outputFile))
}

function vitestPackageDirs() {
  return workspacePackageDirs().filter((dir) => vitestConfigNames.some((name) => existsSync(join(dir, name))))
}

function packageDir(name) {
  return workspacePackageDirs().find((dir) => readJsonFile(join(dir, 'package.json'))?.name === name)
}

/**
 * The Postgres runs of the api's and the BFF's suites, on a throwaway cluster; answers the cluster, still running, for
 * the journeys that need one (`*.postgres.spec.ts`), or undefined when none could be started.
 */
async function postgresSteps(reportDir) {
  const apiDir = packageDir('@leadline/api')
  // The BFF's own Postgres run holds only its `*.postgres.test.ts` (its session store); see bff/vitest.config.ts.
  const bffDir = packageDir('@leadline/bff')
  if (!apiDir) {
    await step('api tests (postgres)', () => ({ failed: 1, detail: 'no @leadline/api package found' }))
    return undefined
  }
  let cluster
  const clusterReady = await step('postgres cluster', async () => {
    cluster = await startCluster({ installIfMissing: true })
    console.log(`started ${cluster.url} in ${cluster.dir}`)
    return { detail: cluster.url }
  })
  if (!clusterReady || !cluster) {
    skip('api tests (postgres)', 'no cluster')
    return undefined
  }
  await step('api tests (postgres)', () => vitestRun(apiDir, 'api-postgres', cluster.url, reportDir))
  if (bffDir) await step('bff tests (postgres)', () => vitestRun(bffDir, 'bff-postgres', cluster.url, reportDir))
  return cluster
}

async function ensureChromium() {
  if (existsSync(chromiumPath)) return true
  console.log(`${chromiumPath} not found; installing chromium`)
  return (await aptInstall(['chromium'])) && existsSync(chromiumPath)
}

function playwrightOutcome(code, report) {
  if (!report?.stats) return { failed: 1, detail: `playwright exited ${code} without writing its JSON report` }
  const { expected = 0, unexpected = 0, flaky = 0, skipped = 0 } = report.stats
  const notes = [flaky && `${flaky} flaky (passed on retry)`, skipped && `${skipped} skipped`].filter(Boolean)
  const counts = [`${expected} passed, ${unexpected} failed`, ...notes].join(', ')
  collectPlaywrightFailures(report.suites ?? [], [])
  if (code !== 0 && unexpected === 0) return { passed: expected, failed: 1, detail: `${counts}, but exited ${code}` }
  return { passed: expected, failed: unexpected, detail: counts }
}

function collectPlaywrightFailures(suites, titles) {
  for (const suite of suites) {
    const path = suite.title ? [...titles, suite.title] : titles
    for (const spec of suite.specs ?? []) {
      if (spec.ok === false) failedTests.push(`e2e › ${[...path, spec.title].join(' › ')}`)
    }
    collectPlaywrightFailures(suite.suites ?? [], path)
  }
}

async function playwrightStep(reportDir, testDb) {
  if (!existsSync(join(repoRoot, 'e2e', 'playwright.config.ts'))) {
    console.log('no Playwright journeys yet (e2e/playwright.config.ts does not exist)')
    return { status: 'none', detail: 'no journeys yet' }
  }
  if (!(await ensureChromium())) return { failed: 1, detail: `${chromiumPath} is missing and could not be installed` }
  const outputFile = join(reportDir, 'playwright.json')
  const args = ['--filter', '@leadline/e2e', 'exec', 'playwright', 'test', '--reporter=list,json']
  console.log(`$ corepack pnpm ${args.join(' ')}`)
  // With a cluster, the journeys across several processes on one Postgres database run too (e2e/playwright.config.ts).
  const env = { PLAYWRIGHT_JSON_OUTPUT_NAME: outputFile, ...(testDb ? { LEADLINE_TEST_DB: testDb } : {}) }
  const code = await pnpm(args, { env })
  return playwrightOutcome(code, readJsonFile(outputFile))
}

async function buildStep() {
  console.log('$ corepack pnpm -r --workspace-concurrency=1 run build')
  return commandOutcome(await build())
}

async function checks(reportDir) {
  await step('typecheck', () => pnpmStep(['run', 'typecheck']))
  await step('lint', () => pnpmStep(['run', 'lint']))
  await step('format', () => pnpmStep(['run', 'format:check']))
  const packages = vitestPackageDirs()
  if (packages.length === 0) await step('vitest', () => ({ failed: 1, detail: 'no package has a vitest config' }))
  for (const dir of packages) {
    const label = basename(dir)
    await step(`${label} tests (sqlite)`, () => vitestRun(dir, `${label}-sqlite`, 'sqlite', reportDir))
  }
  const cluster = await postgresSteps(reportDir)
  try {
    await step('playwright', () => playwrightStep(reportDir, cluster?.url))
  } finally {
    if (cluster) {
      await cluster.stop()
      console.log('stopped and removed the postgres cluster')
    }
  }
}

function printSummary() {
  const rows = results.map((r) => [r.name, r.status, r.detail, r.seconds && `${r.seconds}s`])
  header('summary')
  console.log(formatTable([['step', 'result', 'detail', 'time'], ...rows]))
  if (failedTests.length > 0) console.log(['failed tests:', ...failedTests.map((name) => `  ✗ ${name}`)].join('\n'))
  const passed = results.reduce((sum, r) => sum + r.passed, 0)
  const failed = results.reduce((sum, r) => sum + r.failed, 0)
  console.log(`${passed} passed, ${failed} failed`)
  process.exitCode = failed === 0 ? 0 : 1
}

async function main() {
  const reportDir = mkdtempSync(join(tmpdir(), 'leadline-test-reports-'))
  const removeReports = addCleanup(() => rmSync(reportDir, { recursive: true, force: true }))
  const installed = await step('install', async () =>
    (await ensureDependencies()) ? { detail: 'ok' } : { failed: 1, detail: 'installing dependencies failed' },
  )
  const built = installed && (await step('build', buildStep))
  if (built) await checks(reportDir)
  else skip('everything else', installed ? 'build failed' : 'install failed')
  removeReports()
  printSummary()
}

main().catch((error) => {
  console.error(error)
  results.push({ name: 'test runner', status: 'FAILED', passed: 0, failed: 1, detail: firstLine(error), seconds: '' })
  printSummary()
})
