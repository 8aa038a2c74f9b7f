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
