import { Type, type Static } from '@sinclair/typebox'
import { smsAttachmentSchema } from './activity-schema.js'
import { timestampSchema } from './list.js'

/** A file sent with every email made from the template (`size` in bytes). */
export const emailTemplateAttachmentSchema = smsAttachmentSchema

/** An email template as `/email_template/` answers it: `subject` and `body` (HTML) are Liquid templates. */
export const emailTemplateSchema = Type.Object({
  id: Type.String(),
  organization_id: Type.String(),
  name: Type.String(),
  subject: Type.String(),
  body: Type.String({ description: 'HTML with Liquid placeholders such as {{ contact.first_name }}.' }),
  is_shared: Type.Boolean({ description: 'Shared with the whole organization (only admins change these).' }),
  is_archived: Type.Boolean(),
  attachments: Type.Array(emailTemplateAttachmentSchema),
  created_by: Type.Union([Type.String(), Type.Null()]),
  updated_by: Type.Union([Type.String(), Type.Null()]),
  date_created: timestampSchema,
  date_updated: timestampSchema,
})
export type EmailTemplate = Static<typeof emailTemplateSchema>

/** A template rendered for a lead and contact as a user sees it (`GET /email_template/{id}/render/`). */
export const renderedEmailTemplateSchema = Type.Object({
  subject: Type.String(),
  body: Type.String({ description: 'The same as `body_html` (Close’s name).' }),
  body_html: Type.String({ description: 'Every placeholder’s value HTML-escaped.' }),
  body_text: Type.String({ description: 'The plain-text form of `body_html`.' }),
  warnings: Type.Array(Type.String(), {
    description: 'Placeholders that do not exist: each rendered empty.',
  }),
})
export type RenderedEmailTemplate = Static<typeof renderedEmailTemplateSchema>
