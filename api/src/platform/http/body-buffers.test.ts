import { connect, type Socket } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BodyBuffers } from './body-buffers.js'
import { basicAuth, call, createTestContext, type TestContext } from '../../tooling/test-support/test-app.js'
import { listenLocally, parseResponses } from '../../tooling/test-support/raw-http.js'

describe('BodyBuffers', () => {
  it('lends a buffer of exactly the bytes asked for, and lends a slab again only once it is given back', () => {
    const buffers = new BodyBuffers(1024, 2)
    const first = buffers.take(100)
    expect(first.length).toBe(100)
    expect(buffers.lends(first)).toBe(true)
    const second = buffers.take(200)
    expect(second.buffer).not.toBe(first.buffer)
    buffers.give(first)
    expect(buffers.lends(first)).toBe(false)
    expect(buffers.take(300).buffer).toBe(first.buffer)
    // A body never given back is never lent again.
    expect(buffers.take(10).buffer).not.toBe(second.buffer)
  })

  it('gives a body larger than a slab a buffer of its own, which it neither lends nor keeps', () => {
    const buffers = new BodyBuffers(1024, 2)
    const large = buffers.take(1025)
    expect(large.length).toBe(1025)
    expect(buffers.lends(large)).toBe(false)
    buffers.give(large)
    expect(buffers.freeSlabs).toBe(0)
    expect(buffers.lends('text')).toBe(false)
    expect(buffers.lends(Buffer.from('text'))).toBe(false)
  })

  it('encodes long text into a slab, and leaves short text, and text longer than a slab, as it is', () => {
    const buffers = new BodyBuffers(64 * 1024, 2)
    expect(buffers.encode('{"a":1}')).toBe('{"a":1}')
    const text = `{"name":"${'École ✓ 😀 '.repeat(2000)}"}`
    const body = buffers.encode(text)
    expect(Buffer.isBuffer(body) && buffers.lends(body)).toBe(true)
    expect(body.toString()).toBe(text)
    const longer = 'x'.repeat(64 * 1024 + 1)
    expect(buffers.encode(longer)).toBe(longer)
  })

  it('keeps at most its bound of free slabs, and a slab given back twice once', () => {
    const buffers = new BodyBuffers(64, 2)
    const bodies = [1, 2, 3, 4].map(() => buffers.take(8))
    for (const body of bodies) buffers.give(body)
    expect(buffers.freeSlabs).toBe(2)
    const again = buffers.take(8)
    buffers.give(again)
    buffers.give(again)
    expect(buffers.freeSlabs).toBe(2)
  })
})

/**
 * Sends `count` requests for `path` at once on one connection, the last asking the server to close it, and reads
 * nothing until `read()` is called.
 */
function pipelined(port: number, auth: string, path: string, count: number) {
  const socket: Socket = connect(port, '127.0.0.1')
  const request = (connection: string) =>
    `GET /api/v1${path} HTTP/1.1\r\nHost: api\r\nAuthorization: ${auth}\r\nConnection: ${connection}\r\n\r\n`
  socket.write(request('keep-alive').repeat(count - 1) + request('close'))
  return {
    /** The bodies of the responses, once the server has closed the connection. */
    read: () =>
      new Promise<string[]>((resolve, reject) => {
        const chunks: Buffer[] = []
        socket.on('data', (chunk: Buffer) => chunks.push(chunk))
        socket.on('end', () => {
          resolve(parseResponses(Buffer.concat(chunks).toString('latin1')).map((r) => r.body))
        })
        socket.on('error', reject)
      }),
  }
}

describe('a page of leads on a real socket, its body in a reused buffer', () => {
  let ctx: TestContext
  let port: number
  beforeAll(async () => {
    ctx = await createTestContext()
    // About 5 KB a lead, 100 leads a page: each body half a megabyte, most of a slab.
    for (const [org, name] of [
      [ctx.org, 'Acme'],
      [ctx.other, 'Globex'],
    ] as const) {
      for (let n = 0; n < 100; n += 1) {
        const description = `${name} lead ${String(n)} `.repeat(400)
        const res = await call(ctx.app, org.admin.key, 'POST', '/lead/', {
          body: { name: `${name} ${String(n)}`, description },
        })
        expect(res.statusCode, res.body).toBe(200)
      }
    }
    port = await listenLocally(ctx.app)
  }, 60_000)
  afterAll(async () => {
    await ctx.close()
  })

  it("keeps a slow reader's answers whole while other organizations' pages are served", async () => {
    const page = '/lead/?_limit=100'
    const expected = (await call(ctx.app, ctx.org.admin.key, 'GET', page)).body
    const expectedOther = (await call(ctx.app, ctx.other.admin.key, 'GET', page)).body
    expect(JSON.parse(expected)).toMatchObject({ total_results: 100 })
    expect(Buffer.byteLength(expected)).toBeGreaterThan(400_000)
    // A HEAD of the page is its headers alone; a projection of it (`_fields`) is a long answer of its own.
    const head = await call(ctx.app, ctx.org.admin.key, 'HEAD', page)
    expect([head.statusCode, head.body]).toEqual([200, ''])
    const names = await call(ctx.app, ctx.org.admin.key, 'GET', `${page}&_fields=id,description`)
    expect(names.json<{ data: unknown[] }>().data).toHaveLength(100)

    // Twenty answers of half a megabyte are more than the two sockets' buffers hold: most wait in the server, their
    // bodies in slabs, while the other organization's pages come and go on connections of their own.
    const slow = pipelined(port, basicAuth(ctx.org.admin.key), page, 20)
    for (let round = 0; round < 10; round += 1) {
      const fast = await Promise.all(
        [1, 2, 3].map(() => pipelined(port, basicAuth(ctx.other.admin.key), page, 2).read()),
      )
      for (const body of fast.flat()) expect(body === expectedOther, 'an answer to the other organization').toBe(true)
    }
    const bodies = await slow.read()
    expect(bodies).toHaveLength(20)
    for (const body of bodies) expect(body === expected, "the slow reader's answer, whole").toBe(true)
  }, 60_000)

  it('does the same for any long answer: a lead of some 90 KB', async () => {
    const [mine, theirs] = await Promise.all(
      [ctx.org, ctx.other].map(async (org, n) => {
        const body = { name: `Big ${String(n)}`, description: `big lead of ${String(n)} `.repeat(6_500) }
        const created = await call(ctx.app, org.admin.key, 'POST', '/lead/', { body })
        expect(created.statusCode, created.body).toBe(200)
        const path = `/lead/${created.json<{ id: string }>().id}/`
        return { path, expected: (await call(ctx.app, org.admin.key, 'GET', path)).body }
      }),
    )
    if (mine === undefined || theirs === undefined) throw new Error('two leads')
    expect(Buffer.byteLength(mine.expected)).toBeGreaterThan(90_000)
    const slow = pipelined(port, basicAuth(ctx.org.admin.key), mine.path, 80)
    for (let round = 0; round < 10; round += 1) {
      const fast = await Promise.all(
        [1, 2, 3].map(() => pipelined(port, basicAuth(ctx.other.admin.key), theirs.path, 4).read()),
      )
      for (const body of fast.flat()) expect(body === theirs.expected, 'an answer to the other organization').toBe(true)
    }
    const bodies = await slow.read()
    expect(bodies).toHaveLength(80)
    for (const body of bodies) expect(body === mine.expected, "the slow reader's answer, whole").toBe(true)
  }, 60_000)
})
