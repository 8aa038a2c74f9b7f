import { createHmac, randomBytes } from 'node:crypto'
import type { IncomingHttpHeaders } from 'node:http'
import { Webhook } from 'standardwebhooks'
import type { Db } from '../db/database.js'
import { newId } from '../platform/ids.js'
import { formatTimestamp } from '../platform/time.js'
import { standardWebhooksSecret } from '../outbox/outbox-signing.js'

/** A subscription row as POST /webhook/ stores one, for tests that need one without the route. */
export async function insertSubscription(
  db: Db,
  organizationId: string,
  url: string,
  events: { object_type: string; action: string }[],
  at: Date,
): Promise<{ id: string; signatureKey: string }> {
  const id = newId('webhook')
  const signatureKey = randomBytes(32).toString('hex')
  const now = formatTimestamp(at)
  await db
    .insertInto('webhook_subscription')
    .values({
      id,
      organization_id: organizationId,
      url,
      events: JSON.stringify(events.map((e) => ({ ...e, extra_filter: null }))),
      verify_ssl: 1,
      status: 'active',
      status_reason: null,
      signature_key: signatureKey,
      failing_since: null,
      created_by: null,
      updated_by: null,
      date_created: now,
      date_updated: now,
    })
    .execute()
  return { id, signatureKey }
}

function header(headers: IncomingHttpHeaders, name: string): string {
  const value = headers[name]
  if (typeof value !== 'string') throw new Error(`no ${name} header`)
  return value
}

/**
 * Checks a received request's two signatures as a receiver would, with the subscription's key: Close's recomputed,
 * Standard Webhooks' through the `standardwebhooks` package (which also refuses a timestamp over 5 minutes off).
 * Throws when either is wrong; answers the parsed body.
 */
export function verifySignedRequest(keyHex: string, headers: IncomingHttpHeaders, body: string): unknown {
  const timestamp = header(headers, 'close-sig-timestamp')
  const expected = createHmac('sha256', Buffer.from(keyHex, 'hex'))
    .update(timestamp + body)
    .digest('hex')
  if (header(headers, 'close-sig-hash') !== expected) throw new Error('close-sig-hash does not match')
  return new Webhook(standardWebhooksSecret(keyHex)).verify(body, {
    'webhook-id': header(headers, 'webhook-id'),
    'webhook-timestamp': header(headers, 'webhook-timestamp'),
    'webhook-signature': header(headers, 'webhook-signature'),
  })
}
