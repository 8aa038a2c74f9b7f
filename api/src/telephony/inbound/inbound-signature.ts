import { createHmac, timingSafeEqual } from 'node:crypto'
import type { IncomingHttpHeaders } from 'node:http'

// Standard Webhooks, as the inbound endpoint checks it (decision 0027): `webhook-signature` holds one or more
// space-separated `v1,<base64 HMAC-SHA256>` of `<webhook-id>.<webhook-timestamp>.<body bytes>`, keyed with the
// organization's 32-byte secret; the timestamp (seconds) must be within five minutes of now.

export const ORGANIZATION_HEADER = 'leadline-organization'
export const SIGNATURE_TOLERANCE_SECONDS = 5 * 60
/** The longest `webhook-id` kept (its column's width). */
const MAX_ID_LENGTH = 255

/** The signing headers of a request, read but not yet checked against a secret. */
export interface SignedRequest {
  organizationId: string
  id: string
  timestamp: string
  signatures: string
}

function single(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name]
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined
}

/** The signing headers, or why the request cannot be taken as signed (a sentence for the 401). */
export function readSignedHeaders(headers: IncomingHttpHeaders, now: Date): SignedRequest | string {
  const organizationId = single(headers, ORGANIZATION_HEADER)
  const id = single(headers, 'webhook-id')
  const timestamp = single(headers, 'webhook-timestamp')
  const signatures = single(headers, 'webhook-signature')
  const missing = [
    organizationId === undefined ? 'Leadline-Organization' : undefined,
    id === undefined ? 'webhook-id' : undefined,
    timestamp === undefined ? 'webhook-timestamp' : undefined,
    signatures === undefined ? 'webhook-signature' : undefined,
  ].filter((name) => name !== undefined)
  if (organizationId === undefined || id === undefined || timestamp === undefined || signatures === undefined) {
    return `Missing ${missing.join(', ')}: sign the request as Standard Webhooks do, with the organization's inbound secret.`
  }
  if (id.length > MAX_ID_LENGTH) return `The webhook-id header may have at most ${MAX_ID_LENGTH} characters.`
  if (!/^\d{1,12}$/.test(timestamp)) return 'The webhook-timestamp header must be whole seconds since 1970.'
  if (Math.abs(now.getTime() / 1000 - Number(timestamp)) > SIGNATURE_TOLERANCE_SECONDS) {
    return 'The webhook-timestamp is more than five minutes away from now: sign each request when it is sent.'
  }
  return { organizationId, id, timestamp, signatures }
}

/** Whether any `v1,` signature of the request is the body's, with `secretHex`; each compared in constant time. */
export function signatureMatches(request: SignedRequest, secretHex: string, body: Buffer): boolean {
  const expected = createHmac('sha256', Buffer.from(secretHex, 'hex'))
    .update(`${request.id}.${request.timestamp}.`)
    .update(body)
    .digest()
  let matched = false
  for (const part of request.signatures.split(' ')) {
    if (!part.startsWith('v1,')) continue
    const given = Buffer.from(part.slice(3), 'base64')
    if (given.length === expected.length && timingSafeEqual(given, expected)) matched = true
  }
  return matched
}
