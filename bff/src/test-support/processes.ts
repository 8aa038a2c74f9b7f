import { execFile, spawn, type ChildProcess } from 'node:child_process'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { deadPort } from './harness.js'

// Real api and BFF processes from their builds (api/dist, bff/dist), for the tests of what only a whole process does:
// sharing a data folder, draining on SIGTERM, its metrics port, its logs.

const cliPath = fileURLToPath(new URL('../../../api/dist/app/cli/cli.js', import.meta.url))
const bffMain = fileURLToPath(new URL('../../dist/main.js', import.meta.url))
const STARTUP_MS = 30_000
const execFileAsync = promisify(execFile)

/** A started process and everything it has written so far (stdout, then stderr where it is kept). */
export interface Started {
  child: ChildProcess
  output: () => string
}

/** Resolves with the first match of `pattern` in the child's stdout. */
export function waitForOutput(child: ChildProcess, pattern: RegExp): Promise<RegExpExecArray> {
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

/** Sends SIGTERM and waits for the exit (SIGKILL after 10 s). */
export function stop(child: ChildProcess): Promise<void> {
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

function kept(child: ChildProcess): () => string {
  let text = ''
  child.stdout?.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')))
  child.stderr?.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')))
  return () => text
}

/** The processes a test file starts, stopped together by `stopAll`. */
export class Processes {
  readonly started: ChildProcess[] = []

  constructor() {
    for (const file of [cliPath, bffMain])
      if (!existsSync(file)) throw new Error(`${file} is missing: build first (corepack pnpm -r run build)`)
  }

  /**
   * A new organization on a new SQLite file in `dir`, and a real api serving it; its log (at `LOG_LEVEL`, warn unless
   * given) is kept from its stderr.
   */
  async api(dir: string, env: NodeJS.ProcessEnv = {}): Promise<Started & { url: string; apiKey: string }> {
    const db = `sqlite:${join(dir, 'api.db')}`
    const { stdout } = await execFileAsync(
      process.execPath,
      [cliPath, 'init', '--db', db, '--org', 'Two Co', '--email', 'pat@two.test', '--json'],
      { env: { ...process.env, LOG_LEVEL: 'warn' } },
    )
    const init: unknown = JSON.parse(stdout)
    if (typeof init !== 'object' || init === null || !('api_key' in init) || typeof init.api_key !== 'string')
      throw new Error(`leadline init printed no key: ${stdout}`)
    const child = spawn(process.execPath, [cliPath, 'serve', '--port', '0', '--json', '--db', db], {
      env: { ...process.env, LOG_LEVEL: 'warn', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    this.started.push(child)
    const output = kept(child)
    const [, url = ''] = await waitForOutput(child, /"url":"([^"]+)"/)
    return { child, output, url, apiKey: init.api_key }
  }

  /** A BFF process on `dataDir` in front of `apiUrl`, logging at info on its stdout. */
  async bff(apiUrl: string, dataDir: string, env: NodeJS.ProcessEnv = {}): Promise<Started & { url: string }> {
    const port = await deadPort()
    const child = spawn(process.execPath, [bffMain], {
      env: {
        ...process.env,
        LOG_LEVEL: 'info',
        ...env,
        PORT: String(port),
        HOST: '127.0.0.1',
        LEADLINE_API_URL: apiUrl,
        LEADLINE_BFF_DATA_DIR: dataDir,
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    })
    this.started.push(child)
    const output = kept(child)
    await waitForOutput(child, /listening on http/)
    return { child, output, url: `http://127.0.0.1:${port}` }
  }

  stopAll(): Promise<void> {
    return Promise.all(this.started.map(stop)).then(() => undefined)
  }
}

/** The JSON lines of a process's log (anything else it wrote is left out). */
export function logLines(output: string): Record<string, unknown>[] {
  const lines: Record<string, unknown>[] = []
  for (const line of output.split('\n')) {
    if (!line.startsWith('{')) continue
    try {
      const value: unknown = JSON.parse(line)
      if (typeof value === 'object' && value !== null && !Array.isArray(value)) lines.push({ ...value })
    } catch {
      // A line cut short by the process's end.
    }
  }
  return lines
}

/** A browser's call to a BFF: with `X-Requested-With: leadline`, its cookie and a JSON body when given. */
export async function call(
  base: string,
  path: string,
  init: { method?: string; cookie?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<{ status: number; json: unknown; setCookies: string[]; headers: Headers }> {
  const headers: Record<string, string> = { 'x-requested-with': 'leadline', ...init.headers }
  if (init.cookie !== undefined) headers.cookie = init.cookie
  if (init.body !== undefined) headers['content-type'] = 'application/json'
  const response = await fetch(base + path, {
    method: init.method ?? 'GET',
    headers,
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  })
  const text = await response.text()
  let json: unknown
  try {
    json = text === '' ? undefined : JSON.parse(text)
  } catch {
    json = text
  }
  return { status: response.status, json, setCookies: response.headers.getSetCookie(), headers: response.headers }
}
