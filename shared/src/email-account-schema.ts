import { Type, type Static } from '@sinclair/typebox'
import { timestampSchema } from './list.js'

/** A name and address a user may send as. */
export const emailIdentitySchema = Type.Object({
  name: Type.String({ description: 'The name recipients see; may be blank.' }),
  email: Type.String(),
  verified: Type.Boolean({
    description:
      'Whether the address may be sent as and receives mail: proven by the link emailed to it ' +
      '(`POST /email_account/verify_identity/`), or the account’s own address set by an admin. ' +
      '`POST /email_account/{id}/send_verification/` sends the link again.',
  }),
})
export type EmailIdentityView = Static<typeof emailIdentitySchema>

/** An account's SMTP server as it is shown: never the password, only whether there is one. */
export const smtpViewSchema = Type.Object({
  host: Type.String(),
  port: Type.Integer(),
  username: Type.Union([Type.String(), Type.Null()]),
  use_ssl: Type.Boolean({ description: 'TLS from the start of the connection (SMTPS, usually port 465).' }),
  has_password: Type.Boolean(),
})

export const emailAccountSchema = Type.Object({
  id: Type.String(),
  organization_id: Type.String(),
  user_id: Type.String(),
  email: Type.String({ description: 'The address the account sends as, lowercased.' }),
  identities: Type.Array(emailIdentitySchema, {
    description: 'Who the user may send as through this account; the account’s own address is always one.',
  }),
  default_identity: emailIdentitySchema,
  smtp: smtpViewSchema,
  last_error: Type.Union(
    [
      Type.Object({
        message: Type.String({ description: 'What the SMTP server answered, or why it could not be reached.' }),
        date: timestampSchema,
      }),
      Type.Null(),
    ],
    {
      description:
        'Leadline: the failure of the latest send through the account (an email, a verification link or ' +
        '`send_test`); null once a send went through.',
    },
  ),
  created_by: Type.Union([Type.String(), Type.Null()]),
  updated_by: Type.Union([Type.String(), Type.Null()]),
  date_created: timestampSchema,
  date_updated: timestampSchema,
})
export type EmailAccountView = Static<typeof emailAccountSchema>
