import type { FastifyRequest } from 'fastify'
import type { AuditAction } from '@leadline/shared/audit-log-schema'
import type { Db } from '../../platform/data/database.js'
import { newId } from '../../platform/security/ids.js'
import { caller, clientAddress } from '../../platform/http/request-context.js'

// The audit log (decision 0073): entries on the event log, of `object_type` `audit`, written in the transaction of
// the change they record. They go to no sink: no webhook, lead webhook or live stream carries them, and `/event/`
// does not list them; only admins read them, through `/audit_log/`.

/** The `object_type` of every audit entry on the event log. */
export const AUDIT_OBJECT_TYPE = 'audit'

/** Who did it, from where, and when: what every entry of one request carries. */
export interface AuditContext {
  organizationId: string
  /** The actor; null for a failed sign-in, whose actor is not known (the email tried is in `email`). */
  userId: string | null
  apiKeyId: string | null
  requestId: string | null
  /**
   * The client's address: `request.ip`, which Fastify reads from `X-Forwarded-For` only when the connection comes
   * from an address `LEADLINE_TRUST_PROXY` names (the BFF's), as the sign-in throttle counts it. Null for a change
   * made on the server with the `leadline` CLI, which has no client, and for one whose client left before it was recorded.
   */
  address: string | null
  now: string
}

/** The context of an authenticated request's entries: its caller, its address. */
export function auditContext(request: FastifyRequest, now: string): AuditContext {
  const me = caller(request)
  return {
    organizationId: me.organizationId,
    userId: me.userId,
    apiKeyId: me.apiKeyId,
    requestId: request.id,
    address: clientAddress(request),
    now,
  }
}

/**
 * The context of a change made with the `leadline` CLI on the server: no request, no address, and no member known to
 * have made it (whoever could run the command there); the entry's `details.source` names the command.
 */
export function cliAuditContext(organizationId: string, now: string): AuditContext {
  return { organizationId, userId: null, apiKeyId: null, requestId: null, address: null, now }
}

/** The context of a request made before anyone is known to the api (a sign-in): the actor is named by the caller. */
export function publicAuditContext(
  request: FastifyRequest,
  actor: { organizationId: string; userId: string | null; apiKeyId: string | null },
  now: string,
): AuditContext {
  return { ...actor, requestId: request.id, address: clientAddress(request), now }
}

export interface AuditInput {
  action: AuditAction
  /** What was acted on: `user`, `api_key`, `membership`, `export`, `import`, `webhook`, `single_sign_on`, … */
  objectType: string
  objectId: string
  /** What an admin needs to read the entry without opening the object (never a secret, never a password). */
  details?: Record<string, string | number | boolean | null | readonly string[]>
  /** For a failed sign-in: the email tried (the actor is not known). */
  email?: string
}

/** The actor's name and email as they are now: an entry keeps them though the person changes or leaves. */
async function actorOf(tx: Db, userId: string | null) {
  if (userId === null) return { name: null, email: null }
  const user = await tx
    .selectFrom('user')
    .select(['first_name', 'last_name', 'email'])
    .where('id', '=', userId)
    .executeTakeFirst()
  if (user === undefined) return { name: null, email: null }
  const name = [user.first_name, user.last_name].filter((part) => part !== null && part !== '').join(' ')
  return { name: name === '' ? null : name, email: user.email }
}

/** Writes audit entries in the caller's transaction: the change and its entries are stored together or not at all. */
export async function recordAudit(tx: Db, ctx: AuditContext, inputs: readonly AuditInput[]): Promise<void> {
  if (inputs.length === 0) return
  const actor = await actorOf(tx, ctx.userId)
  await tx
    .insertInto('event')
    .values(
      inputs.map((input) => ({
        id: newId('event'),
        organization_id: ctx.organizationId,
        object_type: AUDIT_OBJECT_TYPE,
        object_id: input.objectId,
        action: input.action,
        lead_id: null,
        user_id: ctx.userId,
        request_id: ctx.requestId,
        api_key_id: ctx.apiKeyId,
        data: JSON.stringify({
          object_type: input.objectType,
          actor_name: actor.name,
          actor_email: input.email ?? actor.email,
          details: input.details ?? {},
        }),
        previous_data: '{}',
        changed_fields: '[]',
        meta: '{}',
        client_address: ctx.address === null ? null : ctx.address.slice(0, 64),
        date_created: ctx.now,
        date_updated: ctx.now,
      })),
    )
    .execute()
}
