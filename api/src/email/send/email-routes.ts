import { Type } from '@sinclair/typebox'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyRequest } from 'fastify'
import { oneActivity, typedRoutes } from '../../crm/activities/activity-routes.js'
import type { Db } from '../../platform/data/database.js'
import { accountForSender, EmailAccountSecretError } from '../accounts/email-account-repo.js'
import { renderEmailTemplate } from '../templates/template-render.js'
import { changeContext } from '../../integrations/events/event-repo.js'
import {
  bindEmailAttachments,
  deleteUnlistedAttachments,
  storedAttachmentIds,
} from '../attachments/email-attachment-repo.js'
import { findLead } from '../../crm/leads/lead-repo.js'
import { checkNewMessageUser, readMessageEdit } from '../../integrations/messages/message-owner.js'
import { findMessage, scheduleSend, stopSend, writeMessage } from '../../integrations/messages/message-send.js'
import {
  addFieldError,
  readNewSend,
  same,
  sendDue,
  startsSend,
  stopsSend,
  type MessageStatus,
} from '../../integrations/messages/message-status.js'
import type { Deps } from '../../crm/deps.js'
import type { SecretBox } from '../../platform/security/secret-box.js'
import { ValidationError } from '../../platform/http/errors.js'
import { caller } from '../../platform/http/request-context.js'
import { formatTimestamp } from '../../platform/data/time.js'
import { emailBodies, parseAddress } from '../../platform/text/email-text.js'
import { createEmailBody, readEmailContent, updateEmailBody, type EmailContent } from './email-input.js'
import { EMAIL_CHANNEL, storedEmail } from './email-send.js'
import { deleteEmail, emailData, storeEmail, type EmailData } from './email-store.js'
import { assignThread, deleteThreadIfEmpty } from './email-thread.js'
import { withoutOffsets } from '../../crm/activities/email-activity-view.js'
import { found } from '../../platform/data/find-or-404.js'
import { isMemberOf } from '../../crm/users/user-repo.js'

// `/activity/email/` (docs/decisions/0031-emails-and-sending.md): emails logged, drafted, scheduled and sent, with
// the state machine texts have (messages/). An email is in a thread of its lead from the start; one scheduled or put
// in the outbox goes through an email account of its user, found by its sender, and the dispatcher sends it.

const tags = ['activities']
const params = Type.Object({ id: Type.String() })
type Errors = Record<string, string>

/** The fields compared when a PUT touches a non-draft: content sent back as it is is no edit. */
const CONTENT_FIELDS = [
  'subject',
  'body_text',
  'body_html',
  'sender',
  'to',
  'cc',
  'bcc',
  'attachments',
  'in_reply_to_id',
  'template_id',
  'followup_date',
] as const

/** The email's fields with the content a request gave; a template fills what the request left out. */
async function withContent(
  db: Db,
  data: EmailData,
  content: EmailContent,
  template: { organizationId: string; leadId: string; contactId: string | null; userId: string; tzOffsetHours: number },
  errors: Errors,
): Promise<EmailData> {
  const next: EmailData = { ...data }
  if (content.subject !== undefined) next.subject = content.subject
  if (content.body_text !== undefined || content.body_html !== undefined) {
    const bodies = emailBodies(content.body_text, content.body_html)
    next.body_text = bodies.text
    next.body_html = bodies.html
  }
  for (const field of ['sender', 'to', 'cc', 'bcc', 'attachments', 'in_reply_to_id', 'followup_date'] as const) {
    if (content[field] !== undefined) Object.assign(next, { [field]: content[field] })
  }
  if (content.template_id !== undefined) {
    next.template_id = content.template_id
    next.template_name = null
    if (content.template_id !== null) {
      const rendered = await renderEmailTemplate(
        db,
        { ...template, templateId: content.template_id },
        { subject: 'subject', body: 'body_html' },
      )
      if (rendered === undefined) errors.template_id = 'Not a template of your organization you may use.'
      else {
        next.template_name = rendered.templateName
        if (content.body_text === undefined && content.body_html === undefined) {
          next.body_text = rendered.bodyText
          next.body_html = rendered.bodyHtml
        }
        if (content.subject === undefined && next.subject === '') next.subject = rendered.subject
        // The template's files, unless the request names the email's own or the draft has some already.
        if (content.attachments === undefined && next.attachments.length === 0)
          next.attachments = rendered.attachments.map((file) => ({
            url: file.url,
            filename: file.filename,
            content_type: file.content_type,
            // A size the template does not know is the file's when it is fetched; until then 0.
            size: file.size ?? 0,
          }))
      }
    }
  }
  return next
}

/**
 * What an email must have before it goes out (scheduled or outbox): a recipient, and a sender one of its user's
 * email accounts sends as; answers that account's id.
 */
async function sendingAccount(
  db: Db,
  box: SecretBox | null,
  email: { organizationId: string; userId: string; data: EmailData },
  errors: Errors,
): Promise<string | null> {
  const { data } = email
  if (data.to.length + data.cc.length + data.bcc.length === 0)
    addFieldError(errors, 'to', 'Add at least one recipient.')
  const sender = data.sender === null ? undefined : parseAddress(data.sender)
  if (sender === undefined) {
    addFieldError(errors, 'sender', 'This field is required.')
    return null
  }
  try {
    const account = await accountForSender(db, box, email.organizationId, email.userId, sender.email)
    if (account !== undefined) return account.id
    addFieldError(errors, 'sender', `None of the email accounts of the email’s user sends as ${sender.email}.`)
  } catch (error) {
    if (!(error instanceof EmailAccountSecretError)) throw error
    addFieldError(errors, 'sender', error.message)
  }
  return null
}

/** Where a follow-up date may be: on an email that is or will be sent. */
function followupProblem(status: MessageStatus, data: EmailData, errors: Errors): void {
  if (data.followup_date !== null && (status === 'inbox' || status === 'error'))
    errors.followup_date = 'Only an email sent (or to be sent) has a followup_date.'
}

export const emailRoutes: FastifyPluginAsyncTypebox<Deps> = async (app, { db, dialect, clock, config }) => {
  typedRoutes(app, db, '/activity/email/', 'Email')
  const lock = dialect === 'postgres'

  /** Who writes, and when: one instant for every stamp of the write. */
  function writeContext(request: FastifyRequest) {
    const me = caller(request)
    const now = clock.now()
    return { me, now, ctx: changeContext(request, formatTimestamp(now)) }
  }

  app.post(
    '/activity/email/',
    {
      schema: {
        tags,
        summary: 'Log, draft, schedule or send an email (answers 200)',
        description:
          '`status`: `inbox` logs an email received, `sent` one sent elsewhere (nothing is sent; `sender` defaults to the user’s address), `draft` keeps a draft, `scheduled` sends it at `date_scheduled`, `outbox` sends it now or after `send_in` seconds (0–59). Scheduled and outbox emails need a recipient and a `sender` one of the user’s email accounts sends as. `template_id` without a body renders the template. Timestamps in the answer have no offset, as Close writes them.',
        body: createEmailBody,
      },
    },
    async (request) => {
      const body = request.body
      const { me, now, ctx } = writeContext(request)
      const view = await db.transaction().execute(async (tx) => {
        const errors: Errors = {}
        const organizationId = me.organizationId
        const lead = await findLead(tx, organizationId, body.lead_id)
        if (lead === undefined) errors.lead_id = 'Object does not exist.'
        const userId = body.user_id ?? me.userId
        if (body.user_id !== undefined && body.user_id !== null && !(await isMemberOf(tx, organizationId, userId)))
          errors.user_id = 'Not a user of your organization.'
        else checkNewMessageUser(me, userId, body.status)
        const content = await readEmailContent(tx, { organizationId, leadId: body.lead_id, lock }, body, errors)
        const status = body.status
        const { dateScheduled, sendIn } = readNewSend(status, body, now, errors)
        const contactId = content.contact_id ?? null
        const blank: EmailData = {
          direction: status === 'inbox' ? 'incoming' : 'outgoing',
          status,
          subject: '',
          body_text: '',
          body_html: '',
          sender: null,
          to: [],
          cc: [],
          bcc: [],
          attachments: [],
          date_scheduled: dateScheduled,
          date_sent: status === 'sent' || status === 'inbox' ? ctx.now : null,
          email_account_id: null,
          template_id: null,
          template_name: null,
          in_reply_to_id: null,
          message_ids: [],
          references: [],
          followup_date: null,
          send_attempts: [],
          error_message: null,
          activity_at: ctx.now,
        }
        const scope = { organizationId, leadId: body.lead_id, contactId, userId, tzOffsetHours: request.tzOffsetHours }
        const data = lead === undefined ? blank : await withContent(tx, blank, content, scope, errors)
        if (data.sender === null && status === 'sent') {
          const user = await tx.selectFrom('user').select('email').where('id', '=', userId).executeTakeFirst()
          data.sender = user?.email ?? null
        }
        if (data.sender === null && status === 'inbox') errors.sender = 'This field is required.'
        if (status === 'scheduled' || status === 'outbox')
          data.email_account_id = await sendingAccount(tx, config.secretBox, { organizationId, userId, data }, errors)
        followupProblem(status, data, errors)
        if (Object.keys(errors).length > 0) throw new ValidationError(errors)
        const { activityId } = await storeEmail(
          tx,
          { organizationId, leadId: body.lead_id, contactId, userId, createdBy: me.userId, data, now: ctx.now },
          ctx.events,
        )
        if (content.files !== undefined)
          await bindEmailAttachments(tx, { organizationId, activityId, now: ctx.now }, content.files)
        const dueAt = sendDue(status, now, sendIn, dateScheduled)
        if (dueAt !== null) await scheduleSend(tx, EMAIL_CHANNEL, { organizationId, activityId, dueAt, now: ctx.now })
        return oneActivity(tx, organizationId, activityId, 'Email')
      })
      return withoutOffsets(view ?? {})
    },
  )

  app.put(
    '/activity/email/:id/',
    {
      schema: {
        tags,
        summary: 'Edit a draft, send or schedule it, or take an email waiting to be sent back to draft',
        description:
          'From draft: `scheduled` (with `date_scheduled`) or `outbox` (optionally with `send_in`). From scheduled or outbox: `draft`, which cancels the send unless it is under way (then a 400). Only a draft’s content changes; content sent back as it is is no change. Timestamps in the answer have no offset.',
        params,
        body: updateEmailBody,
      },
    },
    async (request) => {
      const body = request.body
      const { me, now, ctx } = writeContext(request)
      const view = await db.transaction().execute(async (tx) => {
        const organizationId = me.organizationId
        const row = found(await findMessage(tx, 'Email', organizationId, request.params.id, lock), 'Email')
        const before = storedEmail(row)
        const errors: Errors = {}
        const content = await readEmailContent(
          tx,
          { organizationId, leadId: row.lead_id, emailId: row.id, lock },
          body,
          errors,
        )
        const contactId = content.contact_id === undefined ? row.contact_id : content.contact_id
        // A draft sends only as its own user (checked below), so a user since removed leaves it unsendable.
        const userId = row.user_id ?? me.userId
        const scope = { organizationId, leadId: row.lead_id, contactId, userId, tzOffsetHours: request.tzOffsetHours }
        const from = before.status
        // A non-draft is only checked against what was sent: a template is not rendered again for it.
        const edit = {
          before,
          after:
            from === 'draft'
              ? await withContent(tx, before, content, scope, errors)
              : { ...before, ...storedContent(content) },
          ownerId: row.user_id,
          contactMoved: contactId !== row.contact_id,
          content: CONTENT_FIELDS,
          noun: 'email',
        }
        const { change, after } = readMessageEdit(me, edit, body, now, errors)
        if (startsSend(change))
          after.email_account_id = await sendingAccount(
            tx,
            config.secretBox,
            { organizationId, userId, data: after },
            errors,
          )
        followupProblem(after.status, after, errors)
        if (Object.keys(errors).length > 0) throw new ValidationError(errors)
        if (same(after, before) && contactId === row.contact_id) return oneActivity(tx, organizationId, row.id, 'Email')

        if (stopsSend(change)) await stopSend(tx, EMAIL_CHANNEL, row, { now: ctx.now, why: 'draft' })
        let threadId = row.thread_id
        if (after.subject !== before.subject || after.in_reply_to_id !== before.in_reply_to_id) {
          threadId = await assignThread(tx, {
            organizationId,
            leadId: row.lead_id,
            subject: after.subject,
            inReplyToId: after.in_reply_to_id,
            now: ctx.now,
          })
        }
        await writeMessage(
          tx,
          row,
          { data: emailData(after), contactId, threadId },
          { userId: me.userId, now: ctx.now, action: 'updated', events: ctx.events },
        )
        if (threadId !== row.thread_id) await deleteThreadIfEmpty(tx, organizationId, row.thread_id)
        if (content.files !== undefined) {
          const email = { organizationId, activityId: row.id, now: ctx.now }
          await bindEmailAttachments(tx, email, content.files)
          // A draft's files it no longer lists go (no other email's attachments change).
          if (from === 'draft') await deleteUnlistedAttachments(tx, email, storedAttachmentIds(after.attachments))
        }
        const dueAt = startsSend(change) ? sendDue(change.to, now, change.sendIn, after.date_scheduled) : null
        if (dueAt !== null)
          await scheduleSend(tx, EMAIL_CHANNEL, { organizationId, activityId: row.id, dueAt, now: ctx.now })
        return oneActivity(tx, organizationId, row.id, 'Email')
      })
      return withoutOffsets(view ?? {})
    },
  )

  app.delete(
    '/activity/email/:id/',
    { schema: { tags, summary: 'Delete an email; one waiting to be sent is not sent', params } },
    async (request) => {
      const me = caller(request)
      const ctx = changeContext(request, formatTimestamp(clock.now()))
      await db.transaction().execute(async (tx) => {
        const row = found(await findMessage(tx, 'Email', me.organizationId, request.params.id, lock), 'Email')
        await deleteEmail(tx, ctx, row)
      })
      return {}
    },
  )
}

/** The content as the stored fields it would set, for comparing a non-draft with what a request sent back. */
function storedContent(content: EmailContent): Partial<EmailData> {
  const fields: Partial<EmailData> = {}
  for (const field of CONTENT_FIELDS) {
    const value = content[field]
    if (value !== undefined) Object.assign(fields, { [field]: value })
  }
  return fields
}
