import { createHmac } from 'node:crypto'
import type { IncomingHttpHeaders } from 'node:http'
import { Webhook } from 'standardwebhooks'
import { standardWebhooksSecret } from '../../integrations/outbox/outbox-signing.js'

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
