import { execFile, spawn, type ChildProcess } from 'node:child_process'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import type { SseMessage } from '@leadline/shared/sse'
import { openSse, type SseClient } from '@leadline/shared/sse-client'
import type { LiveEvent } from '@leadline/shared/live-event'
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest'
import {
  deadPort,
  sessionPair,
  startBff,
  tempDir,
  testConfig,
  type Clock,
  type StartedBff,
} from './test-support/harness.js'

// Live updates through a real api process and a real BFF: one upstream stream per organization, handed over between
// sessions without losing events, browsers resuming from the ring, and streams that end with their sessions.

const cliPath = fileURLToPath(new URL('../../api/dist/app/cli/cli.js', import.meta.url))
const SECRET = 'live-updates-test-secret-0123456789abcdef'
const STARTUP_MS = 30_000
const execFileAsync = promisify(execFile)

let dir: Awaited<ReturnType<typeof tempDir>>
let db = ''
let apiPort = 0
let api: ChildProcess | undefined
const keys = { admin: '', rep: '', otherAdmin: '' }
let orgId = ''
const opened: SseClient[] = []
const bffs: StartedBff[] = []

async function cli(args: string[]): Promise<Record<string, unknown>> {
  const { stdout } = await execFileAsync(process.execPath, [cliPath, ...args, '--db', db, '--json'], {
    env: { ...process.env, LOG_LEVEL: 'warn' },
  })
  return JSON.parse(stdout) as Record<string, unknown>
}

/** `leadline serve` on the test's port; resolves once it listens. */
function startApi(): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cliPath, 'serve', '--port', String(apiPort), '--json', '--db', db], {
      env: { ...process.env, LOG_LEVEL: 'warn', LEADLINE_STREAM_SECRET: SECRET },
      stdio: ['ignore', 'pipe', 'inherit'],
    })
    const timer = setTimeout(() => {
      reject(new Error('the api did not start'))
    }, STARTUP_MS)
    child.stdout.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('"url"')) {
        clearTimeout(timer)
        resolve(child)
      }
    })
    child.once('exit', (code) => {
      clearTimeout(timer)
      reject(new Error(`the api exited with ${String(code)}`))
    })
  })
}

function stopApi(): Promise<void> {
  const child = api
  api = undefined
  if (child === undefined || child.exitCode !== null) return Promise.resolve()
  return new Promise((resolve) => {
    child.once('exit', () => {
      resolve()
    })
    child.kill('SIGTERM')
  })
}

beforeAll(async () => {
  if (!existsSync(cliPath)) throw new Error(`${cliPath} is missing: build first (corepack pnpm -r run build)`)
  dir = await tempDir()
  db = `sqlite:${join(dir.path, 'api.db')}`
  const admin = await cli(['init', '--org', 'Live Co', '--email', 'ann@live.test'])
  orgId = String(admin.organization_id)
  keys.admin = String(admin.api_key)
  keys.rep = String((await cli(['user', 'add', '--org', orgId, '--email', 'rey@live.test', '--role', 'user'])).api_key)
  keys.otherAdmin = String((await cli(['init', '--org', 'Other Co', '--email', 'olga@other.test'])).api_key)
  apiPort = await deadPort()
  api = await startApi()
}, 60_000)

afterAll(async () => {
  await stopApi()
  await dir.remove()
}, 30_000)

afterEach(async () => {
  for (const client of opened.splice(0)) client.close()
  for (const bff of bffs.splice(0)) await bff.close()
})

async function bff(
  options: { streamSecret?: string; clock?: Clock; graceMs?: number; dataDir?: string } = { streamSecret: SECRET },
): Promise<StartedBff> {
  const started = await startBff(
    testConfig({
      apiUrl: `http://127.0.0.1:${String(apiPort)}`,
      dataDir: options.dataDir ?? join(dir.path, `bff-${String(bffs.length)}-${String(Date.now())}`),
      streamSecret: options.streamSecret,
    }),
    options.clock,
    { graceMs: options.graceMs ?? 0, liveTimings: { heartbeatMs: 100, retryMs: 50, retryMaxMs: 500 } },
  )
  bffs.push(started)
  return started
}

async function signIn(on: StartedBff, apiKey: string): Promise<string> {
  const response = await on.call('/auth/session', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ api_key: apiKey, time_zone: 'UTC' }),
  })
  expect(response.status).toBe(200)
  return sessionPair(response.setCookies)
}

/** A browser's EventSource: the cookie, no X-Requested-With. */
async function events(on: StartedBff, cookie: string, lastEventId?: string): Promise<SseClient> {
  const client = await openSse(`${on.url}/events`, {
    cookie,
    ...(lastEventId === undefined ? {} : { 'last-event-id': lastEventId }),
  })
  opened.push(client)
  return client
}

/** Writes through the API itself, as another user's browser would through any BFF. */
async function createTask(apiKey: string, text: string): Promise<string> {
  const auth = { authorization: `Basic ${Buffer.from(`${apiKey}:`).toString('base64')}` }
  const base = `http://127.0.0.1:${String(apiPort)}/api/v1`
  const lead = await fetch(`${base}/lead/`, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json' },
    body: JSON.stringify({ name: `Lead for ${text}` }),
  })
  const { id: leadId } = (await lead.json()) as { id: string }
  const task = await fetch(`${base}/task/`, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json' },
    body: JSON.stringify({ lead_id: leadId, text }),
  })
  expect(task.status).toBe(200)
  return ((await task.json()) as { id: string }).id
}

function live(client: SseClient): LiveEvent[] {
  return client.messages.filter((m) => m.event === 'message').map((m) => JSON.parse(m.data) as LiveEvent)
}

function isTask(message: SseMessage): boolean {
  return message.event === 'message' && (JSON.parse(message.data) as LiveEvent).object_type === 'task.lead'
}

function taskIds(client: SseClient): string[] {
  return live(client)
    .filter((e) => e.object_type === 'task.lead')
    .map((e) => e.object_id)
}

/** The task messages, once there are `count` (each task's lead has its events too). */
async function untilTasks(client: SseClient, count: number): Promise<SseMessage[]> {
  await expect.poll(() => client.messages.filter(isTask).length, { timeout: 5000 }).toBeGreaterThanOrEqual(count)
  return client.messages.filter(isTask)
}

describe('GET /events', () => {
  test('needs a session, not X-Requested-With; answers 401 without one', async () => {
    const on = await bff()
    const anonymous = await openSse(`${on.url}/events`)
    expect(anonymous.status).toBe(401)
    expect(anonymous.error).toEqual({ error: 'You are not signed in.' })
    const cookie = await signIn(on, keys.rep)
    const browser = await events(on, cookie)
    expect(browser.status).toBe(200)
    expect(browser.headers.get('content-type')).toBe('text/event-stream; charset=utf-8')
    expect(browser.headers.get('cache-control')).toBe('no-store')
    expect(browser.headers.get('content-encoding')).toBeNull()
    expect(browser.headers.get('content-security-policy')).not.toBeNull()
    await browser.waitForId()
  })

  test('sends each browser its organization’s changes, reduced, through one upstream per organization', async () => {
    const on = await bff()
    const [admin, rep, other] = await Promise.all([
      signIn(on, keys.admin),
      signIn(on, keys.rep),
      signIn(on, keys.otherAdmin),
    ])
    const browsers = await Promise.all([events(on, admin), events(on, rep), events(on, rep), events(on, other)])
    await Promise.all(browsers.map((b) => b.waitForId()))
    await expect.poll(() => on.live.upstreams).toBe(2)

    const mine = [await createTask(keys.rep, 'Mine 1'), await createTask(keys.admin, 'Mine 2')]
    const theirs = await createTask(keys.otherAdmin, 'Theirs')
    const [adminBrowser, repBrowser, repTab, otherBrowser] = browsers
    for (const browser of [adminBrowser, repBrowser, repTab]) {
      await untilTasks(browser, 2)
      expect(taskIds(browser)).toEqual(mine)
    }
    await untilTasks(otherBrowser, 1)
    expect(taskIds(otherBrowser)).toEqual([theirs])
    expect(live(otherBrowser).map((e) => e.object_id)).not.toContain(mine[0])

    const event = live(repBrowser).find((e) => e.object_type === 'task.lead')
    expect(Object.keys(event ?? {}).sort()).toEqual(
      ['action', 'date_created', 'id', 'lead_id', 'object_id', 'object_type', 'user_id'].sort(),
    )
    expect(event).toMatchObject({ object_type: 'task.lead', action: 'created', object_id: mine[0] })
    expect(event?.id).toMatch(/^ev_/)
    expect(on.live.upstreams).toBe(2)
  })

  test('hands the upstream to another connected session when its browser leaves, losing nothing', async () => {
    const on = await bff()
    const admin = await signIn(on, keys.admin)
    const rep = await signIn(on, keys.rep)
    const first = await events(on, admin)
    await first.waitForId()
    await expect.poll(() => on.live.upstreams).toBe(1)
    const second = await events(on, rep)
    await second.waitForId()
    const before = await createTask(keys.admin, 'Before the hand-over')
    await untilTasks(second, 1)

    // The upstream was opened with the admin's key; the rep's takes over (with the shared secret).
    expect(on.live.opened).toBe(1)
    first.close()
    const during = await createTask(keys.admin, 'During the hand-over')
    await expect.poll(() => on.live.opened).toBe(2)
    const after = await createTask(keys.rep, 'After the hand-over')
    await expect.poll(() => taskIds(second)).toEqual([before, during, after])
    expect(on.live.upstreams).toBe(1)
  })

  test('re-opens with another session when the key it streamed with stops working', async () => {
    const on = await bff()
    const doomedKey = String(
      (await cli(['key', 'create', '--org', orgId, '--user', await userIdOf(keys.admin)])).api_key,
    )
    const doomed = await signIn(on, doomedKey)
    // The BFF streams with the key it was given for this session, the newest of the admin's.
    const doomedSession = (await apiJson(doomedKey, 'GET', '/auth/session/')) as { data: { id: string }[] }
    const doomedSessionId = doomedSession.data[0]?.id ?? ''
    const rep = await signIn(on, keys.rep)
    const doomedBrowser = await events(on, doomed)
    await doomedBrowser.waitForId()
    await expect.poll(() => on.live.upstreams).toBe(1)
    const repBrowser = await events(on, rep)
    await repBrowser.waitForId()

    await apiJson(doomedKey, 'DELETE', `/auth/session/${doomedSessionId}/`)
    // The API restarts: the upstream must be opened again, and the revoked key is refused.
    await stopApi()
    api = await startApi()
    const written = [
      await createTask(keys.admin, 'While re-opening 1'),
      await createTask(keys.admin, 'While re-opening 2'),
    ]
    await expect.poll(() => taskIds(repBrowser), { timeout: 10_000 }).toEqual(written)
    expect(await doomedBrowser.ended).toBe('end')
    expect((await openSse(`${on.url}/events`, { cookie: doomed })).status).toBe(401)
  }, 40_000)

  test('serves a reconnecting browser from the ring, and tells one it cannot serve to reset', async () => {
    const on = await bff()
    const cookie = await signIn(on, keys.rep)
    const keeper = await events(on, cookie)
    const browser = await events(on, cookie)
    await Promise.all([keeper.waitForId(), browser.waitForId()])
    const a = await createTask(keys.admin, 'Ring A')
    const b = await createTask(keys.admin, 'Ring B')
    const [taskA] = await untilTasks(browser, 2)
    const afterA = taskA?.lastEventId ?? ''
    browser.close()
    const c = await createTask(keys.admin, 'Ring C')
    await untilTasks(keeper, 3)

    const back = await events(on, cookie, afterA)
    await expect.poll(() => taskIds(back)).toEqual([b, c])
    expect(taskIds(keeper)).toEqual([a, b, c])

    const lost = await events(on, cookie, 'from.another-process')
    const [reset] = await lost.waitFor(1)
    expect(reset?.event).toBe('reset')
    // And from the reset's id on, it follows like any other.
    const d = await createTask(keys.admin, 'Ring D')
    await expect.poll(() => taskIds(lost)).toEqual([d])
  })

  test('resumes through the upstream what was written after the organization’s last browser left', async () => {
    const on = await bff()
    const cookie = await signIn(on, keys.rep)
    const browser = await events(on, cookie)
    await browser.waitForId()
    await createTask(keys.admin, 'Seen')
    await untilTasks(browser, 1)
    const last = browser.lastEventId()
    browser.close()
    await expect.poll(() => on.live.upstreams).toBe(0)
    const missed = await createTask(keys.admin, 'Missed while away')
    const back = await events(on, cookie, last)
    await expect.poll(() => taskIds(back)).toEqual([missed])
  })

  /** Two BFF processes on one session store, as behind a load balancer. */
  async function twoBffs(): Promise<[StartedBff, StartedBff]> {
    const shared = join(dir.path, `shared-${String(Date.now())}`)
    return [await bff({ streamSecret: SECRET, dataDir: shared }), await bff({ streamSecret: SECRET, dataDir: shared })]
  }

  test('a browser that reconnects to another BFF resumes there from its last id: nothing missed, no reset', async () => {
    const [a, b] = await twoBffs()
    const cookie = await signIn(a, keys.rep)
    const browser = await events(a, cookie)
    await browser.waitForId()
    await createTask(keys.admin, 'Seen on A')
    await untilTasks(browser, 1)
    const last = browser.lastEventId()
    browser.close()
    const missed = await createTask(keys.admin, 'Written between the two')

    const back = await events(b, cookie, last)
    await expect.poll(() => taskIds(back)).toEqual([missed])
    const later = await createTask(keys.admin, 'Written once on B')
    await expect.poll(() => taskIds(back)).toEqual([missed, later])
    expect(back.messages.filter((m) => m.event === 'reset')).toEqual([])
    expect(b.live.upstreams).toBe(1)
    expect(b.live.catchingUp).toBe(0)
  })

  test('one that reconnects to a BFF that began following after its last id catches up, then joins it', async () => {
    const [a, b] = await twoBffs()
    const cookie = await signIn(a, keys.rep)
    const browser = await events(a, cookie)
    await browser.waitForId()
    await createTask(keys.admin, 'Seen on A')
    await untilTasks(browser, 1)
    const last = browser.lastEventId()
    browser.close()
    const missed = [await createTask(keys.admin, 'Missed 1'), await createTask(keys.admin, 'Missed 2')]
    // B follows the organization from here on: its ring does not reach back to the browser's id.
    const keeper = await events(b, cookie)
    await keeper.waitForId()

    const back = await events(b, cookie, last)
    await expect.poll(() => taskIds(back)).toEqual(missed)
    expect(b.live.catchingUp).toBe(1)
    const later = await createTask(keys.admin, 'Where the two meet')
    await expect.poll(() => b.live.catchingUp).toBe(0)
    const after = await createTask(keys.admin, 'On the channel alone')
    await expect.poll(() => taskIds(keeper)).toEqual([later, after])
    await expect.poll(() => taskIds(back)).toEqual([...missed, later, after])
    // Each event once: what the catch-up sent, the channel does not send again.
    const ids = live(back).map((event) => event.id)
    expect(new Set(ids).size).toBe(ids.length)
    expect(back.messages.filter((m) => m.event === 'reset')).toEqual([])
    expect(b.live.upstreams).toBe(1)
  })

  test('an id the API does not know as its own is a reset, wherever the browser reconnects', async () => {
    const [a, b] = await twoBffs()
    const cookie = await signIn(a, keys.rep)
    const forged = Buffer.from(JSON.stringify(['orga_someone_else', 5, 'previous', 5])).toString('base64url')
    // A fresh channel seeded with it, and a channel already following: both end in a reset, then follow.
    const first = await events(b, cookie, forged)
    const [reset] = await first.waitFor(1)
    expect(reset?.event).toBe('reset')
    const second = await events(b, cookie, forged)
    await expect.poll(() => second.messages.some((m) => m.event === 'reset')).toBe(true)
    const after = await createTask(keys.admin, 'After the reset')
    await expect.poll(() => taskIds(first)).toEqual([after])
    await expect.poll(() => taskIds(second)).toEqual([after])
  })

  test('ends a browser’s stream when its session ends: signed out here, or expired', async () => {
    const clock = { now: new Date() }
    const on = await bff({ streamSecret: SECRET, clock })
    const leaving = await signIn(on, keys.rep)
    const expiring = await signIn(on, keys.admin)
    const signedOut = await events(on, leaving)
    const idle = await events(on, expiring)
    await Promise.all([signedOut.waitForId(), idle.waitForId()])

    expect((await on.call('/auth/session', { method: 'DELETE', cookie: leaving })).status).toBe(204)
    expect(await signedOut.ended).toBe('end')
    expect((await openSse(`${on.url}/events`, { cookie: leaving })).status).toBe(401)

    clock.now = new Date(clock.now.getTime() + 13 * 60 * 60_000)
    expect(await idle.ended).toBe('end')
  })

  test('a deactivated member’s sessions end on every BFF, and their open tabs close within 5 seconds', async () => {
    const added = await cli(['user', 'add', '--org', orgId, '--email', `leaver-${String(Date.now())}@live.test`])
    const [one, two] = [await bff(), await bff()]
    const leaverOnOne = await signIn(one, String(added.api_key))
    const leaverOnTwo = await signIn(two, String(added.api_key))
    const adminOnOne = await signIn(one, keys.admin)
    const tabs = [await events(one, leaverOnOne), await events(two, leaverOnTwo)]
    const staying = await events(one, adminOnOne)
    await Promise.all([...tabs, staying].map((tab) => tab.waitForId()))

    const started = Date.now()
    await apiJson(keys.admin, 'POST', `/membership/${String(added.membership_id)}/deactivate/`)
    expect(await Promise.all(tabs.map((tab) => tab.ended))).toEqual(['end', 'end'])
    expect(Date.now() - started).toBeLessThan(5000)
    expect((await one.call('/auth/session', { cookie: leaverOnOne })).status).toBe(401)
    expect((await two.call('/auth/session', { cookie: leaverOnTwo })).status).toBe(401)
    // The admin's tab stays, and still hears of changes.
    const task = await createTask(keys.admin, 'After the leaver left')
    await expect.poll(() => taskIds(staying)).toContain(task)
  })

  test('a member’s new role holds for their sessions at once, and their tab is told to read it again', async () => {
    const added = await cli(['user', 'add', '--org', orgId, '--email', `promoted-${String(Date.now())}@live.test`])
    const on = await bff()
    const cookie = await signIn(on, String(added.api_key))
    const tab = await events(on, cookie)
    await tab.waitForId()
    expect((await on.call('/auth/session', { cookie })).json).toMatchObject({ role: 'user' })
    await apiJson(keys.admin, 'PUT', `/membership/${String(added.membership_id)}/`, { role_id: 'admin' })
    await expect
      .poll(() => live(tab).some((e) => e.object_type === 'membership' && e.member_role === 'admin'))
      .toBe(true)
    expect((await on.call('/auth/session', { cookie })).json).toMatchObject({ role: 'admin' })
  })

  test('with no shared secret only an admin’s session opens the upstream; reps’ browsers get it then', async () => {
    const on = await bff({})
    const rep = await signIn(on, keys.rep)
    // Its stream opens only once an upstream is connected, which a rep's key cannot do alone.
    const repStream = events(on, rep)
    await expect.poll(() => on.live.browsers).toBe(1)
    expect(on.live.upstreams).toBe(0)
    const unseen = await createTask(keys.admin, 'No one may stream yet')
    const admin = await signIn(on, keys.admin)
    const adminBrowser = await events(on, admin)
    const repBrowser = await repStream
    await Promise.all([adminBrowser.waitForId(), repBrowser.waitForId()])
    expect(on.live.upstreams).toBe(1)
    const seen = await createTask(keys.rep, 'Streamed by the admin’s key')
    await expect.poll(() => taskIds(repBrowser)).toContain(seen)
    expect(taskIds(repBrowser)).not.toContain(unseen)
  })

  test('a stop ends the streams at once rather than waiting for its deadline', async () => {
    const on = await bff({ streamSecret: SECRET, graceMs: 20_000 })
    const browser = await events(on, await signIn(on, keys.rep))
    await browser.waitForId()
    await on.stop()
    expect(await browser.ended).toBe('end')
  })
})

async function apiJson(
  apiKey: string,
  method: 'GET' | 'DELETE' | 'POST' | 'PUT',
  path: string,
  body?: unknown,
): Promise<unknown> {
  const res = await fetch(`http://127.0.0.1:${String(apiPort)}/api/v1${path}`, {
    method,
    headers: {
      authorization: `Basic ${Buffer.from(`${apiKey}:`).toString('base64')}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  })
  if (res.status !== 200) throw new Error(`${method} ${path} answered ${String(res.status)}`)
  return res.json()
}

async function userIdOf(apiKey: string): Promise<string> {
  const me = await fetch(`http://127.0.0.1:${String(apiPort)}/api/v1/me/`, {
    headers: { authorization: `Basic ${Buffer.from(`${apiKey}:`).toString('base64')}` },
  })
  return ((await me.json()) as { id: string }).id
}
