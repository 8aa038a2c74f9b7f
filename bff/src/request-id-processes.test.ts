import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { sessionPair, tempDir } from './test-support/harness.js'
import { call, logLines, Processes, type Started } from './test-support/processes.js'

// One request id on every log line of one request, in a real BFF and the real api behind it (decision 0074).

let processes: Processes
let dir: Awaited<ReturnType<typeof tempDir>>
let api: Started & { url: string; apiKey: string }
let bff: Started & { url: string }
let proxied: Started & { url: string }

beforeAll(async () => {
  processes = new Processes()
  dir = await tempDir()
  api = await processes.api(dir.path, { LOG_LEVEL: 'info' })
  ;[bff, proxied] = await Promise.all([
    processes.bff(api.url, join(dir.path, 'bff')),
    processes.bff(api.url, join(dir.path, 'bff'), { LEADLINE_BFF_TRUST_PROXY: '1' }),
  ])
}, 90_000)

afterAll(async () => {
  await processes.stopAll()
  await dir.remove()
}, 30_000)

/** The log lines of a process that carry `id`, once at least `atLeast` have been written (the api logs in the background). */
async function linesWith(process: Started, id: string, atLeast: number): Promise<Record<string, unknown>[]> {
  return vi.waitFor(() => {
    const lines = logLines(process.output()).filter((line) => line.reqId === id)
    if (lines.length < atLeast) throw new Error(`${String(lines.length)} lines with ${id} so far`)
    return lines
  })
}

async function signIn(base: string): Promise<{ cookie: string; id: string }> {
  const res = await call(base, '/auth/session', {
    method: 'POST',
    body: { api_key: api.apiKey, time_zone: 'Europe/Paris' },
  })
  expect(res.status).toBe(200)
  return { cookie: sessionPair(res.setCookies), id: res.headers.get('x-request-id') ?? '' }
}

describe('request ids', () => {
  it("a sign-in's id is on the BFF's line and on the api's lines of each call it made", async () => {
    const { id } = await signIn(bff.url)
    expect(id).toMatch(/^[0-9a-f-]{36}$/)
    expect(await linesWith(bff, id, 1)).toEqual([expect.objectContaining({ msg: 'request', path: '/auth/session' })])
    // The session key is minted, then `/me/` read with it: both calls, each logged coming in and answered.
    const onApi = await linesWith(api, id, 4)
    expect(onApi.map((line) => line.msg)).toEqual([
      'incoming request',
      'request completed',
      'incoming request',
      'request completed',
    ])
    expect(onApi.map((line) => (line.req as { url?: string } | undefined)?.url).filter(Boolean)).toEqual([
      '/api/v1/auth/session/',
      '/api/v1/me/',
    ])
  })

  it("a sign-out's id is on the api's lines of the session key's revocation", async () => {
    const { cookie } = await signIn(bff.url)
    const res = await call(bff.url, '/auth/session', { method: 'DELETE', cookie })
    expect(res.status).toBe(204)
    const id = res.headers.get('x-request-id') ?? ''
    expect(await linesWith(bff, id, 1)).toEqual([expect.objectContaining({ path: '/auth/session', status: 204 })])
    const onApi = await linesWith(api, id, 2)
    expect(onApi.map((line) => (line.req as { method?: string } | undefined)?.method).filter(Boolean)).toEqual([
      'DELETE',
    ])
  })

  it("a proxied call's id crosses to the api; a browser's own id is not taken from an untrusted client", async () => {
    const { cookie } = await signIn(bff.url)
    const res = await call(bff.url, '/api/v1/me/', { cookie, headers: { 'x-request-id': 'made-up-by-browser' } })
    expect(res.status).toBe(200)
    const id = res.headers.get('x-request-id') ?? ''
    expect(id).not.toBe('made-up-by-browser')
    expect(await linesWith(bff, id, 1)).toEqual([expect.objectContaining({ path: '/api/v1/me/', status: 200 })])
    expect((await linesWith(api, id, 2)).map((line) => line.msg)).toEqual(['incoming request', 'request completed'])
    expect(logLines(api.output()).some((line) => line.reqId === 'made-up-by-browser')).toBe(false)
  })

  it("behind a trusted proxy the proxy's well-formed id is kept end to end, and any other replaced", async () => {
    const { cookie } = await signIn(proxied.url)
    const kept = await call(proxied.url, '/api/v1/me/', { cookie, headers: { 'x-request-id': 'edge-7f3a.1_B' } })
    expect(kept.headers.get('x-request-id')).toBe('edge-7f3a.1_B')
    expect(await linesWith(proxied, 'edge-7f3a.1_B', 1)).toHaveLength(1)
    expect(await linesWith(api, 'edge-7f3a.1_B', 2)).toHaveLength(2)
    for (const bad of ['x'.repeat(65), 'two words', 'a"b']) {
      const res = await call(proxied.url, '/api/v1/me/', { cookie, headers: { 'x-request-id': bad } })
      expect(res.status).toBe(200)
      expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/)
    }
  })

  it("the live-updates stream to the api carries the id of the browser's /events request that opened it", async () => {
    const { cookie } = await signIn(bff.url)
    const controller = new AbortController()
    const res = await fetch(`${bff.url}/events`, { headers: { cookie }, signal: controller.signal })
    expect(res.status).toBe(200)
    const id = res.headers.get('x-request-id') ?? ''
    const onApi = await linesWith(api, id, 1)
    expect(onApi[0]).toMatchObject({ msg: 'incoming request', req: { url: '/api/v1/event/stream/' } })
    controller.abort()
  })
})
