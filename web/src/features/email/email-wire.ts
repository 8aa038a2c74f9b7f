import type { Activity } from '@leadline/shared/activity-schema'
import type { EmailAccountView } from '@leadline/shared/email-account-schema'

// The wire shapes the email screens read that have no schema of their own in `@leadline/shared`.

export type EmailActivity = Extract<Activity, { _type: 'Email' }>

/** One of the user's email accounts: the names and addresses it sends as. */
export type EmailAccount = Pick<EmailAccountView, 'id' | 'email' | 'identities'>

/** `/me/`, as far as the composer reads it: the user's email accounts. */
export interface Me {
  id: string
  email_accounts: EmailAccountView[]
}
