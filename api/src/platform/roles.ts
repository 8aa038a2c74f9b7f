import type { FastifyRequest } from 'fastify'
import type { KeyOwner } from '../api-keys/api-key-repo.js'
import { ForbiddenError } from './errors.js'
import { caller } from './request-context.js'

/** Statuses, custom fields, pipelines, webhooks, memberships and the organization are an admin's to change. */
export function requireAdmin(request: FastifyRequest): KeyOwner {
  const me = caller(request)
  if (me.role !== 'admin') throw new ForbiddenError('Only an admin of the organization can do this.')
  return me
}
