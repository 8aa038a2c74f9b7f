import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { call } from './test-app.js'

/**
 * Sends `request`, and `GET /me/` one after another until it is answered: the answer, how long it took, and the
 * longest any `GET /me/` waited meanwhile (a request that holds the event loop holds every other request too).
 */
export async function answeredWhileOthersWait(
  app: FastifyInstance,
  key: string,
  request: () => Promise<LightMyRequestResponse>,
): Promise<{ response: LightMyRequestResponse; ms: number; longestMeMs: number }> {
  const started = performance.now()
  const state = { done: false }
  const pending = request().finally(() => {
    state.done = true
  })
  let longestMeMs = 0
  do {
    const sent = performance.now()
    const me = await call(app, key, 'GET', '/me/')
    // So many come so fast that the rate limit may answer some: an answer all the same.
    if (me.statusCode !== 200 && me.statusCode !== 429) throw new Error(`GET /me/ answered ${String(me.statusCode)}`)
    longestMeMs = Math.max(longestMeMs, performance.now() - sent)
    // Lets the event loop turn, so that the request's own I/O goes on.
    await new Promise((resolve) => setImmediate(resolve))
  } while (!state.done)
  const response = await pending
  return { response, ms: performance.now() - started, longestMeMs }
}
