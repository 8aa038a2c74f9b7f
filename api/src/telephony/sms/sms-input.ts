import { Type } from '@sinclair/typebox'
import type { Db } from '../../platform/data/database.js'
import type { SmsAttachment } from '../../crm/activities/activity-repo.js'
import { checkContactOfLead } from '../../crm/contacts/contact-repo.js'
import { findInternalPhoneNumber } from '../phone-numbers/phone-number-repo.js'
import { attachmentInputSchema, readAttachments, type AttachmentInput } from '../../platform/http/attachments.js'
import { addFieldError, sendFields, statusSchema } from '../../integrations/messages/message-status.js'
import { normalizeContactPhone, normalizePhoneNumber } from '../../platform/text/phone-format.js'

// What a request may say about a text message, and how it is checked: phones normalized (the remote one like a
// contact's, the local one strictly, and only one of the organization's internal numbers), attachments on https,
// the contact one of the message's lead, a scheduled time in the future.

const TEXT_MAX = 10_000
const PHONE_MAX = 64
const ATTACHMENTS_MAX = 10

const nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()])

/** The fields only a draft may change. */
const contentFields = {
  text: Type.Optional(Type.String({ maxLength: TEXT_MAX })),
  remote_phone: Type.Optional(
    nullable(Type.String({ maxLength: PHONE_MAX, description: 'The other party; kept like a contact’s phone.' })),
  ),
  contact_id: Type.Optional(nullable(Type.String({ description: 'A contact of the message’s lead.' }))),
  attachments: Type.Optional(
    nullable(Type.Array(attachmentInputSchema, { maxItems: ATTACHMENTS_MAX, description: 'MMS: files sent with it.' })),
  ),
}
const localPhone = Type.String({ maxLength: PHONE_MAX, description: 'One of the organization’s internal numbers.' })
export const createSmsBody = Type.Object(
  {
    lead_id: Type.String(),
    status: statusSchema(['inbox', 'draft', 'scheduled', 'outbox', 'sent']),
    ...contentFields,
    local_phone: localPhone,
    source: Type.Optional(Type.Union([Type.Literal('External'), Type.Literal('Close.io')])),
    ...sendFields,
  },
  { additionalProperties: false },
)

export const updateSmsBody = Type.Object(
  {
    status: Type.Optional(statusSchema(['inbox', 'draft', 'scheduled', 'outbox', 'sent', 'error'])),
    ...contentFields,
    local_phone: Type.Optional(localPhone),
    ...sendFields,
  },
  { additionalProperties: false, description: 'Only a draft’s content may change; `status` moves it.' },
)

export interface ContentInput {
  text?: string
  remote_phone?: string | null
  local_phone?: string
  contact_id?: string | null
  attachments?: AttachmentInput[] | null
}

/** Content as stored: only the fields the request gave. */
export interface Content {
  text?: string
  remote_phone?: string | null
  local_phone?: string
  contact_id?: string | null
  attachments?: SmsAttachment[]
}

/**
 * Normalizes and checks the content a request gave (for a message of `leadId`, in an organization of `country`),
 * adding a message to `errors` for each field that is wrong.
 */
export async function readContent(
  db: Db,
  scope: { organizationId: string; leadId: string; country: string },
  body: ContentInput,
  errors: Record<string, string>,
): Promise<Content> {
  const content: Content = {}
  if (body.text !== undefined) content.text = body.text
  if (body.remote_phone !== undefined) {
    const phone = body.remote_phone === null ? null : normalizeContactPhone(body.remote_phone, scope.country)
    if (phone === undefined) errors.remote_phone = 'Enter a valid phone number.'
    else content.remote_phone = phone
  }
  if (body.local_phone !== undefined) {
    const phone = normalizePhoneNumber(body.local_phone, scope.country)
    if (phone === undefined) errors.local_phone = 'Enter a valid phone number.'
    else if ((await findInternalPhoneNumber(db, scope.organizationId, phone)) === undefined)
      errors.local_phone = 'Not one of your organization’s internal phone numbers.'
    else content.local_phone = phone
  }
  if (body.contact_id !== undefined) {
    if (await checkContactOfLead(db, scope.organizationId, scope.leadId, body.contact_id, errors))
      content.contact_id = body.contact_id
  }
  if (body.attachments !== undefined) content.attachments = readAttachments(body.attachments ?? [], errors)
  return content
}

/** The lead's first contact (oldest first) with this phone as stored, if any: whom a message to it is with. */
export async function contactWithPhone(db: Db, organizationId: string, leadId: string, phone: string) {
  const found = await db
    .selectFrom('contact_phone')
    .innerJoin('contact', 'contact.id', 'contact_phone.contact_id')
    .select('contact_phone.contact_id')
    .where('contact_phone.organization_id', '=', organizationId)
    .where('contact_phone.lead_id', '=', leadId)
    .where('contact_phone.phone', '=', phone)
    .orderBy('contact.date_created')
    .orderBy('contact.id')
    .limit(1)
    .executeTakeFirst()
  return found?.contact_id ?? null
}

/** What a message needs before it may be sent (or recorded as sent or received): someone to go to and something to say. */
export function sendableProblems(
  message: { remote_phone: string | null; text: string; attachments: readonly SmsAttachment[] },
  errors: Record<string, string>,
): void {
  if (message.remote_phone === null) addFieldError(errors, 'remote_phone', 'This field is required.')
  if (message.text.trim() === '' && message.attachments.length === 0)
    addFieldError(errors, 'text', 'This field may not be blank.')
}
