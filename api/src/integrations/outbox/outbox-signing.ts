import { createHmac } from 'node:crypto'

/**
 * The headers that sign one request, twice with the same 32 key bytes (`keyHex`, 64 hex characters):
 * Close's (`close-sig-hash`: hex HMAC-SHA256 of timestamp + body) and Standard Webhooks' (`webhook-signature`:
 * `v1,` and the base64 HMAC-SHA256 of `id.timestamp.body`). `messageId` is the delivery's id, the same on every
 * retry, so a receiver can drop repeats.
 */
export function signatureHeaders(
  keyHex: string,
  messageId: string,
  timestampSeconds: number,
  body: string,
): Record<string, string> {
  const key = Buffer.from(keyHex, 'hex')
  const timestamp = String(timestampSeconds)
  return {
    'close-sig-timestamp': timestamp,
    'close-sig-hash': createHmac('sha256', key).update(timestamp).update(body).digest('hex'),
    'webhook-id': messageId,
    'webhook-timestamp': timestamp,
    'webhook-signature': `v1,${createHmac('sha256', key).update(`${messageId}.${timestamp}.${body}`).digest('base64')}`,
  }
}

/** The secret a Standard Webhooks library is given for a signature key: `whsec_` and the key bytes in base64. */
export function standardWebhooksSecret(keyHex: string): string {
  return `whsec_${Buffer.from(keyHex, 'hex').toString('base64')}`
}
