import type { IncomingMessage } from 'node:http'
import type { FastifyRequest } from 'fastify'
import { bodyTooLarge, HttpError } from './errors.js'

const OVERRIDABLE = new Set(['GET', 'PUT', 'PATCH', 'DELETE'])
const overriddenToGet = new WeakSet<IncomingMessage>()

/**
 * Clients that can only POST send `X-HTTP-Method-Override`; a GET sent this way carries its filters in the
 * JSON body under `_params`. Runs before routing (Fastify's `rewriteUrl`), so the override picks the route.
 */
export function applyMethodOverride(req: IncomingMessage): void {
  const header = req.headers['x-http-method-override']
  if (req.method !== 'POST' || typeof header !== 'string') return
  const method = header.trim().toUpperCase()
  if (!OVERRIDABLE.has(method)) return
  req.method = method
  if (method === 'GET') overriddenToGet.add(req)
}

async function readBody(req: IncomingMessage, limitBytes: number): Promise<string> {
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of req) {
    const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk))
    size += buffer.length
    if (size > limitBytes) throw new HttpError(413, bodyTooLarge(limitBytes))
    chunks.push(buffer)
  }
  return Buffer.concat(chunks).toString('utf8')
}

/** Whether the request is a POST overridden to a GET, whose body may carry `_params`. */
export function isOverriddenGet(request: FastifyRequest): boolean {
  return overriddenToGet.has(request.raw)
}

/** Moves `_params` of an overridden GET's body into the query string, where the route's schema validates it. */
export async function mergeOverrideParams(request: FastifyRequest, limitBytes: number): Promise<void> {
  if (!isOverriddenGet(request)) return
  const text = await readBody(request.raw, limitBytes)
  if (text.trim() === '') return
  let body: unknown
  try {
    body = JSON.parse(text)
  } catch {
    throw new HttpError(400, 'Malformed JSON in the request body.')
  }
  if (typeof body !== 'object' || body === null || !('_params' in body)) return
  const params = body._params
  if (typeof params !== 'object' || params === null || Array.isArray(params)) {
    throw new HttpError(400, '`_params` must be a JSON object of query parameters.')
  }
  const current = typeof request.query === 'object' && request.query !== null ? request.query : {}
  request.query = { ...current, ...params }
}
