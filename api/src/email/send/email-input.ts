import { Type } from '@sinclair/typebox'
import type { EmailAttachment } from '../../crm/activities/activity-repo.js'
import { checkContactOfLead } from '../../crm/contacts/contact-repo.js'
import type { Db } from '../../platform/data/database.js'
import {
  emailAttachmentUrl,
  findStoredFiles,
  storedAttachmentId,
  storedAttachmentIds,
  type FileBinding,
} from '../attachments/email-attachment-repo.js'
import { sendFields, statusSchema } from '../../integrations/messages/message-status.js'
import { newId } from '../../platform/security/ids.js'
import { hasControlCharacter, isHttpsUrl, NO_CONTROL_CHARACTERS } from '../../platform/text/text.js'
import { parseTimestamp, TIMESTAMP_EXPECTED } from '../../platform/data/time.js'
import { parseMailbox } from '../../platform/text/email-text.js'

// What a request may say about an email, and how it is checked: addresses one by one (`to.1`), the contact one of
// the email's lead, the email it answers one of the same lead, attachments on https or files uploaded, a follow-up
// date a timestamp.

const SUBJECT_MAX = 998
const BODY_MAX = 900_000
const ADDRESS_MAX = 998
const ADDRESSES_MAX = 100
const ATTACHMENTS_MAX = 20

const nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()])
const addresses = (description: string) =>
  Type.Optional(nullable(Type.Array(Type.String({ maxLength: ADDRESS_MAX }), { maxItems: ADDRESSES_MAX, description })))

const attachmentInput = Type.Object(
  {
    url: Type.String({
      maxLength: 2000,
      description:
        'An https:// URL the file is fetched from when the email is sent, or a stored file’s `url` (`/api/v1/email_attachment/{id}/`, from `POST /email_attachment/`), whose name, type and size are then its own.',
    }),
    filename: Type.String({ minLength: 1, maxLength: 255 }),
    content_type: Type.Optional(nullable(Type.String({ maxLength: 255 }))),
    size: Type.Integer({ minimum: 0, description: 'Bytes.' }),
    content_id: Type.Optional(nullable(Type.String({ maxLength: 255 }))),
  },
  { additionalProperties: true },
)

/** The fields only a draft may change. */
const contentFields = {
  contact_id: Type.Optional(nullable(Type.String({ description: 'A contact of the email’s lead.' }))),
  subject: Type.Optional(nullable(Type.String({ maxLength: SUBJECT_MAX }))),
  body_text: Type.Optional(
    nullable(Type.String({ maxLength: BODY_MAX, description: 'Without body_html: its HTML is this text escaped.' })),
  ),
  body_html: Type.Optional(
    nullable(Type.String({ maxLength: BODY_MAX, description: 'Without body_text: its text is this HTML’s.' })),
  ),
  sender: Type.Optional(nullable(Type.String({ maxLength: ADDRESS_MAX, description: '`a@b.c` or `"Name" <a@b.c>`.' }))),
  to: addresses('Recipients, each `a@b.c` or `"Name" <a@b.c>`.'),
  cc: addresses('Copied recipients.'),
  bcc: addresses('Blind-copied recipients: delivered to, never in the headers.'),
  attachments: Type.Optional(nullable(Type.Array(attachmentInput, { maxItems: ATTACHMENTS_MAX }))),
  in_reply_to_id: Type.Optional(nullable(Type.String({ description: 'An email of the same lead this one answers.' }))),
  template_id: Type.Optional(
    nullable(
      Type.String({ description: 'Without a body: the body (and, without a subject, the subject) rendered from it.' }),
    ),
  ),
  followup_date: Type.Optional(
    nullable(
      Type.String({ description: 'Once sent, an email_followup task on this date unless a reply comes first.' }),
    ),
  ),
}

/** Close's clients send read-only fields back (`direction`, `date_created`…): they are ignored. */
export const createEmailBody = Type.Object(
  {
    lead_id: Type.String(),
    status: statusSchema(['inbox', 'draft', 'scheduled', 'outbox', 'sent']),
    user_id: Type.Optional(
      nullable(Type.String({ description: 'Whose email it is (a member); the caller by default.' })),
    ),
    ...contentFields,
    ...sendFields,
  },
  { additionalProperties: true },
)

export const updateEmailBody = Type.Object(
  {
    status: Type.Optional(statusSchema(['inbox', 'draft', 'scheduled', 'outbox', 'sent', 'error'])),
    ...contentFields,
    ...sendFields,
  },
  { additionalProperties: true, description: 'Only a draft’s content may change; `status` moves it.' },
)

/** The content fields of a request, as typed by the schema. */
export interface EmailContentInput {
  contact_id?: string | null
  subject?: string | null
  body_text?: string | null
  body_html?: string | null
  sender?: string | null
  to?: string[] | null
  cc?: string[] | null
  bcc?: string[] | null
  attachments?:
    { url: string; filename: string; content_type?: string | null; size: number; content_id?: string | null }[] | null
  in_reply_to_id?: string | null
  template_id?: string | null
  followup_date?: string | null
}

/** Content as stored: only the fields the request gave, checked. */
export interface EmailContent {
  contact_id?: string | null
  subject?: string
  body_text?: string | null
  body_html?: string | null
  sender?: string | null
  to?: string[]
  cc?: string[]
  bcc?: string[]
  attachments?: EmailAttachment[]
  in_reply_to_id?: string | null
  template_id?: string | null
  followup_date?: string | null
  /** Not a field: what the stored files among `attachments` need once the email is written. */
  files?: FileBinding
}

/**
 * An email's attachments as stored, each an https URL (fetched when it is sent) or a stored file of the organization
 * (`attachments.2.url` when it is neither); a stored file's name, type and size are its own, whatever the request
 * says. A file in no email becomes this email's; one of another email is copied for it, under the id it then lists.
 */
async function readAttachments(
  db: Db,
  scope: ContentScope,
  given: NonNullable<EmailContentInput['attachments']>,
  errors: Record<string, string>,
): Promise<{ attachments: EmailAttachment[]; files: FileBinding }> {
  const storedIds = storedAttachmentIds(given)
  const stored = await findStoredFiles(db, scope.organizationId, [...new Set(storedIds)], scope.lock)
  const files: FileBinding = { bind: [], copy: [] }
  const copies = new Map<string, string>()
  const attachments = given.map((a, i): EmailAttachment => {
    for (const field of ['filename', 'content_type', 'content_id'] as const) {
      const value = a[field]
      if (typeof value === 'string' && hasControlCharacter(value))
        errors[`attachments.${String(i)}.${field}`] = NO_CONTROL_CHARACTERS
    }
    const id = storedAttachmentId(a.url)
    if (id === undefined) {
      if (!isHttpsUrl(a.url)) errors[`attachments.${String(i)}.url`] = 'Must be an https:// URL or a file uploaded.'
      return {
        url: a.url,
        filename: a.filename,
        content_type: a.content_type ?? null,
        size: a.size,
        ...(a.content_id === undefined || a.content_id === null ? {} : { content_id: a.content_id }),
      }
    }
    const file = stored.get(id)
    if (file === undefined) {
      errors[`attachments.${String(i)}.url`] = 'Not a file of your organization.'
      return { url: a.url, filename: a.filename, content_type: a.content_type ?? null, size: a.size }
    }
    let listedId = id
    if (file.activity_id === null) {
      if (!files.bind.includes(id)) files.bind.push(id)
    } else if (file.activity_id !== scope.emailId) {
      const copied = copies.get(id)
      listedId = copied ?? newId('emailAttachment')
      if (copied === undefined) {
        files.copy.push({ from: id, to: listedId })
        copies.set(id, listedId)
      }
    }
    return {
      url: emailAttachmentUrl(listedId),
      filename: file.filename,
      content_type: file.content_type,
      size: file.size,
      content_id: a.content_id ?? file.content_id,
    }
  })
  return { attachments, files }
}

/** Why an address (a recipient, the sender) as given cannot be stored, if it cannot. */
function addressProblem(address: string): string | undefined {
  // Refused, not cleaned: a line break in an address is a header injection, and what is stored must be what is sent.
  if (hasControlCharacter(address)) return NO_CONTROL_CHARACTERS
  return parseMailbox(address.trim()) === undefined ? 'Enter a valid email address.' : undefined
}

/** A list of addresses, each checked (`to.1`: the second is not an address), trimmed. */
function readAddresses(field: string, raw: string[] | null, errors: Record<string, string>): string[] {
  return (raw ?? []).map((address, i) => {
    const problem = addressProblem(address)
    if (problem !== undefined) errors[`${field}.${String(i)}`] = problem
    return address.trim()
  })
}

/** Whose content it is: the email's organization and lead, and the email itself once it exists. */
export interface ContentScope {
  organizationId: string
  leadId: string
  /** The email edited; undefined for one being made. */
  emailId?: string
  /** Whether the rows read are locked to the end of the transaction (Postgres). */
  lock: boolean
}

/**
 * Checks the content a request gave, for an email of `leadId`, adding a message to `errors` for each field that is
 * wrong; answers the content as stored.
 */
export async function readEmailContent(
  db: Db,
  scope: ContentScope,
  body: EmailContentInput,
  errors: Record<string, string>,
): Promise<EmailContent> {
  const content: EmailContent = {}
  if (body.subject !== undefined) {
    content.subject = body.subject ?? ''
    if (hasControlCharacter(content.subject)) errors.subject = NO_CONTROL_CHARACTERS
  }
  if (body.body_text !== undefined) content.body_text = body.body_text
  if (body.body_html !== undefined) content.body_html = body.body_html
  if (body.sender !== undefined) {
    const sender = body.sender === null || body.sender.trim() === '' ? null : body.sender.trim()
    const problem = body.sender === null ? undefined : addressProblem(body.sender)
    if (sender !== null && problem !== undefined) errors.sender = problem
    content.sender = sender
  }
  for (const field of ['to', 'cc', 'bcc'] as const) {
    const given = body[field]
    if (given !== undefined) content[field] = readAddresses(field, given, errors)
  }
  if (body.contact_id !== undefined) {
    if (await checkContactOfLead(db, scope.organizationId, scope.leadId, body.contact_id, errors))
      content.contact_id = body.contact_id
  }
  if (body.in_reply_to_id !== undefined) {
    const answered =
      body.in_reply_to_id === null
        ? null
        : await db
            .selectFrom('activity')
            .select('id')
            .where('organization_id', '=', scope.organizationId)
            .where('lead_id', '=', scope.leadId)
            .where('type', '=', 'Email')
            .where('id', '=', body.in_reply_to_id)
            .executeTakeFirst()
    if (answered === undefined) errors.in_reply_to_id = 'Not an email of this lead.'
    else content.in_reply_to_id = answered === null ? null : answered.id
  }
  if (body.attachments !== undefined) {
    const read = await readAttachments(db, scope, body.attachments ?? [], errors)
    content.attachments = read.attachments
    content.files = read.files
  }
  if (body.template_id !== undefined) content.template_id = body.template_id
  if (body.followup_date !== undefined) {
    if (body.followup_date === null) content.followup_date = null
    else {
      const at = parseTimestamp(body.followup_date)
      if (at === undefined) errors.followup_date = TIMESTAMP_EXPECTED
      else content.followup_date = at
    }
  }
  return content
}
