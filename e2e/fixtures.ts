import { spawn, execFile, type ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { test as base, expect, type Page } from '@playwright/test'

const root = fileURLToPath(new URL('..', import.meta.url))
const cli = join(root, 'api/dist/cli.js')
const bffMain = join(root, 'bff/dist/main.js')

interface Stack {
  /** The BFF's origin: what the browser talks to. */
  baseURL: string
  apiUrl: string
  apiKey: string
  organizationId: string
}

function freePort(): Promise<number> {
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

function waitForOutput(child: ChildProcess, pattern: RegExp): Promise<RegExpExecArray> {
  return new Promise((resolve, reject) => {
    let seen = ''
    child.stdout?.on('data', (chunk: Buffer) => {
      seen += chunk.toString()
      const match = pattern.exec(seen)
      if (match !== null) resolve(match)
    })
    child.once('exit', (code) => {
      reject(new Error(`process exited (${String(code)}) before printing ${String(pattern)}:\n${seen}`))
    })
  })
}

async function waitForHttp(url: string): Promise<void> {
  const deadline = Date.now() + 20_000
  for (;;) {
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

function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return Promise.resolve()
  return new Promise((resolve) => {
    child.once('exit', () => {
      resolve()
    })
    child.kill('SIGTERM')
  })
}

/** The real api (fresh SQLite file, `leadline init`) and the real bff, on free ports, for one worker. */
export const test = base.extend<{ api: CrmClient }, { stack: Stack }>({
  stack: [
    async ({}, use) => {
      const dir = mkdtempSync(join(tmpdir(), 'leadline-e2e-'))
      const db = `sqlite:${join(dir, 'e2e.db')}`
      const { stdout } = await promisify(execFile)(process.execPath, [
        cli,
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
      const init: unknown = JSON.parse(stdout)
      if (typeof init !== 'object' || init === null || !('api_key' in init) || !('organization_id' in init))
        throw new Error(stdout)
      const api = spawn(process.execPath, [cli, 'serve', '--port', '0', '--json', '--db', db], {
        env: { ...process.env, LOG_LEVEL: 'warn' },
        stdio: ['ignore', 'pipe', 'inherit'],
      })
      const [, apiUrl = ''] = await waitForOutput(api, /"url":"([^"]+)"/)
      const port = await freePort()
      const bff = spawn(process.execPath, [bffMain], {
        env: {
          ...process.env,
          PORT: String(port),
          HOST: '127.0.0.1',
          LEADLINE_API_URL: apiUrl,
          LEADLINE_BFF_DATA_DIR: dir,
          LOG_LEVEL: 'warn',
        },
        stdio: ['ignore', 'pipe', 'inherit'],
      })
      const baseURL = `http://127.0.0.1:${String(port)}`
      await waitForHttp(`${baseURL}/healthz`)
      await use({ baseURL, apiUrl, apiKey: String(init.api_key), organizationId: String(init.organization_id) })
      await stop(bff)
      await stop(api)
      rmSync(dir, { recursive: true, force: true })
    },
    { scope: 'worker' },
  ],
  baseURL: async ({ stack }, use) => {
    await use(stack.baseURL)
  },
  api: async ({ stack }, use) => {
    await use(new CrmClient(stack.apiUrl, stack.apiKey))
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

/** Signs in through the sign-in page with the worker's API key. */
export async function signIn(page: Page, key: string): Promise<void> {
  await page.goto('/sign-in')
  await page.getByLabel('API key').fill(key)
  await page.getByRole('button', { name: 'Sign in' }).click()
  await expect(page.getByRole('button', { name: 'Sign out' })).toBeVisible()
}

export { expect }
