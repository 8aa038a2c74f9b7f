import type { SmsConfig } from '../../platform/config.js'
import type { SmsAttachment } from '../../crm/activities/activity-repo.js'
import type { OutboundClient, OutboundResult } from '../../integrations/outbound/outbound-client.js'
import { signatureHeaders } from '../../integrations/outbox/outbox-signing.js'

// Where text messages go (docs/decisions/0026-sms-sending.md). Leadline has no carrier of its own: the `log` provider
// writes each message to the process log (nothing leaves the machine, so `npm start` works offline), and the `http`
// provider POSTs it, signed like a webhook, to a gateway the operator runs in front of a carrier.

/** One message to send. */
export interface SmsToSend {
  /** The message's activity id: the same for every attempt at it. */
  id: string
  /** The send's id (its outbox row): the request's `webhook-id`, the same on retries, so a gateway can drop repeats. */
  sendId: string
  /** E.164: one of the organization's internal numbers. */
  from: string
  /** E.164, or as a contact's phone is kept. */
  to: string
  text: string
  attachments: SmsAttachment[]
  organizationId: string
}

/** What a send attempt came to: `ok` when the provider accepted the message. */
export type SmsSendResult = OutboundResult

export interface SmsProvider {
  /** Where messages go, as an attempt records it: the gateway's URL, or `log:`. */
  readonly target: string
  send(message: SmsToSend, options: { timeoutMs: number; timestampSeconds: number }): Promise<SmsSendResult>
  close(): void
}

/** Writes one line a message to the process log, and answers that it was accepted. */
export function logSmsProvider(log: (fields: Record<string, unknown>, line: string) => void): SmsProvider {
  return {
    target: 'log:',
    send(message) {
      log(
        {
          sms: {
            id: message.id,
            organization_id: message.organizationId,
            from: message.from,
            to: message.to,
            text: message.text,
            attachments: message.attachments.length,
          },
        },
        `sms (log provider, not sent anywhere) from ${message.from} to ${message.to}: ${JSON.stringify(message.text)}`,
      )
      return Promise.resolve({ ok: true, statusCode: null, durationMs: 0, error: null })
    },
    close() {
      // Nothing held.
    },
  }
}

/**
 * POSTs `{id, organization_id, from, to, text, attachments}` to `url` through `client` (the SSRF-guarded one),
 * signed with the 32 to 64 key bytes `keyHex` as webhooks are (Standard Webhooks' headers and Close's); a 2xx answer
 * means the gateway took the message.
 */
export function httpSmsProvider(options: { url: string; keyHex: string; client: OutboundClient }): SmsProvider {
  const { url, keyHex, client } = options
  return {
    target: url,
    send(message, { timeoutMs, timestampSeconds }) {
      const body = JSON.stringify({
        id: message.id,
        organization_id: message.organizationId,
        from: message.from,
        to: message.to,
        text: message.text,
        attachments: message.attachments,
      })
      return client.post({
        url,
        body,
        headers: signatureHeaders(keyHex, message.sendId, timestampSeconds, body),
        timeoutMs,
        verifyTls: true,
      })
    },
    close() {
      client.close()
    },
  }
}

/** The provider `config` names; `client` is the outbound client the http provider posts through. */
export function smsProviderFrom(
  config: SmsConfig,
  parts: { log: (fields: Record<string, unknown>, line: string) => void; client: () => OutboundClient },
): SmsProvider {
  if (config.provider === 'http' && config.url !== null && config.signingKey !== null) {
    return httpSmsProvider({ url: config.url, keyHex: config.signingKey, client: parts.client() })
  }
  return logSmsProvider(parts.log)
}
