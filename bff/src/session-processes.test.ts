import { join } from 'node:path'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { sessionPair, tempDir } from './test-support/harness.js'
import { call, Processes, waitForOutput } from './test-support/processes.js'

// Two real BFF processes on one data folder, in front of a real API: what "Scaling out" in the README promises.
let processes: Processes
let dir: Awaited<ReturnType<typeof tempDir>>
let apiKey = ''
let bffA = ''
let apiUrl = ''
let bffB = ''

beforeAll(async () => {
  processes = new Processes()
  dir = await tempDir()
  const api = await processes.api(dir.path)
  apiKey = api.apiKey
  apiUrl = api.url
  // Started together on a new data folder: they must agree on the generated secret and the session schema.
  const shared = join(dir.path, 'bff')
  const [a, b] = await Promise.all([processes.bff(apiUrl, shared), processes.bff(apiUrl, shared)])
  bffA = a.url
  bffB = b.url
}, 90_000)

afterAll(async () => {
  await processes.stopAll()
  await dir.remove()
}, 30_000)

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
  const { url, child } = await processes.bff(apiUrl, join(dir.path, 'bff'), { LEADLINE_DRAIN_SECONDS: '2' })
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
