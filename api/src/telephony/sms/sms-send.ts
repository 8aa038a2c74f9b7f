import type { Config } from '../../platform/config.js'
import type { ActivityTable, Db, Dialect } from '../../platform/data/database.js'
import type { HandlerContext, OutboxHandler } from '../../integrations/outbox/outbox-dispatcher.js'
import {
  findMessage,
  messageSendHandler,
  storedMessage,
  type MessageData,
  type SendChannel,
} from '../../integrations/messages/message-send.js'
import type { Clock } from '../../platform/data/time.js'
import type { SmsProvider } from './sms-provider.js'

// A text's send is an `sms_send` row in the outbox (docs/decisions/0026-sms-sending.md), written, cancelled and
// handled by the messages module; what is particular to texts is the provider the handler calls.

export const SMS_SEND_KIND = 'sms_send'
/** A text's sends: `sms_send` rows, ordering key `sms:<activity id>`. */
export const SMS_CHANNEL: SendChannel<'SMS'> = { type: 'SMS', kind: SMS_SEND_KIND, prefix: 'sms' }
/** A failed send is retried for this long after it was due; then the message is `error`. */
export const SMS_RETRY_WINDOW_MS = 3_600_000
/** The longest wait between two attempts at a send. */
export const SMS_RETRY_CAP_MS = 300_000

export type SmsData = MessageData<'SMS'>

/** A stored text's fields (written only by this module, its routes and the inbound endpoint). */
export function storedSms(row: ActivityTable): SmsData {
  return storedMessage<'SMS'>(row)
}

/** A text message of the organization, its row locked to the end of the transaction when `lock` (Postgres). */
export async function findSms(db: Db, organizationId: string, id: string, lock: boolean) {
  return findMessage(db, 'SMS', organizationId, id, lock)
}

export interface SmsSenderOptions {
  db: Db
  dialect: Dialect
  clock: Clock
  config: Pick<Config, 'sms' | 'leadWebhookUrl'>
  provider: SmsProvider
}

/** The dispatcher's handler of `sms_send` rows: the message goes to the provider, retried for an hour. */
export function smsSendHandler(options: SmsSenderOptions): (context: HandlerContext) => OutboxHandler {
  const { config, provider, clock } = options
  return messageSendHandler({
    db: options.db,
    dialect: options.dialect,
    clock,
    channel: SMS_CHANNEL,
    leadWebhookUrl: config.leadWebhookUrl,
    retry: { baseMs: config.sms.retrySeconds * 1000, capMs: SMS_RETRY_CAP_MS, windowMs: SMS_RETRY_WINDOW_MS },
    async send(message, { row, deadline }) {
      const data = storedSms(message)
      // The gateway's request gets what is left of the send's time (its client breaks it off then, lookup included).
      const result = await provider.send(
        {
          id: message.id,
          sendId: row.id,
          organizationId: row.organization_id,
          from: data.local_phone ?? '',
          to: data.remote_phone ?? '',
          text: data.text,
          attachments: data.attachments,
        },
        { timeoutMs: Math.max(deadline.left(), 1), timestampSeconds: Math.floor(clock.now().getTime() / 1000) },
      )
      return {
        result: { ...result, error: result.ok ? null : (result.error ?? 'The provider refused the message.') },
        target: provider.target,
      }
    },
  })
}
