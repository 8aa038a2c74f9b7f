import { Readable } from 'node:stream'
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { parseTzOffset } from '@leadline/shared/tz-offset'
import type { KeyOwner } from '../security/api-key-repo.js'
import type { PlatformDeps } from '../deps.js'
import { foreignKeyError } from '../data/db-errors.js'
import {
  bodyTooLarge,
  ForbiddenError,
  HttpError,
  RateLimitedError,
  UnauthorizedError,
  ValidationError,
} from './errors.js'
import { parseFields, projectFields } from './fields.js'
import { isOverriddenGet, mergeOverrideParams } from './method-override.js'
import { HandlersInFlight } from './handlers-in-flight.js'
import { RawJson, RawJsonList } from './raw-json.js'
import { BodyBuffers } from './body-buffers.js'
import type { RateLimitOutcome } from './rate-limit.js'
import { RouteIndex } from './routes-index.js'
import { isStorableFlatText, unstorableTextPaths } from '../text/text.js'
import { toFieldErrors } from './validation.js'
import { createValidatorCompiler } from './validator.js'

export const API_PREFIX = '/api/v1'

declare module 'fastify' {
  interface FastifyInstance {
    /** The route handlers still running, which closing waits for before the database closes (app/main.ts). */
    handlersInFlight: HandlersInFlight
  }
}

// Decoding leniently would store invalid bytes as replacement characters, silently changing what was sent.
const strictUtf8 = new TextDecoder('utf-8', { fatal: true })

const UNSTORABLE_TEXT = 'Must not contain the NUL character or an unpaired surrogate.'

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * No API key needed: the OpenAPI document and its reference page, sign-in and the emailed links, single sign-on,
     * and the signed inbound endpoint. Counted by the caller's address unless `countsOwnRequests`.
     */
    public?: boolean
    /** A public route that counts its requests itself (the signed inbound endpoint: per organization once verified). */
    countsOwnRequests?: boolean
    /**
     * Open to a session key whose organization requires two-factor sign-in before its owner has turned it on: the
     * few routes that let them turn it on (decision 0044). Every other route refuses such a key.
     */
    beforeTwoFactor?: boolean
  }
}

export const TWO_FACTOR_SETUP_REQUIRED =
  'Your organization requires two-factor sign-in: turn it on under Profile first.'

/** `/api/v1/status/lead/:id/` → `status`: the endpoint group rate limits are counted by. */
function groupOf(path: string): string {
  return (
    path
      .slice(API_PREFIX.length)
      .split('/')
      .find((s) => s !== '') ?? 'root'
  )
}

// By route pattern: there are as many as there are routes. A request no route matched is grouped by its own path.
const routeGroups = new Map<string, string>()

function endpointGroup(request: FastifyRequest): string {
  const route = request.routeOptions.url
  if (route === undefined) return groupOf(request.url.split('?')[0] ?? '')
  let group = routeGroups.get(route)
  if (group === undefined) {
    group = groupOf(route)
    routeGroups.set(route, group)
  }
  return group
}

function rateLimitHeaders(reply: FastifyReply, outcome: RateLimitOutcome): void {
  const reset = outcome.resetSeconds.toFixed(6)
  reply.header('x-rate-limit-limit', String(outcome.limit))
  reply.header('x-rate-limit-remaining', String(outcome.remaining))
  reply.header('x-rate-limit-reset', reset)
  reply.header(
    'ratelimit',
    `limit=${outcome.limit}, remaining=${outcome.remaining}, reset=${Math.ceil(outcome.resetSeconds)}`,
  )
}

function clientErrorBody(
  error: FastifyError,
  request: FastifyRequest,
): { status: number; message: string } | undefined {
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return { status: 413, message: bodyTooLarge(request.routeOptions.bodyLimit) }
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return { status: 415, message: 'Unsupported Content-Type: send application/json.' }
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return { status: 400, message: 'Request body size did not match Content-Length.' }
    default:
      if (error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500) {
        return { status: error.statusCode, message: error.message }
      }
      return undefined
  }
}

/** A JSON request body: undefined when blank; a 400 when it is not UTF-8 or not JSON. */
export function parseJsonBody(body: Buffer | string): unknown {
  let text: string
  try {
    text = typeof body === 'string' ? body : strictUtf8.decode(body)
  } catch {
    throw new HttpError(400, 'The request body is not valid UTF-8.')
  }
  if (text.trim() === '') return undefined
  try {
    return JSON.parse(text)
  } catch {
    throw new HttpError(400, 'Malformed JSON in the request body.')
  }
}

export type ClientType = 'mobile' | 'native' | 'web'

/**
 * Notes that a user was seen through a client; the composition root gives the users' presence recorder. Undefined
 * when nothing is to be written (the user was noted a moment ago): the request then goes on without waiting a turn.
 */
export type PresenceRecorder = (owner: KeyOwner, client: ClientType) => Promise<void> | undefined

/** The conventions every resource shares: errors, auth, rate limits, `X-TZ-Offset`, `_fields`, `_params`, 404/405. */
export function installPlatform(app: FastifyInstance, deps: PlatformDeps, recordPresence: PresenceRecorder): void {
  const routes = new RouteIndex()
  const inFlight = new HandlersInFlight()
  app.decorate('handlersInFlight', inFlight)
  app.addHook('onRoute', (route) => {
    routes.add(route.url, route.method)
    const handler = route.handler
    route.handler = function tracked(request, reply) {
      return inFlight.track(handler.call(this, request, reply))
    }
  })

  app.setValidatorCompiler(createValidatorCompiler())
  // A RawJsonList, and any long answer, is sent as a buffer: Fastify writes a serializer's buffer as it is (its types
  // say string only). The buffer is lent from `bodies`, and given back once its response has been written.
  const bodies = new BodyBuffers()
  const serialize = ((data: unknown) => {
    if (data instanceof RawJsonList) return data.body(bodies)
    const body = data instanceof RawJson ? data.body() : JSON.stringify(data)
    return typeof body === 'string' ? bodies.encode(body) : body
  }) as (data: unknown) => string
  app.setSerializerCompiler(() => serialize)
  app.setReplySerializer(serialize)
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (bodies.lends(payload))
      reply.raw.once('finish', () => {
        bodies.give(payload)
      })
    done(null, payload)
  })

  app.removeAllContentTypeParsers()
  app.addContentTypeParser(
    ['application/json', 'application/merge-patch+json'],
    { parseAs: 'buffer' },
    (_req, body, done) => {
      let parsed: unknown
      try {
        parsed = parseJsonBody(body)
      } catch (error) {
        done(asError(error), undefined)
        return
      }
      done(null, parsed)
    },
  )

  app.decorateRequest('auth', null)
  app.decorateRequest('tzOffsetHours', 0)

  /** Lets a request through, or throws why not; a promise only where something must be waited for. */
  const admit = (request: FastifyRequest, reply: FastifyReply): undefined | Promise<undefined> => {
    const tz = request.headers['x-tz-offset']
    if (tz !== undefined) {
      const hours = typeof tz === 'string' ? parseTzOffset(tz) : undefined
      if (hours === undefined)
        throw new HttpError(400, 'Invalid X-TZ-Offset header: send the UTC offset in decimal hours, e.g. -4 or 5.5.')
      request.tzOffsetHours = hours
    }
    // Routes open to anyone (sign-in, emailed links, single sign-on) count by address, as any request without a key
    // does: each writes something or does costly work. The signed inbound endpoint counts per organization itself.
    const config = request.routeOptions.config
    if (config.public === true)
      return config.countsOwnRequests === true
        ? undefined
        : countRequest(deps, request, reply, { bucket: `ip:${request.ip}`, type: 'ip' })

    const key = presentedKey(request)
    // A key verified a moment ago is known at once; any other goes to the database.
    const known = key === undefined ? undefined : deps.auth.cached(key)
    return andThen(key === undefined || known !== undefined ? known : deps.auth.verify(key), (owner) => {
      const counted =
        owner === undefined
          ? countRequest(deps, request, reply, { bucket: `ip:${request.ip}`, type: 'ip' })
          : countRequest(deps, request, reply, { bucket: `key:${owner.apiKeyId}`, type: 'key' })
      return andThen(counted, () => {
        if (owner === undefined) throw new UnauthorizedError()
        if (owner.twoFactorSetupRequired && request.routeOptions.config.beforeTwoFactor !== true) {
          throw new ForbiddenError(TWO_FACTOR_SETUP_REQUIRED)
        }
        request.auth = owner
        const client = request.headers['x-leadline-client']
        const present = client === 'web' || client === 'mobile' || client === 'native'
        const noting = present ? recordPresence(owner, client) : undefined
        if (noting === undefined && !isOverriddenGet(request)) return undefined
        return (async () => {
          await noting
          await mergeOverrideParams(request, deps.config.bodyLimitBytes)
          return undefined
        })()
      })
    })
  }

  // Synchronous where it can be (a key verified a moment ago, counters in memory): see http-server.ts.
  app.addHook('onRequest', (request, reply, done) => {
    let admitted: undefined | Promise<undefined>
    try {
      admitted = admit(request, reply)
    } catch (error) {
      done(asError(error))
      return
    }
    if (admitted === undefined) done()
    else
      admitted.then(
        () => {
          done()
        },
        (error: unknown) => {
          done(asError(error))
        },
      )
  })

  // Once for every route, before its schema: text no database could store as sent is refused by field, whatever
  // its route (path parameters and the query string by name, the body by dotted path; `_params` are query by now).
  // A raw body (a file uploaded, a Buffer, or a stream a route reads itself) is bytes, not text. (Synchronous hooks,
  // like every hook on the way of a request that can be: see http-server.ts.)
  app.addHook('preValidation', (request, _reply, done) => {
    const body = Buffer.isBuffer(request.body) || request.body instanceof Readable ? undefined : request.body
    // Most requests: no body, and nothing but plain text in the path and query string.
    if (body === undefined && isStorableFlatText(request.params) && isStorableFlatText(request.query)) {
      done()
      return
    }
    const fieldErrors: Record<string, string> = {}
    for (const part of [request.params, request.query]) {
      for (const [name] of unstorableTextPaths(part)) fieldErrors[name ?? '__all__'] = UNSTORABLE_TEXT
    }
    for (const path of unstorableTextPaths(body)) {
      fieldErrors[path.length === 0 ? '__all__' : path.join('.')] = UNSTORABLE_TEXT
    }
    done(Object.keys(fieldErrors).length > 0 ? new ValidationError(fieldErrors) : undefined)
  })

  app.addHook('preSerialization', (request, reply, payload: unknown, done) => {
    const query = request.query as { _fields?: unknown } | undefined
    const fields = reply.statusCode < 300 && typeof query?._fields === 'string' ? parseFields(query._fields) : undefined
    done(
      null,
      fields === undefined ? payload : projectFields(payload instanceof RawJson ? payload.parse() : payload, fields),
    )
  })

  app.setErrorHandler((error: FastifyError | Error, request, reply) => {
    if (error instanceof RateLimitedError) {
      return reply.code(429).header('retry-after', String(error.retryAfterSeconds)).send({ error: error.body })
    }
    if (error instanceof ValidationError) {
      return reply.code(400).send({ errors: error.errors, 'field-errors': error.fieldErrors })
    }
    if (error instanceof HttpError) {
      return reply
        .code(error.statusCode)
        .headers(error.headers)
        .send({ ...error.fields, error: error.message })
    }
    const fastifyError = error as FastifyError
    if (fastifyError.validation !== undefined) {
      const prefix = fastifyError.validationContext === 'headers' ? 'headers.' : ''
      const fieldErrors = Object.fromEntries(
        Object.entries(toFieldErrors(fastifyError.validation)).map(([k, v]) => [prefix + k, v]),
      )
      return reply.code(400).send({ errors: [], 'field-errors': fieldErrors })
    }
    const reference = foreignKeyError(error)
    if (reference !== undefined) {
      return reply.code(400).send({ errors: reference.errors, 'field-errors': reference.fieldErrors })
    }
    const client = clientErrorBody(fastifyError, request)
    if (client !== undefined) return reply.code(client.status).send({ error: client.message })
    request.log.error({ err: error }, 'unhandled error')
    return reply.code(500).send({ error: 'Internal server error', request_id: request.id })
  })

  app.setNotFoundHandler((request, reply) => {
    const allowed = routes.methodsFor(request.url).filter((m) => m !== 'HEAD')
    if (allowed.length > 0) {
      return reply
        .code(405)
        .header('allow', allowed.join(', '))
        .send({ error: `Method ${request.method} not allowed.` })
    }
    return reply.code(404).send({ error: 'The requested URL was not found on the server.' })
  })
}

/**
 * Counts a request in its bucket (`ip:…`, `key:…`, `organization:…`) for its endpoint group and method, and sets the
 * rate-limit headers; past the limit, throws the 429. At once where the counters are in this process.
 */
export function countRequest(
  deps: Pick<PlatformDeps, 'rateLimiter' | 'config'>,
  request: FastifyRequest,
  reply: FastifyReply,
  counted: { bucket: string; type: string },
): undefined | Promise<undefined> {
  const group = endpointGroup(request)
  return andThen(deps.rateLimiter.consume(`${counted.bucket}:${group}:${request.method}`), (outcome) => {
    rateLimitHeaders(reply, outcome)
    if (outcome.allowed) return undefined
    throw new RateLimitedError(
      {
        message: 'API call count exceeded for this period',
        rate_reset: Math.ceil(outcome.resetSeconds),
        rate_limit: outcome.limit,
        rate_window: deps.config.rateLimit.windowSeconds,
        rate_limit_type: counted.type,
        rate_endpoint_group: group,
      },
      Math.max(1, Math.ceil(outcome.resetSeconds)),
    )
  })
}

// The key in each Authorization header seen lately: the same few headers come with almost every request, and
// reading the key out of one is a regular expression and a base64 decode. Bounded: emptied when full.
const KEYS_BY_HEADER_MAX = 1000
const keysByHeader = new Map<string, string | undefined>()

/** `next` of a value now, or of a promise's value once it settles: the hot path takes no promise it need not. */
function andThen<T, R>(value: T | Promise<T>, next: (value: T) => R | Promise<R>): R | Promise<R> {
  return value instanceof Promise ? value.then(next) : next(value)
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error))
}

/** The API key of a `Basic` Authorization header (the user name; the password is ignored). */
export function presentedKey(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization
  if (header === undefined) return undefined
  if (keysByHeader.has(header)) return keysByHeader.get(header)
  const key = keyOfHeader(header)
  if (keysByHeader.size >= KEYS_BY_HEADER_MAX) keysByHeader.clear()
  keysByHeader.set(header, key)
  return key
}

function keyOfHeader(header: string): string | undefined {
  const match = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header)
  if (match?.[1] === undefined) return undefined
  const decoded = Buffer.from(match[1], 'base64').toString('utf8')
  const colon = decoded.indexOf(':')
  const key = colon === -1 ? decoded : decoded.slice(0, colon)
  return key === '' ? undefined : key
}
