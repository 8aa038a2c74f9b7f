// `npm start` (ARCHITECTURE.md §4): install, build, migrate, seed a demo organization on first run, then run the api
// and the bff until Ctrl-C. DATABASE_URL passes through; without it the api uses its SQLite file under data/.
import { spawn } from 'node:child_process'
import console from 'node:console'
import { randomBytes } from 'node:crypto'
import { existsSync, linkSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import process from 'node:process'
import { setTimeout as sleep } from 'node:timers/promises'
import {
  build,
  capture,
  childEnv,
  ensureDependencies,
  formatTable,
  readJsonFile,
  repoRoot,
  run,
} from './lib/bootstrap.mjs'

const { fetch, AbortSignal } = globalThis
const cliPath = join(repoRoot, 'api', 'dist', 'app', 'cli', 'cli.js')
const bffMainPath = join(repoRoot, 'bff', 'dist', 'main.js')
const dataDir = join(repoRoot, 'data')
const seedFile = join(dataDir, 'demo-seed.json')
const defaultDatabaseFile = join(dataDir, 'leadline.db')
// The secret the api and the bff share for the live-update stream (LEADLINE_STREAM_SECRET).
const streamSecretFile = join(dataDir, 'stream-secret')
// The key the api encrypts the secrets it stores with (LEADLINE_SECRET_KEY): SMTP passwords, webhook signature keys,
// inbound secrets. Losing it loses them; `leadline secret-key rotate` moves them to a new one.
const secretKeyFile = join(dataDir, 'secret-key')
const apiReadyTimeoutMs = 30_000
// The demo admin's email account sends through localhost:2525: a mail catcher there keeps the demo's emails as files.
const demoMailServer = 'localhost:2525'
const demoMailDir = join(dataDir, 'mail')

function fail(message) {
  console.error(`\nnpm start: ${message}`)
  process.exit(1)
}

function portFromEnv(name, fallback) {
  const raw = process.env[name]
  if (raw === undefined || raw === '') return fallback
  const port = Number(raw)
  if (!Number.isInteger(port) || port < 1 || port > 65535) fail(`${name} must be a port number, got "${raw}"`)
  return port
}

function cli(args) {
  return run(process.execPath, [cliPath, ...args])
}

// A seed file left over from an earlier database would print keys that no longer exist.
function usesNewDefaultDatabase() {
  return !process.env.DATABASE_URL && !existsSync(defaultDatabaseFile)
}

// Enough demo leads to search, page and work with; `LEADLINE_DEMO_LEADS` changes it (0 for none).
const demoLeads = Number(process.env.LEADLINE_DEMO_LEADS ?? '250')

async function seedDemo() {
  if (!Number.isInteger(demoLeads) || demoLeads < 0) fail('LEADLINE_DEMO_LEADS must be a whole number')
  console.log(`seeding the demo organization with ${demoLeads} leads`)
  const { code, stdout } = await capture(process.execPath, [
    cliPath,
    'seed',
    'demo',
    '--leads',
    String(demoLeads),
    '--json',
  ])
  if (code !== 0) fail(`seeding the demo organization failed (exit ${code})`)
  try {
    JSON.parse(stdout)
  } catch {
    fail(`\`leadline seed demo --json\` did not print JSON:\n${stdout}`)
  }
  mkdirSync(dataDir, { recursive: true })
  const partial = `${seedFile}.${process.pid}.tmp`
  writeFileSync(partial, stdout, { mode: 0o600 })
  renameSync(partial, seedFile)
}

/**
 * The environment's `name`, or a secret of 32 random bytes (hex) generated on the first start into `file` (mode
 * 0600), written whole and linked into place, so two starts at once agree on one.
 */
function persistentSecret(name, file) {
  const fromEnv = process.env[name]
  if (fromEnv) return fromEnv
  mkdirSync(dataDir, { recursive: true, mode: 0o700 })
  const partial = `${file}.${process.pid}.tmp`
  writeFileSync(partial, `${randomBytes(32).toString('hex')}\n`, { mode: 0o600 })
  try {
    linkSync(partial, file)
  } catch (error) {
    if (error?.code !== 'EEXIST') throw error
  } finally {
    rmSync(partial, { force: true })
  }
  return readFileSync(file, 'utf8').trim()
}

function startChild(name, args, env) {
  const child = spawn(process.execPath, args, { cwd: repoRoot, env: childEnv(env), stdio: 'inherit' })
  child.on('error', (error) => console.error(`${name}: ${error.message}`))
  return Object.assign(child, { label: name })
}

/**
 * Whether to run the demo's mail catcher: when this start serves the demo organization, unless
 * `LEADLINE_DEMO_MAIL=0`. A real installation (no demo seed file) never gets one.
 */
function catchesDemoMail() {
  return existsSync(seedFile) && process.env.LEADLINE_DEMO_MAIL !== '0'
}

function startServers(apiPort, appPort, catchMail) {
  const appUrl = process.env.LEADLINE_APP_URL ?? `http://localhost:${appPort}`
  const shared = {
    LEADLINE_STREAM_SECRET: persistentSecret('LEADLINE_STREAM_SECRET', streamSecretFile),
    // glibc's allocator: two arenas, not eight a core, so memory freed on the import thread or zlib's threads goes
    // back to use instead of staying with an idle arena (docs/decisions/0071-two-malloc-arenas.md).
    MALLOC_ARENA_MAX: process.env.MALLOC_ARENA_MAX ?? '2',
  }
  const allowedSmtp = [process.env.LEADLINE_SMTP_ALLOW_HOSTS ?? '', catchMail ? demoMailServer : '']
  const children = [
    // A young generation of 8 MB a semi-space, not V8's 16: less memory and, measured, no slower (decision 0079).
    startChild('api', ['--max-semi-space-size=8', cliPath, 'serve', '--port', String(apiPort)], {
      ...shared,
      LEADLINE_APP_URL: appUrl,
      LEADLINE_SECRET_KEY: persistentSecret('LEADLINE_SECRET_KEY', secretKeyFile),
      LEADLINE_SMTP_ALLOW_HOSTS: allowedSmtp.filter((item) => item !== '').join(','),
      // Invitations and password resets land in the demo's mail catcher too, unless a system mailer is set.
      ...(catchMail && !process.env.LEADLINE_SYSTEM_SMTP_URL
        ? { LEADLINE_SYSTEM_SMTP_URL: `smtp://127.0.0.1:${demoMailServer.split(':')[1]}` }
        : {}),
    }),
  ]
  if (catchMail) {
    // Optional: when port 2525 is taken the demo's emails fail to send (visibly, on the lead page), nothing more.
    // On 127.0.0.1, the address the api reaches `localhost` at (it connects over IPv4 when a name has both).
    const port = demoMailServer.split(':')[1]
    const args = [cliPath, 'mail-catcher', '--host', '127.0.0.1', '--port', port, '--dir', demoMailDir]
    const catcher = startChild('mail catcher', args, {})
    children.push(Object.assign(catcher, { optional: true }))
  }
  if (existsSync(bffMainPath)) {
    children.push(
      startChild('bff', [bffMainPath], {
        ...shared,
        PORT: String(appPort),
        LEADLINE_API_URL: `http://127.0.0.1:${apiPort}`,
        LEADLINE_DEMO_SEED_FILE: seedFile,
      }),
    )
  }
  return children
}

function hasExited(child) {
  return child.exitCode !== null || child.signalCode !== null
}

/**
 * Forwards SIGINT/SIGTERM to the children; when one exits, stops the others; exits when all have exited.
 * Returns a function that stops them all and makes the exit code non-zero.
 */
function supervise(children) {
  let stopping = false
  let exitCode = 0
  const stopAll = (signal) => {
    stopping = true
    for (const child of children) if (!hasExited(child)) child.kill(signal)
  }
  for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => stopAll(signal))
  for (const child of children) {
    child.on('exit', (code, signal) => {
      if (child.optional && !stopping) {
        console.error(`${child.label} exited (${signal ?? `code ${code}`}); carrying on without it`)
        if (children.every(hasExited)) process.exit(exitCode)
        return
      }
      const stoppedByUs = stopping && signal !== null
      if (code !== 0 && !stoppedByUs && exitCode === 0) exitCode = code ?? 1
      if (!stopping) {
        console.error(`${child.label} exited (${signal ?? `code ${code}`}); stopping`)
        stopAll('SIGTERM')
      }
      if (children.every(hasExited)) process.exit(exitCode)
    })
  }
  return () => {
    exitCode = 1
    stopAll('SIGTERM')
  }
}

async function apiAnswers(url) {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(2000) })
    // Read the body so the connection goes back to idle; an unread one keeps the api from stopping gracefully.
    await response.arrayBuffer()
    return response.ok
  } catch {
    return false
  }
}

async function waitForApi(apiPort, api) {
  const url = `http://127.0.0.1:${apiPort}/api/v1/openapi.json`
  const deadline = Date.now() + apiReadyTimeoutMs
  while (Date.now() < deadline) {
    if (hasExited(api)) return false
    if (await apiAnswers(url)) return true
    await sleep(250)
  }
  console.error(`the api did not answer ${url} within ${apiReadyTimeoutMs / 1000} s`)
  return false
}

function printUsers(users) {
  const rows = users.map((user) => [
    user.role ?? '',
    user.title ?? '',
    user.email ?? '',
    user.password ?? '',
    user.api_key ?? '',
  ])
  console.log(formatTable([['role', 'title', 'email', 'password', 'api key'], ...rows]).replace(/^/gm, '    '))
}

function printWelcome(apiPort, appPort, hasBff, catchMail) {
  const apiBase = `http://localhost:${apiPort}/api/v1`
  console.log('\nLeadline is running.\n')
  if (hasBff) console.log(`  App:      http://localhost:${appPort}/`)
  else console.log('  App:      not started (bff/dist/main.js does not exist yet)')
  console.log(`  API:      ${apiBase}/`)
  console.log(`  OpenAPI:  ${apiBase}/openapi.json`)
  if (catchMail) console.log(`  Mail:     the demo's emails are caught in ${demoMailDir} (smtp://${demoMailServer})`)
  const seed = readJsonFile(seedFile)
  const users = Array.isArray(seed?.users) ? seed.users : []
  if (users.length === 0) {
    console.log(`\n  No demo users found in ${seedFile}.`)
  } else {
    console.log(`\n  Demo organization "${seed.organization_name}" (${seed.organization_id}). Sign in as one of:\n`)
    printUsers(users)
    const example = users.find((user) => user.role === 'admin') ?? users[0]
    console.log(`\n  Try the API:\n    curl -u ${example.api_key}: ${apiBase}/me/`)
  }
  console.log(`\n  The passwords and keys are kept in ${seedFile}. Press Ctrl-C to stop.\n`)
}

async function main() {
  const apiPort = portFromEnv('API_PORT', 4000)
  const appPort = portFromEnv('PORT', 3000)
  if (!(await ensureDependencies())) fail('installing dependencies failed')
  if ((await build()) !== 0) fail('the build failed')
  const newDatabase = usesNewDefaultDatabase()
  if ((await cli(['migrate'])) !== 0) fail('migrating the database failed')
  if (newDatabase || !existsSync(seedFile)) await seedDemo()
  const catchMail = catchesDemoMail()
  const children = startServers(apiPort, appPort, catchMail)
  const stopWithFailure = supervise(children)
  const [api] = children
  if (!api || !(await waitForApi(apiPort, api))) {
    console.error('\nnpm start: the api did not come up; stopping')
    stopWithFailure()
    return
  }
  printWelcome(apiPort, appPort, existsSync(bffMainPath), catchMail)
}

await main()
