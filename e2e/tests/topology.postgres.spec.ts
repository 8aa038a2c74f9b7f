import { spawn, type ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Browser, Page, Response } from '@playwright/test'
import pg from 'pg'
import {
  bffMain,
  cli,
  cliPath,
  CrmClient,
  expect,
  freePort,
  jsonObject,
  launched,
  signIn,
  stop,
  test,
  waitForHttp,
  waitForOutput,
} from '../fixtures.js'
import { jsonList } from '../journeys.js'
import { startRoundRobin, type RoundRobin } from '../round-robin.js'

// Leadline on several machines, in miniature: two api processes and two BFF processes on one Postgres database, each
// pair behind a round-robin proxy. The BFFs keep their sessions in Postgres (LEADLINE_BFF_SESSION_URL), not in a
// data folder they share. Runs in the Postgres part of `npm test`, where LEADLINE_TEST_DB names the server.

const LIVE_MS = 2000
const admin = process.env.LEADLINE_TEST_DB ?? ''

async function adminQuery(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: admin })
  await client.connect()
  try {
    await client.query(sql)
  } finally {
    await client.end()
  }
}

interface Topology {
  db: string
  adminKey: string
  apis: { url: string; child: ChildProcess }[]
  bffs: string[]
  apiProxy: RoundRobin
  front: RoundRobin
}

async function startTopology(dir: string, started: ChildProcess[], proxies: RoundRobin[]): Promise<Topology> {
  const name = `leadline_topology_${randomBytes(6).toString('hex')}`
  await adminQuery(`CREATE DATABASE ${name}`)
  const url = new URL(admin)
  url.pathname = `/${name}`
  const db = url.toString()
  const init = jsonObject(
    (await cli(['init', '--db', db, '--org', 'Topology Co', '--email', 'tess@topology.test', '--json'])).stdout,
  )
  const streamSecret = randomBytes(32).toString('hex')
  const apis = []
  for (let n = 0; n < 2; n += 1) {
    const child = spawn(process.execPath, [cliPath, 'serve', '--port', '0', '--json', '--db', db], {
      env: { ...process.env, LOG_LEVEL: 'warn', LEADLINE_STREAM_SECRET: streamSecret },
      stdio: ['ignore', 'pipe', 'inherit'],
    })
    launched(started, child)
    const [, apiUrl = ''] = await waitForOutput(child, /"url":"([^"]+)"/)
    apis.push({ url: apiUrl, child })
  }
  const apiProxy = await startRoundRobin(apis.map((api) => api.url))
  proxies.push(apiProxy)
  const bffSecret = randomBytes(32).toString('hex')
  const bffs = []
  for (let n = 0; n < 2; n += 1) {
    const port = await freePort()
    const child = spawn(process.execPath, [bffMain], {
      env: {
        ...process.env,
        PORT: String(port),
        HOST: '127.0.0.1',
        LEADLINE_API_URL: apiProxy.url,
        // A data folder each: only the Postgres database is shared.
        LEADLINE_BFF_DATA_DIR: join(dir, `bff-${String(n)}`),
        LEADLINE_BFF_SESSION_URL: db,
        LEADLINE_BFF_SECRET: bffSecret,
        LEADLINE_STREAM_SECRET: streamSecret,
        LOG_LEVEL: 'warn',
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    })
    launched(started, child)
    const bffUrl = `http://127.0.0.1:${String(port)}`
    await waitForHttp(`${bffUrl}/readyz`, child)
    bffs.push(bffUrl)
  }
  const front = await startRoundRobin(bffs)
  proxies.push(front)
  return { db, adminKey: String(init.api_key), apis, bffs, apiProxy, front }
}

/** A browser context of its own on `baseURL`, signed in with the key, its live-update stream open. */
async function signedIn(browser: Browser, baseURL: string, key: string): Promise<Page> {
  const page = await (await browser.newContext({ baseURL })).newPage()
  const streaming = page.waitForResponse((r) => new URL(r.url()).pathname === '/events' && r.status() === 200)
  await signIn(page, key)
  await streaming
  return page
}

function written(page: Page, method: string, path: RegExp): Promise<Response> {
  return page.waitForResponse((r) => r.request().method() === method && path.test(new URL(r.url()).pathname))
}

async function saveNote(page: Page, text: string): Promise<void> {
  const timeline = page.getByRole('region', { name: 'Activity' })
  await timeline.getByRole('textbox', { name: 'Note' }).fill(text)
  const saved = written(page, 'POST', /^\/api\/v1\/activity\/note\/$/)
  await timeline.getByRole('button', { name: 'Save note' }).click()
  expect((await saved).status()).toBe(200)
  await expect(timeline.getByRole('article').filter({ hasText: text })).toBeVisible()
}

async function rename(page: Page, leadId: string, name: string): Promise<void> {
  await page.getByRole('button', { name: 'Edit Name' }).click()
  await page.getByRole('textbox', { name: 'Name' }).fill(name)
  const renamed = written(page, 'PUT', new RegExp(`^/api/v1/lead/${leadId}/$`))
  await page.getByRole('textbox', { name: 'Name' }).press('Enter')
  expect((await renamed).status()).toBe(200)
}

test('two api and two BFF processes on Postgres: a journey across both BFFs, and an api process killed mid-way', async ({
  browser,
}) => {
  test.setTimeout(180_000)
  const dir = mkdtempSync(join(tmpdir(), 'leadline-topology-'))
  const started: ChildProcess[] = []
  const proxies: RoundRobin[] = []
  const databases: string[] = []
  try {
    const t = await startTopology(dir, started, proxies)
    databases.push(new URL(t.db).pathname.slice(1))
    const [bffA = '', bffB = ''] = t.bffs
    const crm = new CrmClient(t.apis[1]?.url ?? '', t.adminKey)
    const lead = await crm.createLead({ name: 'Topology Lead' })

    // Signed in through the proxy: the sign-in lands on one BFF, and the requests after it on both, each of which
    // knows the session from Postgres.
    const page = await signedIn(browser, t.front.url, t.adminKey)
    await page.goto(`/leads/${lead.id}`)
    await expect(page.getByRole('heading', { level: 1, name: 'Topology Lead' })).toBeVisible()
    const signInAt = t.front.served.findIndex((r) => r.method === 'POST' && r.path === '/auth/session')
    expect(t.front.served[signInAt]?.status).toBe(200)
    const after = t.front.served.slice(signInAt + 1).filter((r) => r.path.startsWith('/api/v1/'))
    expect(new Set(after.map((r) => r.target))).toEqual(new Set([bffA, bffB]))
    expect(after.filter((r) => r.status !== 200)).toEqual([])

    // A change made through one BFF shows on a screen the other serves.
    const [onA, onB] = await Promise.all([signedIn(browser, bffA, t.adminKey), signedIn(browser, bffB, t.adminKey)])
    await Promise.all([onA.goto(`/leads/${lead.id}`), onB.goto(`/leads/${lead.id}`)])
    await expect(onB.getByRole('heading', { level: 1, name: 'Topology Lead' })).toBeVisible()
    await expect(onA.getByRole('heading', { level: 1, name: 'Topology Lead' })).toBeVisible()
    await rename(onA, lead.id, 'Topology Lead Renamed on A')
    await expect(onB.getByRole('heading', { level: 1, name: 'Topology Lead Renamed on A' })).toBeVisible({
      timeout: LIVE_MS,
    })

    // Mid-journey, one api process is killed outright; the user goes on saving through the proxy.
    await page.reload()
    await saveNote(page, 'Saved before the kill')
    const killed = t.apis[0]?.child
    const gone = new Promise((resolve) => killed?.once('exit', resolve))
    killed?.kill('SIGKILL')
    await gone
    await saveNote(page, 'Saved after the kill')
    await rename(page, lead.id, 'Topology Lead After the Kill')
    // The BFFs' event streams that ran through the killed process resume through the other, missing nothing.
    await expect(onB.getByRole('heading', { level: 1, name: 'Topology Lead After the Kill' })).toBeVisible({
      timeout: 10_000,
    })
    await expect(onA.getByRole('heading', { level: 1, name: 'Topology Lead After the Kill' })).toBeVisible({
      timeout: 10_000,
    })

    // Nothing the user saved is lost: the screen after a reload, and the database through the surviving process.
    await page.reload()
    const timeline = page.getByRole('region', { name: 'Activity' })
    for (const text of ['Saved before the kill', 'Saved after the kill'])
      await expect(timeline.getByRole('article').filter({ hasText: text })).toBeVisible()
    const notes = jsonList((await crm.request('GET', `activity/note/?lead_id=${lead.id}`)).data)
    expect(notes.map((note) => note.note).sort()).toEqual(['Saved after the kill', 'Saved before the kill'])
    expect((await crm.request('GET', `lead/${lead.id}/`)).display_name).toBe('Topology Lead After the Kill')
    // And every change the user's page sent through the proxy was taken (a read in flight at the kill may fail).
    expect(t.front.served.filter((r) => r.method !== 'GET' && r.status >= 500)).toEqual([])

    await Promise.all([page, onA, onB].map((p) => p.context().close()))
  } finally {
    for (const child of started.reverse()) await stop(child)
    for (const proxy of proxies) await proxy.close()
    for (const name of databases) await adminQuery(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
    rmSync(dir, { recursive: true, force: true })
  }
})
