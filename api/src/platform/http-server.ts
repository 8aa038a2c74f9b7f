import type { ServerOptions } from 'node:http'
import type { Config } from '../config.js'

/** How often Node looks for requests past their deadline: a stalled request is cut off at most this much late. */
const DEADLINE_CHECK_MS = 1000

/**
 * How long a client may take: to send a whole request (headers and body), to send its headers, and to stay idle
 * on a kept-alive connection. Fastify sets `requestTimeout` and `keepAliveTimeout` on the server it creates (and
 * would turn the request timeout off if not told); Node takes the rest when the server is created.
 */
export function serverTimeouts(timeouts: Config['timeouts']) {
  const requestTimeout = timeouts.requestSeconds * 1000
  const http: ServerOptions = {
    requestTimeout,
    headersTimeout: timeouts.headersSeconds * 1000,
    connectionsCheckingInterval: DEADLINE_CHECK_MS,
  }
  return { requestTimeout, keepAliveTimeout: timeouts.keepAliveSeconds * 1000, http }
}
