import { pino } from 'pino'
import { describe, expect, it } from 'vitest'
import { REDACTED_PATHS } from '../../app/app.js'
import { call, createTestContext } from '../../tooling/test-support/test-app.js'

// What the request log says, through HTTP: each line of a request carries its id (the one its answer carries), at
// the levels the logger has on; keys stay redacted.

type Line = Record<string, unknown>

function memoryLogger(level: string) {
  const lines: Line[] = []
  const logger = pino(
    { level, redact: { paths: REDACTED_PATHS, censor: '[redacted]' } },
    {
      write: (line: string) => {
        lines.push(JSON.parse(line) as Line)
      },
    },
  )
  return { logger, lines }
}

describe('the request log', () => {
  it('at info: a line when a request comes in and one when it is answered, both with its request id', async () => {
    const { logger, lines } = memoryLogger('info')
    const ctx = await createTestContext({ logger })
    try {
      lines.length = 0
      const res = await call(ctx.app, ctx.org.member.key, 'GET', '/me/')
      expect(res.statusCode).toBe(200)
      const id = res.headers['x-request-id']
      expect(id).toMatch(/^req_/)
      expect(lines.map((l) => [l.msg, l.reqId])).toEqual([
        ['incoming request', id],
        ['request completed', id],
      ])
      expect(lines[0]).toMatchObject({ level: 30, req: { method: 'GET', url: '/api/v1/me/' } })
      expect(JSON.stringify(lines)).not.toContain(ctx.org.member.key.split('.')[1])
      expect(lines[1]).toMatchObject({ level: 30, res: { statusCode: 200 } })
    } finally {
      await ctx.close()
    }
  })

  it("takes the caller's X-Request-Id when it is short and plain, and makes its own otherwise", async () => {
    const { logger, lines } = memoryLogger('info')
    const ctx = await createTestContext({ logger })
    try {
      for (const [sent, kept] of [
        ['bff-4f1c2a9e.7_X', true],
        ['x'.repeat(64), true],
        ['x'.repeat(65), false],
        ['two words', false],
        ['a"}{"level":60', false],
      ] as const) {
        lines.length = 0
        const res = await call(ctx.app, ctx.org.member.key, 'GET', '/me/', { headers: { 'x-request-id': sent } })
        expect(res.statusCode).toBe(200)
        const id = res.headers['x-request-id']
        if (kept) expect(id).toBe(sent)
        else expect(id).toMatch(/^req_[0-9A-Za-z]{22}$/)
        expect(lines.map((l) => l.reqId)).toEqual([id, id])
      }
    } finally {
      await ctx.close()
    }
  })

  it('at warn: nothing for an answered request, and an internal error with the id its answer shows', async () => {
    const { logger, lines } = memoryLogger('warn')
    const ctx = await createTestContext({ logger })
    try {
      lines.length = 0
      expect((await call(ctx.app, ctx.org.member.key, 'GET', '/me/')).statusCode).toBe(200)
      expect((await call(ctx.app, undefined, 'GET', '/me/')).statusCode).toBe(401)
      expect(lines).toEqual([])
      await ctx.database.close()
      const res = await call(ctx.app, ctx.org.admin.key, 'GET', '/organization/' + ctx.org.id + '/')
      expect(res.statusCode).toBe(500)
      const { request_id: requestId } = res.json<{ request_id: string }>()
      expect(requestId).toBe(res.headers['x-request-id'])
      expect(lines).toHaveLength(1)
      expect(lines[0]).toMatchObject({ level: 50, msg: 'unhandled error', reqId: requestId, err: expect.any(Object) })
    } finally {
      await ctx.close()
    }
  })
})
