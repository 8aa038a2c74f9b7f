import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { call, type TestEvent } from './test-app.js'

/** The events a request wrote, in the order it wrote them, read through `/event/` with `key` (an admin's). */
export async function requestEvents(
  app: FastifyInstance,
  key: string,
  res: LightMyRequestResponse,
): Promise<TestEvent[]> {
  const page = await call(app, key, 'GET', '/event/', {
    query: { request_id: String(res.headers['x-request-id']), _limit: '50' },
  })
  if (page.statusCode !== 200) throw new Error(`GET /event/ answered ${String(page.statusCode)}: ${page.body}`)
  return page.json<{ data: TestEvent[] }>().data.reverse()
}
