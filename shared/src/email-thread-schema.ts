import { Type, type Static } from '@sinclair/typebox'
import { timestampSchema } from './list.js'

const nullableString = () => Type.Union([Type.String(), Type.Null()])

/** A file sent or received with an email. */
export const emailAttachmentSchema = Type.Object({
  url: Type.String({ description: 'Received files: `/api/v1/email_attachment/{id}/`, below the API’s origin.' }),
  filename: Type.String(),
  content_type: nullableString(),
  size: Type.Integer({ description: 'Bytes.' }),
  content_id: Type.Optional(nullableString()),
})

/** An email as a thread lists it: who, when, and a preview, without its bodies. */
export const threadEmailSchema = Type.Object({
  id: Type.String(),
  _type: Type.Literal('Email'),
  status: Type.String({ description: 'inbox, draft, scheduled, outbox, sent, error' }),
  direction: Type.String({ description: 'incoming or outgoing' }),
  sender: nullableString(),
  to: Type.Array(Type.String()),
  cc: Type.Array(Type.String()),
  subject: Type.String(),
  body_preview: Type.String(),
  date_created: timestampSchema,
  date_sent: Type.Union([timestampSchema, Type.Null()]),
  activity_at: timestampSchema,
  attachments: Type.Array(emailAttachmentSchema),
  user_id: nullableString(),
})
export type ThreadEmail = Static<typeof threadEmailSchema>

/** An address that took part in a thread. */
export const participantSchema = Type.Object({ email: Type.String(), name: Type.String() })

/** An email conversation on a lead, read from its emails. */
export const emailThreadSchema = Type.Object({
  id: Type.String(),
  _type: Type.Literal('EmailThread'),
  organization_id: Type.String(),
  lead_id: Type.String(),
  contact_id: Type.Union([Type.String(), Type.Null()], { description: 'Its latest email’s.' }),
  user_id: Type.Union([Type.String(), Type.Null()], { description: 'Its latest email’s.' }),
  date_created: Type.Union([timestampSchema], {
    description: 'Its latest email’s: where the thread sits in a list ordered by `date_created`.',
  }),
  date_updated: timestampSchema,
  activity_at: Type.Union([timestampSchema], { description: 'Its latest email’s.' }),
  latest_normalized_subject: Type.String({ description: 'The latest subject without its `Re:`/`Fwd:` prefixes.' }),
  n_emails: Type.Integer(),
  participants: Type.Array(participantSchema, { description: 'Every address in its emails (From, To, Cc), once.' }),
  users: Type.Array(Type.String(), { description: 'The users whose emails are in it.' }),
  emails: Type.Optional(
    Type.Array(threadEmailSchema, { description: 'Newest first; left out with `thread_emails=only`.' }),
  ),
})
export type EmailThread = Static<typeof emailThreadSchema>
