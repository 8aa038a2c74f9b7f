import { createServer, type IncomingHttpHeaders } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { closeSource, SourceAuthError, SourceError } from './close-source.js'

// The reader of a Close-compatible API on its own, against a scripted server: each request takes the next answer.
interface Scripted {
  status: number
  headers?: Record<string, string>
  body: string
}

let close: (() => Promise<void>) | undefined
afterEach(async () => {
  await close?.()
  close = undefined
})

async function scriptedServer(answers: Scripted[]) {
  const seen: { url: string; headers: IncomingHttpHeaders }[] = []
  const server = createServer((request, response) => {
    seen.push({ url: request.url ?? '', headers: request.headers })
    const next = answers.shift() ?? { status: 200, body: '{"has_more":false,"data":[]}' }
    response.writeHead(next.status, { 'content-type': 'application/json', ...next.headers })
    response.end(next.body)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  close = () =>
    new Promise((resolve) => {
      server.close(() => {
        resolve()
      })
    })
  return { seen, baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1/` }
}

function source(baseUrl: string, waits: number[], messages: string[] = []) {
  return closeSource({
    baseUrl,
    apiKey: 'secret-key',
    backoffMs: 10,
    sleep: (ms) => {
      waits.push(ms)
      return Promise.resolve()
    },
    onWait: (message) => messages.push(message),
  })
}

async function all(iterable: AsyncIterable<unknown>) {
  const out: unknown[] = []
  for await (const item of iterable) out.push(item)
  return out
}

describe('closeSource', () => {
  it('pages with _skip and _limit while has_more, with the key as the Basic user name', async () => {
    const page = (ids: string[], more: boolean) => ({
      status: 200,
      body: JSON.stringify({ has_more: more, data: ids.map((id) => ({ id })) }),
    })
    const { seen, baseUrl } = await scriptedServer([page(['a', 'b'], true), page(['c'], false)])
    const items = await all(source(baseUrl, []).list('/lead/', { query: 'x' }))
    expect(items).toEqual([{ id: 'a' }, { id: 'b' }, { id: 'c' }])
    expect(seen.map((s) => s.url)).toEqual([
      '/api/v1/lead/?query=x&_skip=0&_limit=100',
      '/api/v1/lead/?query=x&_skip=100&_limit=100',
    ])
    expect(seen[0]?.headers.authorization).toBe(`Basic ${Buffer.from('secret-key:').toString('base64')}`)
  })

  it('waits Retry-After on a 429, else the rate_reset Close sends in the body', async () => {
    const { seen, baseUrl } = await scriptedServer([
      { status: 429, headers: { 'retry-after': '3' }, body: '{}' },
      { status: 429, body: '{"error":{"message":"slow down","rate_reset":0.5}}' },
      { status: 429, body: '{"message":"API call count exceeded","rate_reset":"2.25"}' },
      { status: 200, body: '{"id":"x"}' },
    ])
    const waits: number[] = []
    const messages: string[] = []
    expect(await source(baseUrl, waits, messages).get('/me/')).toEqual({ id: 'x' })
    expect(waits).toEqual([3000, 500, 2250])
    expect(seen).toHaveLength(4)
    expect(messages[0]).toBe('rate limited by the source; waiting 3 s as it asks')
  })

  it('retries a 5xx with doubling waits, then gives up saying what the source answered', async () => {
    const failure = { status: 502, body: '{"error":"Bad gateway"}' }
    const { seen, baseUrl } = await scriptedServer([failure, failure, failure, failure, failure])
    const waits: number[] = []
    await expect(source(baseUrl, waits).get('/lead/')).rejects.toThrow(new SourceError('GET /lead/: 502 Bad gateway'))
    expect(waits).toEqual([10, 20, 40, 80])
    expect(seen).toHaveLength(5)
  })

  it('stops at once on a 401, mid-list too, without retrying', async () => {
    const { seen, baseUrl } = await scriptedServer([
      { status: 200, body: '{"has_more":true,"data":[{"id":"a"}]}' },
      { status: 401, body: '{"error":"The API key is invalid"}' },
    ])
    const waits: number[] = []
    const read = all(source(baseUrl, waits).list('/lead/'))
    await expect(read).rejects.toBeInstanceOf(SourceAuthError)
    await expect(read).rejects.toThrow('the source refused the API key (401 The API key is invalid)')
    expect(seen).toHaveLength(2)
    expect(waits).toEqual([])
  })

  it('refuses an answer that is not a Close list', async () => {
    const { baseUrl } = await scriptedServer([{ status: 200, body: '{"items":[]}' }])
    await expect(all(source(baseUrl, []).list('/lead/'))).rejects.toThrow('GET /lead/: the answer has no "data" list')
  })
})
