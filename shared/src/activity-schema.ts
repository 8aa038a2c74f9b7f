import { Type, type Static } from '@sinclair/typebox'
import { commonFieldsSchema, timestampSchema } from './list.js'
import { opportunityStatusTypeSchema } from './status-schema.js'

const nullableString = () => Type.Union([Type.String(), Type.Null()])

const activityBase = {
  id: Type.String(),
  organization_id: Type.String(),
  lead_id: Type.String(),
  contact_id: nullableString(),
  user_id: nullableString(),
  user_name: nullableString(),
  ...commonFieldsSchema,
  /** When the activity happened: its date_created unless the activity says otherwise. */
  activity_at: timestampSchema,
  users: Type.Array(Type.String(), { description: 'Other users who took part; none for these types.' }),
}

export const createdActivitySchema = Type.Object({
  ...activityBase,
  _type: Type.Literal('Created'),
  source: Type.String(),
  import_id: nullableString(),
})
export const noteActivitySchema = Type.Object({
  ...activityBase,
  _type: Type.Literal('Note'),
  note: Type.String(),
  note_html: Type.String({ description: 'The note escaped, paragraphs in <p>, line breaks as <br>.' }),
})
export const leadStatusChangeActivitySchema = Type.Object({
  ...activityBase,
  _type: Type.Literal('LeadStatusChange'),
  old_status_id: nullableString(),
  old_status_label: nullableString(),
  new_status_id: Type.String(),
  new_status_label: Type.String(),
})

export const opportunityStatusChangeActivitySchema = Type.Object({
  ...activityBase,
  _type: Type.Literal('OpportunityStatusChange'),
  opportunity_id: Type.String(),
  old_status_id: nullableString(),
  old_status_label: nullableString(),
  old_status_type: Type.Union([opportunityStatusTypeSchema, Type.Null()]),
  new_status_id: Type.String(),
  new_status_label: Type.String(),
  new_status_type: opportunityStatusTypeSchema,
  opportunity_value: Type.Union([Type.Integer(), Type.Null()]),
  opportunity_value_period: Type.String(),
  opportunity_value_currency: Type.String(),
  opportunity_value_formatted: nullableString(),
  opportunity_confidence: Type.Integer(),
  opportunity_date_won: Type.Union([Type.String({ description: 'YYYY-MM-DD' }), Type.Null()]),
})

export const taskCompletedActivitySchema = Type.Object({
  ...activityBase,
  _type: Type.Literal('TaskCompleted'),
  task_id: Type.String(),
  task_text: Type.String(),
})

/** Fields calls and messages share: the phones (E.164, formatted and their countries) and the contact's name. */
const phoneActivityBase = {
  ...activityBase,
  direction: Type.Union([Type.Literal('inbound'), Type.Literal('outbound')]),
  source: Type.Union([Type.Literal('External'), Type.Literal('Close.io')]),
  remote_phone: nullableString(),
  remote_phone_formatted: nullableString(),
  remote_country_iso: nullableString(),
  local_phone: nullableString(),
  local_phone_formatted: nullableString(),
  local_country_iso: nullableString(),
  contact_name: nullableString(),
  created_by_name: nullableString(),
  updated_by_name: nullableString(),
}

export const callStatusSchema = Type.Union(
  ['created', 'in-progress', 'completed', 'cancel', 'no-answer', 'busy', 'failed', 'timeout'].map((s) =>
    Type.Literal(s),
  ),
)

export const callActivitySchema = Type.Object({
  ...phoneActivityBase,
  _type: Type.Literal('Call'),
  status: Type.String({ description: 'created, in-progress, completed, cancel, no-answer, busy, failed, timeout' }),
  disposition: Type.Union([Type.String(), Type.Null()], {
    description: 'answered, no-answer, busy, vm-answer, vm-left, blocked, error',
  }),
  duration: Type.Integer({ description: 'Seconds.' }),
  note: nullableString(),
  phone: nullableString(),
  recording_url: nullableString(),
  has_recording: Type.Boolean(),
  voicemail_url: nullableString(),
  voicemail_duration: Type.Integer(),
  call_method: Type.String(),
  outcome_id: nullableString(),
})

export const smsStatusSchema = Type.Union(
  ['inbox', 'draft', 'scheduled', 'outbox', 'sent', 'error'].map((s) => Type.Literal(s)),
)

export const smsAttachmentSchema = Type.Object({
  url: Type.String(),
  filename: Type.String(),
  content_type: Type.String(),
  size: Type.Union([Type.Integer(), Type.Null()]),
})

export const smsActivitySchema = Type.Object({
  ...phoneActivityBase,
  _type: Type.Literal('SMS'),
  status: Type.String({ description: 'inbox, draft, scheduled, outbox, sent, error' }),
  text: Type.String(),
  date_scheduled: nullableString(),
  date_sent: nullableString(),
  error_message: nullableString(),
  attachments: Type.Array(smsAttachmentSchema),
  send_attempts: Type.Array(Type.Object({ date: Type.String(), error: Type.String() }), {
    description: 'Failed attempts at sending through the provider, oldest first (not in Close).',
  }),
  template_id: nullableString(),
})

const emailAddressSchema = Type.Object({ email: Type.String(), name: Type.String() })

/** Close's Email activity: an email written, scheduled, sent or received on a lead, in a thread (`thread_id`). */
export const emailActivitySchema = Type.Object({
  ...activityBase,
  _type: Type.Literal('Email'),
  created_by_name: nullableString(),
  updated_by_name: nullableString(),
  direction: Type.String({ description: 'outgoing or incoming' }),
  status: Type.String({ description: 'inbox, draft, scheduled, outbox, sent, error' }),
  thread_id: nullableString(),
  subject: Type.String(),
  body_text: Type.String(),
  body_html: Type.String(),
  body_preview: Type.String(),
  body_text_quoted: Type.Array(Type.Object({ text: Type.String(), expand: Type.Boolean() }), {
    description: 'The text split into the email’s own words (`expand: true`) and the text it quotes.',
  }),
  body_html_quoted: Type.Array(Type.Object({ html: Type.String(), expand: Type.Boolean() })),
  sender: nullableString(),
  to: Type.Array(Type.String()),
  cc: Type.Array(Type.String()),
  bcc: Type.Array(Type.String()),
  envelope: Type.Object({
    from: Type.Array(emailAddressSchema),
    to: Type.Array(emailAddressSchema),
    cc: Type.Array(emailAddressSchema),
  }),
  attachments: Type.Array(
    Type.Object({
      url: Type.String(),
      filename: Type.String(),
      content_type: nullableString(),
      size: Type.Integer(),
    }),
  ),
  date_scheduled: nullableString(),
  date_sent: nullableString(),
  email_account_id: nullableString(),
  template_id: nullableString(),
  template_name: nullableString(),
  in_reply_to_id: nullableString(),
  error_message: nullableString(),
  send_attempts: Type.Array(Type.Object({ date: Type.String(), error: Type.String() }), {
    description: 'Failed attempts at handing the email to its SMTP server, oldest first (not in Close).',
  }),
  sender_check: Type.Union(
    [
      Type.Object({
        result: Type.Union([Type.Literal('pass'), Type.Literal('fail'), Type.Literal('none')]),
        reason: Type.String(),
      }),
      Type.Null(),
    ],
    {
      description:
        'Not in Close; read-only. What the SMTP receiver found of a received email’s sender (SPF, DKIM, DMARC): `pass`, the From domain vouches for it; `fail`, it disowns it (the email completed no follow-up and was matched to no contact by its address); `none`, nothing said either way. Null for every other email.',
    },
  ),
})

export const activitySchema = Type.Union([
  createdActivitySchema,
  noteActivitySchema,
  leadStatusChangeActivitySchema,
  opportunityStatusChangeActivitySchema,
  taskCompletedActivitySchema,
  callActivitySchema,
  smsActivitySchema,
  emailActivitySchema,
])
export type Activity = Static<typeof activitySchema>
export type ActivityType = Activity['_type']
