import Fastify from 'fastify'
import { Type } from '@sinclair/typebox'
import { describe, expect, it } from 'vitest'
import { createValidatorCompiler } from './validator.js'

describe('createValidatorCompiler', () => {
  it('compiles a schema when a request first needs it, and reports the errors of a failed check', async () => {
    const app = Fastify()
    app.setValidatorCompiler(createValidatorCompiler())
    app.post(
      '/things',
      { schema: { body: Type.Object({ name: Type.String() }), querystring: Type.Object({ n: Type.Integer() }) } },
      async (request) => ({ body: request.body, query: request.query }),
    )
    await app.ready()
    const good = await app.inject({ method: 'POST', url: '/things?n=3', payload: { name: 'a' } })
    expect(good.json()).toEqual({ body: { name: 'a' }, query: { n: 3 } })
    // A body of the wrong type, then a good one again: each answer is its own check's, not the last one's.
    const bad = await app.inject({ method: 'POST', url: '/things?n=3', payload: { name: 42 } })
    expect(bad.statusCode).toBe(400)
    expect(bad.json().message).toContain('name')
    const badQuery = await app.inject({ method: 'POST', url: '/things?n=x', payload: { name: 'b' } })
    expect(badQuery.statusCode).toBe(400)
    expect(badQuery.json().message).toContain('querystring')
    const again = await app.inject({ method: 'POST', url: '/things?n=4', payload: { name: 'c' } })
    expect(again.statusCode).toBe(200)
    await app.close()
  })
})
