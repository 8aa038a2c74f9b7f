import type { FastifyRequest } from 'fastify'
import type { KeyOwner } from './api-key-repo.js'
import { ForbiddenError } from '../http/errors.js'
import { caller } from '../http/request-context.js'

/** Statuses, custom fields, pipelines, webhooks, memberships and the organization are an admin's to change. */
export function requireAdmin(request: FastifyRequest): KeyOwner {
  const me = caller(request)
  if (me.role !== 'admin') throw new ForbiddenError('Only an admin of the organization can do this.')
  return me
}

/**
 * `requireAdmin` for a change to one object, called before any lock is taken or any work done. A non-admin hears
 * 404 for an id that is not one of the organization's (another organization's object is a 404, never a 403) and
 * 403 for one that is, after a single read with no lock, outside any transaction: a refused request never waits
 * for a lock an admin's change holds, nor holds one.
 */
export async function requireAdminOver(
  request: FastifyRequest,
  find: (organizationId: string) => Promise<unknown>,
  notFound: () => Error,
): Promise<KeyOwner> {
  const me = caller(request)
  if (me.role === 'admin') return me
  if ((await find(me.organizationId)) === undefined) throw notFound()
  return requireAdmin(request)
}
