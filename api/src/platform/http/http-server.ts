import { STATUS_CODES, type ServerOptions, type ServerResponse } from 'node:http'
import type { Socket } from 'node:net'
import type { Duplex } from 'node:stream'
import type { ConnectionError, FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { Config } from '../config.js'
import { HttpError } from './errors.js'

/** How often Node looks for requests past their deadline: a stalled request is cut off at most this much late. */
const DEADLINE_CHECK_MS = 1000

function errorBody(message: string): string {
  return JSON.stringify({ error: message })
}

/** Where Node has no response object to answer through (a request it could not parse, CONNECT), bytes it is. */
function answerOnSocket(socket: Duplex, status: number, message: string): void {
  const body = errorBody(message)
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\n` +
      'Content-Type: application/json; charset=utf-8\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    () => socket.destroy(),
  )
}

function clientErrorAnswer(error: ConnectionError): [status: number, message: string] {
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') return [408, 'The request did not arrive in time.']
  if (error.code === 'HPE_HEADER_OVERFLOW') return [431, 'The request headers are too large.']
  return [400, 'Malformed HTTP request.']
}

/**
 * The HTTP server's own limits, and its answers in the API's error shape where Node or Fastify would otherwise
 * answer in theirs (or not at all): `options` go to Fastify's constructor, `install` runs on the built instance
 * before any other hook is added.
 *
 * Timeouts: how long a client may take to send a whole request (headers and body), to send its headers, and to
 * stay idle on a kept-alive connection. Fastify sets `requestTimeout` and `keepAliveTimeout` on the server it
 * creates (and would turn the request timeout off if not told); Node takes the rest when the server is created.
 */
export function httpServer(timeouts: Config['timeouts']) {
  // The response each connection is on, so a client error never writes into an answer already under way.
  const current = new WeakMap<Socket, ServerResponse>()
  const requestTimeout = timeouts.requestSeconds * 1000
  const http: ServerOptions = {
    requestTimeout,
    headersTimeout: timeouts.headersSeconds * 1000,
    connectionsCheckingInterval: DEADLINE_CHECK_MS,
    // Node would answer a missing Host with an empty 400 of its own; the onRequest hook below answers it instead.
    requireHostHeader: false,
  }

  const options = {
    requestTimeout,
    keepAliveTimeout: timeouts.keepAliveSeconds * 1000,
    http,
    return503OnClosing: false,
    clientErrorHandler(error: ConnectionError, socket: Socket): void {
      if (error.code === 'ECONNRESET' || socket.destroyed) return
      const response = current.get(socket)
      if (!socket.writable || (response !== undefined && response.headersSent && !response.writableFinished)) {
        socket.destroy()
        return
      }
      const [status, message] = clientErrorAnswer(error)
      answerOnSocket(socket, status, message)
    },
    // Requests the router refuses before any route (or the error handler) sees them.
    frameworkErrors(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
      // These requests never reach the onRequest hook below.
      void reply.header('x-request-id', request.id)
      if (error.code === 'FST_ERR_BAD_URL') {
        void reply.code(400).send({ error: 'The URL is malformed: check its percent-encoding.' })
      } else if (error.code === 'FST_ERR_MAX_PARAM_LENGTH') {
        void reply.code(414).send({ error: 'A segment of the URL path is longer than 100 characters.' })
      } else {
        request.log.error({ err: error }, 'unhandled framework error')
        void reply.code(500).send({ error: 'Internal server error', request_id: request.id })
      }
    },
  }

  function install(app: FastifyInstance): void {
    app.server.on('request', (request: { socket: Socket }, response: ServerResponse) => {
      current.set(request.socket, response)
    })
    app.server.on('checkExpectation', (_request, response: ServerResponse) => {
      const body = errorBody('Only "Expect: 100-continue" is supported.')
      response.writeHead(417, {
        'content-type': 'application/json; charset=utf-8',
        'content-length': Buffer.byteLength(body),
        connection: 'close',
      })
      response.end(body)
    })
    app.server.on('connect', (_request, socket: Duplex) => {
      answerOnSocket(socket, 405, 'Method CONNECT not allowed.')
    })

    let closing = false
    app.addHook('preClose', (done) => {
      closing = true
      done()
    })
    // Synchronous, as every hook on the way of each request should be where it can: an async hook costs a promise
    // and a turn of the microtask queue per request.
    app.addHook('onRequest', (request, reply, done) => {
      // Every answer carries its request id, errors included (they keep the headers set before them).
      void reply.header('x-request-id', request.id)
      if (closing) {
        done(new HttpError(503, 'The server is shutting down: send the request again.', { connection: 'close' }))
      } else if (request.raw.httpVersion === '1.1' && request.headers.host === undefined) {
        done(new HttpError(400, 'An HTTP/1.1 request needs a Host header.'))
      } else {
        done()
      }
    })
  }

  return { options, install }
}
