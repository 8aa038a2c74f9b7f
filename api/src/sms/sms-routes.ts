import { Type } from '@sinclair/typebox'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyRequest } from 'fastify'
import type { ActivityTable, Db } from '../db/database.js'
import { deleteActivity, oneActivity, typedRoutes } from '../activities/activity-routes.js'
import { recordActivity, type SmsStatus } from '../activities/activity-repo.js'
import { changeContext } from '../events/event-repo.js'
import { findLead } from '../leads/lead-repo.js'
import type { Deps } from '../platform/deps.js'
import { HttpError, NotFoundError, ValidationError } from '../platform/errors.js'
import { caller } from '../platform/request-context.js'
import { formatTimestamp, parseTimestamp } from '../platform/time.js'
import {
  addFieldError,
  contactWithPhone,
  createSmsBody,
  readContent,
  readDateScheduled,
  sendableProblems,
  updateSmsBody,
  type Content,
} from './sms-input.js'
import { cancelSend, findSms, scheduleSend, storedSms, writeSms, type SmsData } from './sms-send.js'

// `/activity/sms/` (docs/decisions/0026-sms-sending.md): text messages logged, drafted, scheduled and sent. The state
// machine: a draft may be scheduled (with `date_scheduled`) or put in the outbox (sent now, or after `send_in`
// seconds); a scheduled message or one in the outbox may go back to draft, which cancels its send if it has not been
// made; only a draft's content changes. The dispatcher moves a sent message to `sent` (or `error`).

const tags = ['activities']
const params = Type.Object({ id: Type.String() })

/** Where each status may go through PUT. */
const TRANSITIONS: Record<SmsStatus, readonly SmsStatus[]> = {
  draft: ['scheduled', 'outbox'],
  scheduled: ['draft'],
  outbox: ['draft'],
  inbox: [],
  sent: [],
  error: [],
}

const TOO_LATE = 'Too late: the message is being sent right now.'

function transitionProblem(from: SmsStatus, to: SmsStatus): string {
  const allowed = TRANSITIONS[from]
  const message = `${/^[aeiou]/.test(from) ? 'an' : 'a'} ${from} message`
  const where =
    allowed.length === 0 ? `${message} keeps its status` : `${message} can only become ${allowed.join(' or ')}`
  const how = to === 'error' ? ' (error is set when sending fails for good)' : ''
  return `Cannot change the status from ${from} to ${to}: ${where}${how}.`
}

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

/** When a message's send falls due: `send_in` seconds from now into the outbox, at `date_scheduled` when scheduled. */
function sendDue(status: SmsStatus, now: Date, sendIn: number | null, dateScheduled: string | null): string | null {
  if (status === 'outbox') return formatTimestamp(new Date(now.getTime() + (sendIn ?? 0) * 1000))
  return status === 'scheduled' ? dateScheduled : null
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b)

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
        let dateScheduled: string | null = null
        if (body.date_scheduled !== undefined && body.date_scheduled !== null) {
          if (status === 'scheduled' || status === 'draft')
            dateScheduled = readDateScheduled(body.date_scheduled, now, errors) ?? null
          else errors.date_scheduled = 'Only a scheduled message (or a draft) has a date_scheduled.'
        } else if (status === 'scheduled') errors.date_scheduled = 'Required to schedule a message.'
        if (body.send_in !== undefined && body.send_in !== null && status !== 'outbox')
          errors.send_in = 'Only with status outbox.'
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
        const dueAt = sendDue(status, now, body.send_in ?? null, dateScheduled)
        if (dueAt !== null)
          await scheduleSend(tx, { organizationId: me.organizationId, activityId: id, dueAt, now: ctx.now })
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
        const row = await findSms(tx, me.organizationId, request.params.id, dialect === 'postgres')
        if (row === undefined) throw new NotFoundError('SMS')
        const before = storedSms(row)
        const from = before.status
        const to = body.status ?? from
        const errors: Record<string, string> = {}
        const scope = { organizationId: me.organizationId, leadId: row.lead_id, country }
        const content = await readContent(tx, scope, body, errors)
        let after = withContent(before, content)
        const contactId = content.contact_id === undefined ? row.contact_id : content.contact_id
        if (from !== 'draft') {
          // Content given as it already is (a client sending back what it read) changes nothing and is no edit.
          const fields = ['text', 'remote_phone', 'local_phone', 'attachments'] as const
          for (const field of fields)
            if (!same(before[field], after[field]))
              errors[field] = `Only a draft can be changed; this message is ${from}.`
          if (contactId !== row.contact_id) errors.contact_id = `Only a draft can be changed; this message is ${from}.`
        }
        if (to !== from && !TRANSITIONS[from].includes(to)) errors.status = transitionProblem(from, to)

        const sendIn = body.send_in ?? null
        if (sendIn !== null && !(to === 'outbox' && from !== 'outbox'))
          errors.send_in = 'Only when the status becomes outbox.'
        const givenDate = body.date_scheduled
        if (
          givenDate !== undefined &&
          !same(givenDate && (parseTimestamp(givenDate) ?? givenDate), before.date_scheduled)
        ) {
          if (from !== 'draft' || (to !== 'draft' && to !== 'scheduled'))
            errors.date_scheduled = 'Only a draft’s date_scheduled changes (with status draft or scheduled).'
          else after.date_scheduled = givenDate === null ? null : (readDateScheduled(givenDate, now, errors) ?? null)
        }
        if (to !== from && errors.status === undefined) {
          after = { ...after, status: to }
          if (to === 'scheduled') {
            if (after.date_scheduled === null)
              addFieldError(errors, 'date_scheduled', 'Required to schedule a message.')
            else if (Date.parse(after.date_scheduled) <= now.getTime())
              addFieldError(errors, 'date_scheduled', 'Must be in the future.')
          }
          if (to === 'outbox') after.date_scheduled = null
          if (to === 'scheduled' || to === 'outbox') {
            sendableProblems(after, errors)
            // The number may have been taken off the organization's internal numbers since the draft was written.
            if (body.local_phone === undefined)
              await readContent(tx, scope, { local_phone: after.local_phone ?? '' }, errors)
          }
        }
        if (Object.keys(errors).length > 0) throw new ValidationError(errors)
        if (same(after, before) && contactId === row.contact_id)
          return oneActivity(tx, me.organizationId, row.id, 'SMS')

        if (from !== 'draft' && to === 'draft') {
          const outcome = await cancelSend(tx, {
            organizationId: me.organizationId,
            activityId: row.id,
            now: ctx.now,
            reason: 'Cancelled: the message went back to draft.',
          })
          if (outcome === 'sending') throw ValidationError.field('status', TOO_LATE)
        }
        await writeSms(
          tx,
          row,
          { data: after, contactId },
          { userId: me.userId, now: ctx.now, action: 'updated', events: ctx.events },
        )
        if (from === 'draft' && (to === 'scheduled' || to === 'outbox')) {
          const dueAt = sendDue(to, now, sendIn, after.date_scheduled)
          if (dueAt !== null)
            await scheduleSend(tx, { organizationId: me.organizationId, activityId: row.id, dueAt, now: ctx.now })
        }
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
        const row = await findSms(tx, me.organizationId, request.params.id, dialect === 'postgres')
        if (row === undefined) throw new NotFoundError('SMS')
        await cancelOrRefuse(tx, row, ctx.now)
        await deleteActivity(tx, ctx, row)
      })
      return {}
    },
  )
}

/** Cancels the send a message deleted was waiting for; a 400 when it is under way. */
async function cancelOrRefuse(tx: Db, row: ActivityTable, now: string): Promise<void> {
  const outcome = await cancelSend(tx, {
    organizationId: row.organization_id,
    activityId: row.id,
    now,
    reason: 'Cancelled: the message was deleted.',
  })
  if (outcome === 'sending') throw new HttpError(400, TOO_LATE)
}
