import type { FastifyRequest } from 'fastify'
import type { KeyOwner } from '../security/api-key-repo.js'
import { localDateAt } from '@leadline/shared/tz-offset'
import { UnauthorizedError } from './errors.js'

declare module 'fastify' {
  interface FastifyRequest {
    /** The caller, set by the auth hook on every authenticated route. */
    auth: KeyOwner | null
    /** The caller's `X-TZ-Offset` in hours, 0 when absent. */
    tzOffsetHours: number
  }
}

export function caller(request: FastifyRequest): KeyOwner {
  if (request.auth === null) throw new UnauthorizedError()
  return request.auth
}

/** The caller's calendar date (`YYYY-MM-DD`) now, in their `X-TZ-Offset` (UTC when absent). */
export function callerToday(request: FastifyRequest, now: Date): string {
  return localDateAt(now, request.tzOffsetHours)
}

/**
 * The client's address (`request.ip`), or null once the client has gone: Fastify reads the socket's peer address,
 * which a destroyed socket no longer has, though its type says string.
 */
export function clientAddress(request: FastifyRequest): string | null {
  const peer: { readonly ip?: string } = request
  return peer.ip ?? null
}
