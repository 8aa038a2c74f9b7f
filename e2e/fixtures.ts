import { spawn, execFile, type ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { startMailSink, type MailSink } from './mail-sink.js'
import { noteStarted } from './stray-processes.js'
import { test as base, expect, type Page } from '@playwright/test'

const root = fileURLToPath(new URL('..', import.meta.url))
export const cliPath = join(root, 'api/dist/app/cli/cli.js')
export const bffMain = join(root, 'bff/dist/main.js')

interface Stack {
  /** The BFF's origin: what the browser talks to. */
  baseURL: string
  apiUrl: string
  apiKey: string
  organizationId: string
}

/** One user of `leadline seed demo --json`. */
export interface DemoUser {
  email: string
  first_name: string
  last_name: string
  role: string
  title: string
  api_key: string
  password: string
}

interface DemoStack extends Stack {
  organizationName: string
  users: DemoUser[]
}

const execFileAsync = promisify(execFile)
const STARTUP_MS = 30_000
const STOP_MS = 15_000

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      const port = typeof address === 'object' && address !== null ? address.port : 0
      server.close(() => {
        resolve(port)
      })
    })
  })
}

function hasExited(child: ChildProcess): boolean {
  return child.exitCode !== null || child.signalCode !== null
}

export function waitForOutput(child: ChildProcess, pattern: RegExp): Promise<RegExpExecArray> {
  return new Promise((resolve, reject) => {
    let seen = ''
    const timer = setTimeout(() => {
      reject(new Error(`no ${String(pattern)} within ${String(STARTUP_MS)} ms:\n${seen}`))
    }, STARTUP_MS)
    child.stdout?.on('data', (chunk: Buffer) => {
      seen += chunk.toString()
      const match = pattern.exec(seen)
      if (match !== null) {
        clearTimeout(timer)
        resolve(match)
      }
    })
    child.once('error', (error) => {
      clearTimeout(timer)
      reject(error)
    })
    child.once('exit', (code) => {
      clearTimeout(timer)
      reject(new Error(`process exited (${String(code)}) before printing ${String(pattern)}:\n${seen}`))
    })
  })
}

export async function waitForHttp(url: string, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + STARTUP_MS
  for (;;) {
    if (hasExited(child)) throw new Error(`the process for ${url} exited (${String(child.exitCode)})`)
    try {
      const res = await fetch(url)
      await res.arrayBuffer()
      if (res.ok) return
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`${url} did not answer`)
    await new Promise((r) => setTimeout(r, 100))
  }
}

/** SIGTERM to the process by its pid, SIGKILL if it has not exited after STOP_MS; resolves once it has exited. */
export function stop(child: ChildProcess): Promise<void> {
  if (child.pid === undefined || hasExited(child)) return Promise.resolve()
  const { pid } = child
  const signal = (name: NodeJS.Signals) => {
    try {
      process.kill(pid, name)
    } catch {
      // Already gone; its 'exit' event is on its way.
    }
  }
  return new Promise((resolve) => {
    const kill = setTimeout(() => {
      signal('SIGKILL')
    }, STOP_MS)
    child.once('exit', () => {
      clearTimeout(kill)
      resolve()
    })
    signal('SIGTERM')
  })
}

export function cli(args: string[]): Promise<{ stdout: string }> {
  return execFileAsync(process.execPath, [cliPath, ...args])
}

export function jsonObject(text: string): Record<string, unknown> {
  const value: unknown = JSON.parse(text)
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error(`not a JSON object: ${text}`)
  return { ...value }
}

function isDemoUser(value: unknown): value is DemoUser {
  if (typeof value !== 'object' || value === null) return false
  const user: Record<string, unknown> = { ...value }
  return ['email', 'first_name', 'last_name', 'role', 'title', 'api_key', 'password'].every(
    (k) => typeof user[k] === 'string',
  )
}

/**
 * A fresh SQLite file with `leadline init` (and, for `demo`, `leadline seed demo`), the real api and the real bff
 * on free ports. Every process started is pushed to `started` at once, so the caller can stop it whatever fails.
 */
export async function startStack(
  dir: string,
  started: ChildProcess[],
  {
    demoSeedFile,
    apiEnv = {},
    bffEnv = {},
  }: { demoSeedFile?: string; apiEnv?: Record<string, string>; bffEnv?: Record<string, string> } = {},
): Promise<Stack> {
  const db = `sqlite:${join(dir, 'e2e.db')}`
  const init = jsonObject(
    (
      await cli([
        'init',
        '--db',
        db,
        '--org',
        'Journey Co',
        '--email',
        'casey@journey.test',
        '--first-name',
        'Casey',
        '--last-name',
        'Closer',
        '--json',
      ])
    ).stdout,
  )
  if (demoSeedFile !== undefined) {
    // A handful keeps the journeys quick; the README's screenshots ask for a full organization, as `npm start` seeds.
    const leads = process.env.LEADLINE_E2E_DEMO_LEADS ?? '5'
    const { stdout } = await cli(['seed', 'demo', '--db', db, '--leads', leads, '--json'])
    jsonObject(stdout)
    writeFileSync(demoSeedFile, stdout, { mode: 0o600 })
  }
  // Shared by the api and the bff, as `npm start` shares it: live updates for every signed-in user.
  const streamSecret = randomBytes(32).toString('hex')
  // The bff's port is chosen first: the api writes links to the app (in emails) with it.
  const port = await freePort()
  const baseURL = `http://127.0.0.1:${String(port)}`
  const api = spawn(process.execPath, [cliPath, 'serve', '--port', '0', '--json', '--db', db], {
    env: {
      ...process.env,
      LOG_LEVEL: 'warn',
      LEADLINE_STREAM_SECRET: streamSecret,
      LEADLINE_APP_URL: baseURL,
      ...apiEnv,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  launched(started, api)
  const [, apiUrl = ''] = await waitForOutput(api, /"url":"([^"]+)"/)
  const bff = spawn(process.execPath, [bffMain], {
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      LEADLINE_API_URL: apiUrl,
      LEADLINE_BFF_DATA_DIR: dir,
      LOG_LEVEL: 'warn',
      LEADLINE_STREAM_SECRET: streamSecret,
      ...(demoSeedFile === undefined ? {} : { LEADLINE_DEMO_SEED_FILE: demoSeedFile }),
      ...bffEnv,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  launched(started, bff)
  await waitForHttp(`${baseURL}/healthz`, bff)
  return { baseURL, apiUrl, apiKey: String(init.api_key), organizationId: String(init.organization_id) }
}

/**
 * Keeps a process a stack started, to be stopped with it; and notes its pid for the run's teardown
 * (`stray-processes.ts`), which kills it if the worker was killed first (a fixture that times out is abandoned
 * with its `finally`, and its worker killed).
 */
export function launched(started: ChildProcess[], child: ChildProcess): void {
  started.push(child)
  noteStarted(child)
}

/** Runs `body` with a started stack, then stops every process it started (the bff first) whatever failed. */
export async function withStack<T extends Stack>(
  start: (dir: string, started: ChildProcess[]) => Promise<T>,
  body: (stack: T) => Promise<void>,
): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'leadline-e2e-'))
  const started: ChildProcess[] = []
  try {
    await body(await start(dir, started))
  } finally {
    for (const child of started.reverse()) await stop(child)
    rmSync(dir, { recursive: true, force: true })
  }
}

/** The real api (fresh SQLite file, `leadline init`) and the real bff, on free ports, for one worker. */
export const test = base.extend<{ api: CrmClient }, { stack: Stack }>({
  stack: [
    async ({}, use) => {
      await withStack((dir, started) => startStack(dir, started), use)
    },
    { scope: 'worker', timeout: 120_000 },
  ],
  baseURL: async ({ stack }, use) => {
    await use(stack.baseURL)
  },
  api: async ({ stack }, use) => {
    await use(new CrmClient(stack.apiUrl, stack.apiKey))
  },
})

/**
 * A stack of its own whose database also holds `leadline seed demo --leads 5`, with the bff's one-click demo
 * sign-in reading that output, as `npm start` runs it.
 */
export const demoTest = demoTestWith({})

/**
 * `demoTest` whose api may also reach this machine's loopback (`LEADLINE_OUTBOUND_ALLOW_PRIVATE`): the webhook
 * journey's receiver runs there.
 */
export const outboundDemoTest = demoTestWith({ LEADLINE_OUTBOUND_ALLOW_PRIVATE: '1' })

function demoTestWith(apiEnv: Record<string, string>) {
  return base.extend<object, { demoStack: DemoStack }>({
    demoStack: [
      async ({}, use) => {
        await withStack(async (dir, started) => {
          const seedFile = join(dir, 'demo-seed.json')
          const stack = await startStack(dir, started, { demoSeedFile: seedFile, apiEnv })
          const seed = jsonObject(readFileSync(seedFile, 'utf8'))
          const users = Array.isArray(seed.users) ? seed.users.filter(isDemoUser) : []
          return { ...stack, organizationName: String(seed.organization_name), users }
        }, use)
      },
      { scope: 'worker', timeout: 120_000 },
    ],
    baseURL: async ({ demoStack }, use) => {
      await use(demoStack.baseURL)
    },
  })
}

/**
 * A stack of its own beside a real SMTP server (`mail-sink.ts`) on this machine, which the api may send to
 * (`LEADLINE_OUTBOUND_ALLOW_PRIVATE`): the email journeys give the user an account pointing at it.
 */
export const mailTest = base.extend<{ api: CrmClient }, { mailStack: Stack & { sink: MailSink } }>({
  mailStack: [
    async ({}, use) => {
      const sink = await startMailSink()
      try {
        await withStack(
          (dir, started) => startStack(dir, started, { apiEnv: { LEADLINE_OUTBOUND_ALLOW_PRIVATE: '1' } }),
          (stack) => use({ ...stack, sink }),
        )
      } finally {
        await sink.close()
      }
    },
    { scope: 'worker', timeout: 120_000 },
  ],
  baseURL: async ({ mailStack }, use) => {
    await use(mailStack.baseURL)
  },
  api: async ({ mailStack }, use) => {
    await use(new CrmClient(mailStack.apiUrl, mailStack.apiKey))
  },
})

/** Seeds data straight through the CRM API, as an integration would. */
export class CrmClient {
  constructor(
    private readonly apiUrl: string,
    readonly key: string,
  ) {}

  async request(method: string, path: string, body?: unknown): Promise<Record<string, unknown>> {
    const res = await fetch(`${this.apiUrl}/api/v1/${path}`, {
      method,
      headers: {
        authorization: `Basic ${Buffer.from(`${this.key}:`).toString('base64')}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    })
    const json: unknown = await res.json()
    if (!res.ok || typeof json !== 'object' || json === null)
      throw new Error(`${method} ${path}: ${String(res.status)} ${JSON.stringify(json)}`)
    return { ...json }
  }

  async createLead(body: Record<string, unknown>): Promise<{ id: string }> {
    const lead = await this.request('POST', 'lead/', body)
    return { id: String(lead.id) }
  }
}

/** Signs in through the sign-in page's API key form with the worker's API key. */
export async function signIn(page: Page, key: string): Promise<void> {
  await page.goto('/sign-in?method=key')
  await page.getByLabel('API key').fill(key)
  await page.getByRole('button', { name: 'Sign in' }).click()
  await expect(page.getByRole('button', { name: 'Sign out' })).toBeVisible()
}

export { expect }

/**
 * A stack whose api sends its own mail (invitations, password resets) through `leadline mail-catcher`, which keeps
 * each message as an `.eml` file in `mailDir`, as `npm start` runs it for the demo; `mailUrl` is where it listens.
 */
export const accountsTest = base.extend<
  { api: CrmClient },
  { accountsStack: Stack & { mailDir: string; mailUrl: string } }
>({
  accountsStack: [
    async ({}, use) => {
      await withStack(async (dir, started) => {
        const mailDir = join(dir, 'mail')
        const catcher = spawn(process.execPath, [cliPath, 'mail-catcher', '--port', '0', '--dir', mailDir, '--json'], {
          env: { ...process.env, LOG_LEVEL: 'warn' },
          stdio: ['ignore', 'pipe', 'inherit'],
        })
        launched(started, catcher)
        const [, catcherUrl = ''] = await waitForOutput(catcher, /"url":"([^"]+)"/)
        // The single sign-on journey's provider runs on this machine's loopback.
        const stack = await startStack(dir, started, {
          apiEnv: {
            LEADLINE_SYSTEM_SMTP_URL: catcherUrl,
            LEADLINE_OUTBOUND_ALLOW_PRIVATE: '1',
            // Two-factor and single sign-on secrets are stored sealed under it, as `npm start` provides one.
            LEADLINE_SECRET_KEY: randomBytes(32).toString('hex'),
          },
        })
        return { ...stack, mailDir, mailUrl: catcherUrl }
      }, use)
    },
    { scope: 'worker', timeout: 120_000 },
  ],
  baseURL: async ({ accountsStack }, use) => {
    await use(accountsStack.baseURL)
  },
  api: async ({ accountsStack }, use) => {
    await use(new CrmClient(accountsStack.apiUrl, accountsStack.apiKey))
  },
})
