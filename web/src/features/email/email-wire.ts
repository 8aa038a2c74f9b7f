import type { Activity } from '@leadline/shared/activity-schema'

// The wire shapes the email screens read. Email accounts (`/me/`) and templates get their schemas in
// `@leadline/shared` with their API; until then, only the fields read here.

export type EmailActivity = Extract<Activity, { _type: 'Email' }>

/** One of the user's email accounts as `/me/` lists it: the names and addresses it sends as. */
export interface EmailAccount {
  id: string
  email: string
  identities: { name: string; email: string }[]
}

/** `/me/`, for the user's email accounts. */
export interface Me {
  id: string
  email_accounts?: EmailAccount[]
}

/** An email template as `/email_template/` lists it. */
export interface EmailTemplate {
  id: string
  name: string
  is_shared: boolean
}

/** `GET /email_template/{id}/render/?lead_id=&contact_id=`. */
export interface RenderedEmailTemplate {
  subject: string
  body_text: string
  body_html: string
  warnings: string[]
}
