import { Type, type Static } from '@sinclair/typebox'
import { hasControlCharacter, isHttpsUrl, NO_CONTROL_CHARACTERS } from '../text/text.js'

/** A file sent with a message (a text, an email, every email made from a template), as a request gives it. */
export const attachmentInputSchema = Type.Object(
  {
    url: Type.String({ maxLength: 2000, description: 'An https:// URL the file can be fetched from.' }),
    filename: Type.String({ minLength: 1, maxLength: 255 }),
    content_type: Type.String({ maxLength: 255, pattern: '^[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]*/[A-Za-z0-9!#$&^_.+-]+$' }),
    size: Type.Optional(Type.Union([Type.Integer({ minimum: 0, description: 'Bytes.' }), Type.Null()])),
  },
  { additionalProperties: false },
)
export type AttachmentInput = Static<typeof attachmentInputSchema>

/** An attachment as stored and shown. */
export interface Attachment {
  url: string
  filename: string
  content_type: string
  size: number | null
}

/**
 * The attachments as stored (`size` null when not given); a field error for each URL not https (`<field>.<i>.url`)
 * and each file name with a control character (`<field>.<i>.filename`: it goes into a header).
 */
export function readAttachments(
  input: readonly AttachmentInput[],
  errors: Record<string, string>,
  field = 'attachments',
): Attachment[] {
  input.forEach((attachment, i) => {
    if (!isHttpsUrl(attachment.url)) errors[`${field}.${String(i)}.url`] = 'Must be an https:// URL.'
    if (hasControlCharacter(attachment.filename)) errors[`${field}.${String(i)}.filename`] = NO_CONTROL_CHARACTERS
  })
  return input.map((a) => ({ url: a.url, filename: a.filename, content_type: a.content_type, size: a.size ?? null }))
}
