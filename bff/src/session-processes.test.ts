import { execFile, spawn, type ChildProcess } from 'node:child_process'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { deadPort, sessionPair, tempDir } from './test-support/harness.js'

// Two real BFF processes on one data folder, in front of a real API: what "Scaling out" in the README promises.
const cliPath = fileURLToPath(new URL('../../api/dist/app/cli/cli.js', import.meta.url))
const bffMain = fileURLToPath(new URL('../dist/main.js', import.meta.url))
const STARTUP_MS = 30_000

const execFileAsync = promisify(execFile)
const started: ChildProcess[] = []
let dir: Awaited<ReturnType<typeof tempDir>>
let apiKey = ''
let bffA = ''
let apiUrl = ''
let bffB = ''

function waitForOutput(child: ChildProcess, pattern: RegExp): Promise<RegExpExecArray> {
  return new Promise((resolve, reject) => {
    let seen = ''
    const timer = setTimeout(() => {
      reject(new Error(`no ${String(pattern)} within ${STARTUP_MS} ms; output so far:\n${seen}`))
    }, STARTUP_MS)
    child.stdout?.on('data', (chunk: Buffer) => {
      seen += chunk.toString('utf8')
      const match = pattern.exec(seen)
      if (match !== null) {
        clearTimeout(timer)
        resolve(match)
      }
    })
    child.once('exit', (code) => {
      clearTimeout(timer)
      reject(new Error(`exited with ${String(code)} before ${String(pattern)}; output:\n${seen}`))
    })
  })
}

async function startBffProcess(apiUrl: string, dataDir: string, env: NodeJS.ProcessEnv = {}): Promise<string> {
  const port = await deadPort()
  const child = spawn(process.execPath, [bffMain], {
    env: {
      ...process.env,
      ...env,
      PORT: String(port),
      HOST: '127.0.0.1',
      LEADLINE_API_URL: apiUrl,
      LEADLINE_BFF_DATA_DIR: dataDir,
      LOG_LEVEL: 'info',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  started.push(child)
  await waitForOutput(child, /listening on http/)
  return `http://127.0.0.1:${port}`
}

function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve()
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000)
    child.once('exit', () => {
      clearTimeout(timer)
      resolve()
    })
    child.kill('SIGTERM')
  })
}

beforeAll(async () => {
  for (const file of [cliPath, bffMain])
    if (!existsSync(file)) throw new Error(`${file} is missing: build first (corepack pnpm -r run build)`)
  dir = await tempDir()
  const db = `sqlite:${join(dir.path, 'api.db')}`
  const { stdout } = await execFileAsync(
    process.execPath,
    [cliPath, 'init', '--db', db, '--org', 'Two Co', '--email', 'pat@two.test', '--json'],
    { env: { ...process.env, LOG_LEVEL: 'warn' } },
  )
  const init: unknown = JSON.parse(stdout)
  if (typeof init !== 'object' || init === null || !('api_key' in init) || typeof init.api_key !== 'string')
    throw new Error(`leadline init printed no key: ${stdout}`)
  apiKey = init.api_key
  const api = spawn(process.execPath, [cliPath, 'serve', '--port', '0', '--json', '--db', db], {
    env: { ...process.env, LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  started.push(api)
  const [, url = ''] = await waitForOutput(api, /"url":"([^"]+)"/)
  apiUrl = url
  // Started together on a new data folder: they must agree on the generated secret and the session schema.
  const shared = join(dir.path, 'bff')
  ;[bffA, bffB] = await Promise.all([startBffProcess(apiUrl, shared), startBffProcess(apiUrl, shared)])
}, 90_000)

afterAll(async () => {
  await Promise.all(started.map(stop))
  await dir.remove()
}, 30_000)

async function call(
  base: string,
  path: string,
  init: { method?: string; cookie?: string; body?: unknown } = {},
): Promise<{ status: number; json: unknown; setCookies: string[] }> {
  const headers: Record<string, string> = { 'x-requested-with': 'leadline' }
  if (init.cookie !== undefined) headers.cookie = init.cookie
  if (init.body !== undefined) headers['content-type'] = 'application/json'
  const response = await fetch(base + path, {
    method: init.method ?? 'GET',
    headers,
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  })
  const text = await response.text()
  return {
    status: response.status,
    json: text === '' ? undefined : JSON.parse(text),
    setCookies: response.headers.getSetCookie(),
  }
}

test('a sign-in on one BFF process is valid on the other; time zones and sign-out are seen by both', async () => {
  const signedIn = await call(bffA, '/auth/session', {
    method: 'POST',
    body: { api_key: apiKey, time_zone: 'Europe/Paris' },
  })
  expect(signedIn.status).toBe(200)
  const cookie = sessionPair(signedIn.setCookies)

  const onB = await call(bffB, '/auth/session', { cookie })
  expect(onB.status).toBe(200)
  expect(onB.json).toMatchObject({ user: { email: 'pat@two.test' }, time_zone: 'Europe/Paris' })
  const meOnB = await call(bffB, '/api/v1/me/', { cookie })
  expect(meOnB.status).toBe(200)
  expect(meOnB.json).toMatchObject({ email: 'pat@two.test' })

  expect((await call(bffB, '/auth/session', { method: 'PUT', cookie, body: { time_zone: 'Asia/Tokyo' } })).status).toBe(
    200,
  )
  expect((await call(bffA, '/auth/session', { cookie })).json).toMatchObject({ time_zone: 'Asia/Tokyo' })

  expect((await call(bffB, '/auth/session', { method: 'DELETE', cookie })).status).toBe(204)
  expect((await call(bffA, '/auth/session', { cookie })).status).toBe(401)
  expect((await call(bffA, '/api/v1/me/', { cookie })).status).toBe(401)
  expect((await call(bffB, '/api/v1/me/', { cookie })).status).toBe(401)
}, 30_000)

test('on SIGTERM a BFF process turns /readyz 503, serves on for LEADLINE_DRAIN_SECONDS, then exits 0', async () => {
  const url = await startBffProcess(apiUrl, join(dir.path, 'bff'), { LEADLINE_DRAIN_SECONDS: '2' })
  const child = started.at(-1)
  if (child === undefined) throw new Error('no BFF process')
  expect(await call(url, '/readyz')).toMatchObject({ status: 200, json: { status: 'ready', draining: false } })
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve))
  const signalled = Date.now()
  const notice = waitForOutput(child, /not ready \(\/readyz answers 503\)/)
  child.kill('SIGTERM')
  await notice
  expect(await call(url, '/readyz')).toMatchObject({ status: 503, json: { status: 'not ready', draining: true } })
  // A sign-in still goes through while the balancer notices.
  const signedIn = await call(url, '/auth/session', {
    method: 'POST',
    body: { api_key: apiKey, time_zone: 'Europe/Paris' },
  })
  expect(signedIn.status).toBe(200)
  expect(await exited).toBe(0)
  expect(Date.now() - signalled).toBeGreaterThanOrEqual(2_000)
})
