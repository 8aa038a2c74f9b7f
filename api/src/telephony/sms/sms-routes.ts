import { Type } from '@sinclair/typebox'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyRequest } from 'fastify'
import { deleteActivity, oneActivity, typedRoutes } from '../../crm/activities/activity-routes.js'
import { recordActivity } from '../../crm/activities/activity-repo.js'
import { changeContext } from '../../integrations/events/event-repo.js'
import { findLead } from '../../crm/leads/lead-repo.js'
import type { Deps } from '../../crm/deps.js'
import { ValidationError } from '../../platform/http/errors.js'
import { caller } from '../../platform/http/request-context.js'
import { formatTimestamp } from '../../platform/data/time.js'
import {
  contactWithPhone,
  createSmsBody,
  readContent,
  sendableProblems,
  updateSmsBody,
  type Content,
} from './sms-input.js'
import { checkSendingNumber, readMessageEdit } from '../../integrations/messages/message-owner.js'
import { scheduleSend, stopSend, writeMessage } from '../../integrations/messages/message-send.js'
import { readNewSend, same, sendDue, startsSend, stopsSend } from '../../integrations/messages/message-status.js'
import { findSms, SMS_CHANNEL, storedSms, type SmsData } from './sms-send.js'
import { found } from '../../platform/data/find-or-404.js'

// `/activity/sms/` (docs/decisions/0026-sms-sending.md): text messages logged, drafted, scheduled and sent. The state
// machine: a draft may be scheduled (with `date_scheduled`) or put in the outbox (sent now, or after `send_in`
// seconds); a scheduled message or one in the outbox may go back to draft, which cancels its send if it has not been
// made; only a draft's content changes. The dispatcher moves a sent message to `sent` (or `error`).

const tags = ['activities']
const params = Type.Object({ id: Type.String() })

/** The message's stored fields with the content a request gave. */
function withContent(data: SmsData, content: Content): SmsData {
  return {
    ...data,
    ...(content.text === undefined ? {} : { text: content.text }),
    ...(content.remote_phone === undefined ? {} : { remote_phone: content.remote_phone }),
    ...(content.local_phone === undefined ? {} : { local_phone: content.local_phone }),
    ...(content.attachments === undefined ? {} : { attachments: content.attachments }),
  }
}

export const smsRoutes: FastifyPluginAsyncTypebox<Deps> = async (app, { db, dialect, clock, meta }) => {
  typedRoutes(app, db, '/activity/sms/', 'SMS')

  /** Who writes, when, and the organization's country (phones are read as dialled there). */
  async function writeContext(request: FastifyRequest) {
    const me = caller(request)
    const now = clock.now()
    const country = (await meta.require(me.organizationId)).organization.country
    return { me, now, ctx: changeContext(request, formatTimestamp(now)), country }
  }

  app.post(
    '/activity/sms/',
    {
      schema: {
        tags,
        summary: 'Log, draft, schedule or send a text message (answers 200)',
        description:
          '`status`: `inbox` logs a message received, `sent` one sent elsewhere (nothing is sent), `draft` keeps a draft, `scheduled` sends it at `date_scheduled`, `outbox` sends it now or after `send_in` seconds (0–59). `local_phone` must be one of the organization’s internal numbers.',
        body: createSmsBody,
      },
    },
    async (request) => {
      const body = request.body
      const { me, now, ctx, country } = await writeContext(request)
      return db.transaction().execute(async (tx) => {
        const errors: Record<string, string> = {}
        const lead = await findLead(tx, me.organizationId, body.lead_id)
        if (lead === undefined) errors.lead_id = 'Object does not exist.'
        const scope = { organizationId: me.organizationId, leadId: body.lead_id, country }
        const content = await readContent(tx, scope, body, errors)
        const status = body.status
        const { dateScheduled, sendIn } = readNewSend(status, body, now, errors)
        const data: SmsData = {
          direction: status === 'inbox' ? 'inbound' : 'outbound',
          status,
          text: content.text ?? '',
          remote_phone: content.remote_phone ?? null,
          local_phone: content.local_phone ?? null,
          // Recorded from elsewhere, or sent through this CRM (Close names its own `Close.io`).
          source: body.source ?? (status === 'inbox' || status === 'sent' ? 'External' : 'Close.io'),
          date_scheduled: dateScheduled,
          date_sent: status === 'sent' ? ctx.now : null,
          error_message: null,
          attachments: content.attachments ?? [],
          send_attempts: [],
          template_id: null,
          activity_at: ctx.now,
          provider_message_id: null,
        }
        if (status !== 'draft') sendableProblems(data, errors)
        if (Object.keys(errors).length > 0) throw new ValidationError(errors)
        if (status === 'scheduled' || status === 'outbox') await checkSendingNumber(tx, me, data.local_phone)
        // Without a contact_id, the message is with the lead's contact who has that number, if one has.
        const contactId =
          content.contact_id !== undefined || data.remote_phone === null
            ? (content.contact_id ?? null)
            : await contactWithPhone(tx, me.organizationId, body.lead_id, data.remote_phone)
        const id = await recordActivity(
          tx,
          {
            organizationId: me.organizationId,
            leadId: body.lead_id,
            contactId,
            userId: me.userId,
            type: 'SMS',
            data,
            now: ctx.now,
          },
          ctx.events,
        )
        const dueAt = sendDue(status, now, sendIn, dateScheduled)
        if (dueAt !== null)
          await scheduleSend(tx, SMS_CHANNEL, {
            organizationId: me.organizationId,
            activityId: id,
            dueAt,
            now: ctx.now,
          })
        return oneActivity(tx, me.organizationId, id, 'SMS')
      })
    },
  )

  app.put(
    '/activity/sms/:id/',
    {
      schema: {
        tags,
        summary: 'Edit a draft, send or schedule it, or take a message waiting to be sent back to draft',
        description:
          'From draft: `scheduled` (with `date_scheduled`) or `outbox` (optionally with `send_in`). From scheduled or outbox: `draft`, which cancels the send unless it is under way (then a 400). Only a draft’s `text`, `remote_phone`, `local_phone`, `attachments` and `contact_id` change.',
        params,
        body: updateSmsBody,
      },
    },
    async (request) => {
      const body = request.body
      const { me, now, ctx, country } = await writeContext(request)
      return db.transaction().execute(async (tx) => {
        const row = found(await findSms(tx, me.organizationId, request.params.id, dialect === 'postgres'), 'SMS')
        const before = storedSms(row)
        const errors: Record<string, string> = {}
        const scope = { organizationId: me.organizationId, leadId: row.lead_id, country }
        const content = await readContent(tx, scope, body, errors)
        const contactId = content.contact_id === undefined ? row.contact_id : content.contact_id
        const edit = {
          before,
          after: withContent(before, content),
          ownerId: row.user_id,
          contactMoved: contactId !== row.contact_id,
          content: ['text', 'remote_phone', 'local_phone', 'attachments'] as const,
          noun: 'message',
        }
        const { change, after } = readMessageEdit(me, edit, body, now, errors)
        if (startsSend(change)) {
          sendableProblems(after, errors)
          // The number may have been taken off the organization's internal numbers since the draft was written.
          if (body.local_phone === undefined)
            await readContent(tx, scope, { local_phone: after.local_phone ?? '' }, errors)
        }
        if (Object.keys(errors).length > 0) throw new ValidationError(errors)
        if (startsSend(change)) await checkSendingNumber(tx, me, after.local_phone)
        if (same(after, before) && contactId === row.contact_id)
          return oneActivity(tx, me.organizationId, row.id, 'SMS')

        if (stopsSend(change)) await stopSend(tx, SMS_CHANNEL, row, { now: ctx.now, why: 'draft' })
        await writeMessage(
          tx,
          row,
          { data: after, contactId },
          { userId: me.userId, now: ctx.now, action: 'updated', events: ctx.events },
        )
        const dueAt = startsSend(change) ? sendDue(change.to, now, change.sendIn, after.date_scheduled) : null
        if (dueAt !== null)
          await scheduleSend(tx, SMS_CHANNEL, {
            organizationId: me.organizationId,
            activityId: row.id,
            dueAt,
            now: ctx.now,
          })
        return oneActivity(tx, me.organizationId, row.id, 'SMS')
      })
    },
  )

  app.delete(
    '/activity/sms/:id/',
    { schema: { tags, summary: 'Delete a text message; one waiting to be sent is not sent', params } },
    async (request) => {
      const me = caller(request)
      const ctx = changeContext(request, formatTimestamp(clock.now()))
      await db.transaction().execute(async (tx) => {
        const row = found(await findSms(tx, me.organizationId, request.params.id, dialect === 'postgres'), 'SMS')
        await stopSend(tx, SMS_CHANNEL, row, { now: ctx.now, why: 'deleted' })
        await deleteActivity(tx, ctx, row)
      })
      return {}
    },
  )
}
