// Helpers shared by `npm start` and `npm test` (ARCHITECTURE.md §3–4). Plain Node, node:* modules only,
// because they run before any dependency is installed.
import { Buffer } from 'node:buffer'
import { spawn } from 'node:child_process'
import console from 'node:console'
import { accessSync, constants, existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { createServer } from 'node:net'
import { constants as osConstants } from 'node:os'
import { delimiter, dirname, join, resolve } from 'node:path'
import process from 'node:process'
import { fileURLToPath } from 'node:url'

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..')

const cleanupSignals = ['SIGINT', 'SIGTERM', 'SIGHUP']

/** The Node install prefix holding `include/node/node.h`, so node-gyp builds against it instead of downloading headers. */
export function nodeHeadersDir() {
  const prefix = dirname(dirname(process.execPath))
  return existsSync(join(prefix, 'include', 'node', 'node.h')) ? prefix : null
}

/** Environment every child gets: no corepack prompt, no prebuilt-binary or browser downloads, local Node headers. */
export function childEnv(extra = {}) {
  const env = {
    ...process.env,
    COREPACK_ENABLE_DOWNLOAD_PROMPT: '0',
    npm_config_build_from_source: 'true',
    PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD: '1',
  }
  const headers = nodeHeadersDir()
  if (headers) env.npm_config_nodedir = headers
  return { ...env, ...extra }
}

function signalExitCode(signal) {
  return 128 + (osConstants.signals[signal] ?? 0)
}

/** Runs a command with inherited stdio; resolves its exit code (127 when it cannot be started). */
export function run(cmd, args = [], { cwd = repoRoot, env = {}, stdio = 'inherit' } = {}) {
  return new Promise((resolvePromise) => {
    const child = spawn(cmd, args, { cwd, env: childEnv(env), stdio })
    child.on('error', (error) => {
      console.error(`cannot run ${cmd}: ${error.message}`)
      resolvePromise(127)
    })
    child.on('close', (code, signal) => resolvePromise(code ?? signalExitCode(signal)))
  })
}

/** Like run, but collects stdout (and stderr when `stderr: 'pipe'`) instead of printing it. */
export function capture(cmd, args = [], { cwd = repoRoot, env = {}, stderr = 'inherit' } = {}) {
  return new Promise((resolvePromise) => {
    const child = spawn(cmd, args, { cwd, env: childEnv(env), stdio: ['ignore', 'pipe', stderr] })
    const chunks = []
    child.stdout.on('data', (chunk) => chunks.push(chunk))
    child.stderr?.on('data', (chunk) => chunks.push(chunk))
    child.on('error', (error) => resolvePromise({ code: 127, stdout: `cannot run ${cmd}: ${error.message}` }))
    child.on('close', (code, signal) =>
      resolvePromise({ code: code ?? signalExitCode(signal), stdout: Buffer.concat(chunks).toString('utf8') }),
    )
  })
}

export function pnpm(args, opts) {
  return run('corepack', ['pnpm', ...args], opts)
}

export function isExecutable(path) {
  try {
    accessSync(path, constants.X_OK)
    return statSync(path).isFile()
  } catch {
    return false
  }
}

/** The full path of an executable on PATH, or null. */
export function which(name) {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (dir && isExecutable(join(dir, name))) return join(dir, name)
  }
  return null
}

/** A TCP port that was free on 127.0.0.1 a moment ago. */
export function freePort() {
  return new Promise((resolvePromise, reject) => {
    const server = createServer()
    server.unref()
    server.on('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      server.close(() => resolvePromise(typeof address === 'object' && address ? address.port : 0))
    })
  })
}

export function isRoot() {
  return process.getuid?.() === 0
}

let aptListsUpdated = false

/** As root on Debian: apt-get install the packages. Resolves false (after saying why) when that is not possible. */
export async function aptInstall(packages) {
  if (!isRoot() || !existsSync('/etc/debian_version') || !which('apt-get')) {
    console.error(`cannot install ${packages.join(', ')}: that needs root on Debian (apt-get)`)
    return false
  }
  const env = { DEBIAN_FRONTEND: 'noninteractive' }
  if (!aptListsUpdated) {
    if ((await run('apt-get', ['update'], { env })) !== 0) return false
    aptListsUpdated = true
  }
  return (await run('apt-get', ['install', '-y', ...packages], { env })) === 0
}

/** Runs fn once: when the returned function is called, at exit, or on a signal (which is then re-raised). */
export function addCleanup(fn) {
  let done = false
  const onSignal = (signal) => {
    cleanup()
    process.kill(process.pid, signal)
  }
  function cleanup() {
    if (done) return
    done = true
    process.off('exit', cleanup)
    for (const signal of cleanupSignals) process.off(signal, onSignal)
    fn()
  }
  process.on('exit', cleanup)
  for (const signal of cleanupSignals) process.on(signal, onSignal)
  return cleanup
}

function workspacePatterns() {
  const lines = readFileSync(join(repoRoot, 'pnpm-workspace.yaml'), 'utf8').split('\n')
  const start = lines.findIndex((line) => /^packages:\s*$/.test(line))
  if (start === -1) return []
  const patterns = []
  for (const line of lines.slice(start + 1)) {
    const item = /^\s+-\s+['"]?([^'"#\s]+)['"]?/.exec(line)
    if (item?.[1]) patterns.push(item[1])
    else if (line.trim() && !line.trim().startsWith('#')) break
  }
  return patterns.filter((pattern) => !pattern.startsWith('!'))
}

function expandPattern(pattern) {
  if (!pattern.endsWith('/*')) return [join(repoRoot, pattern)]
  const parent = join(repoRoot, pattern.slice(0, -2))
  if (!existsSync(parent)) return []
  return readdirSync(parent, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => join(parent, entry.name))
}

/** Absolute directories of the workspace packages listed in pnpm-workspace.yaml (`dir` and `dir/*` forms). */
export function workspacePackageDirs() {
  return workspacePatterns()
    .flatMap(expandPattern)
    .filter((dir) => existsSync(join(dir, 'package.json')))
}

export function readJsonFile(path) {
  try {
    return JSON.parse(readFileSync(path, 'utf8'))
  } catch {
    return null
  }
}

function mtime(path) {
  return existsSync(path) ? statSync(path).mtimeMs : 0
}

function dependenciesStale() {
  const installedAt = mtime(join(repoRoot, 'node_modules', '.modules.yaml'))
  if (installedAt === 0) return true
  const inputs = [
    join(repoRoot, 'pnpm-lock.yaml'),
    join(repoRoot, 'pnpm-workspace.yaml'),
    join(repoRoot, 'package.json'),
    ...workspacePackageDirs().map((dir) => join(dir, 'package.json')),
  ]
  return inputs.some((path) => mtime(path) > installedAt)
}

async function ensurePnpm() {
  if (!which('corepack')) {
    console.error('corepack is not on PATH; it ships with Node 20–24 (or install it with `npm install -g corepack`)')
    return false
  }
  const { code, stdout } = await capture('corepack', ['pnpm', '--version'], { stderr: 'pipe' })
  if (code !== 0) {
    console.error(`corepack could not provide the pnpm pinned in package.json:\n${stdout}`)
    return false
  }
  console.log(`pnpm ${stdout.trim()} (via corepack)`)
  return true
}

/** Makes sure pnpm works and node_modules matches the lockfile. Resolves true when ready. */
export async function ensureDependencies() {
  if (!nodeHeadersDir()) {
    console.warn(`no Node headers under ${dirname(dirname(process.execPath))}/include/node; native builds may fail`)
  }
  if (!(await ensurePnpm())) return false
  if (!dependenciesStale()) {
    console.log('dependencies are up to date')
    return true
  }
  // CI=true lets pnpm recreate node_modules without asking, which it would otherwise refuse to do without a TTY.
  return (await pnpm(['install', '--frozen-lockfile'], { env: { CI: 'true' } })) === 0
}

/** Builds every workspace package in dependency order; resolves the exit code. */
export function build() {
  return pnpm(['-r', '--workspace-concurrency=1', 'run', 'build'])
}

/** Rows of strings as left-aligned columns. */
export function formatTable(rows) {
  const widths = rows[0]?.map((_, column) => Math.max(...rows.map((row) => String(row[column] ?? '').length))) ?? []
  return rows
    .map((row) =>
      row
        .map((cell, column) => String(cell ?? '').padEnd(widths[column] ?? 0))
        .join('  ')
        .trimEnd(),
    )
    .join('\n')
}
