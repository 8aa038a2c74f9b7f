/** Id prefixes of every resource (ARCHITECTURE.md §5). */
export const ID_PREFIXES = {
  lead: 'lead_',
  contact: 'cont_',
  activity: 'acti_',
  opportunity: 'oppo_',
  status: 'stat_',
  task: 'task_',
  notification: 'noti_',
  user: 'user_',
  organization: 'orga_',
  membership: 'memb_',
  customField: 'cf_',
  emailAccount: 'emailacct_',
  phoneNumber: 'phon_',
  template: 'tmpl_',
  pipeline: 'pipe_',
  webhook: 'whsub_',
  event: 'ev_',
  request: 'req_',
  apiKey: 'key_',
  /** An outbox delivery; also the Standard Webhooks `webhook-id` of its requests. */
  outbox: 'msg_',
  outboxAttempt: 'atmp_',
  /** A call (or meeting) outcome, as Close names them. */
  outcome: 'outcome_',
  /** A file received with an email (`/email_attachment/{id}/`). */
  emailAttachment: 'attach_',
  /** An invitation to join an organization (`/invitation/{id}/`). */
  invitation: 'inv_',
  /** A password-reset link (never shown: only its emailed token is). */
  passwordReset: 'pwreset_',
  /** An export of leads or opportunities, as Close names them. */
  export: 'expo_',
  /** A CSV import (`/import/{id}/`). */
  import: 'impo_',
  /** A Smart View (`/saved_search/{id}/`), as Close names them. */
  savedSearch: 'save_',
  /** A bulk edit of leads (`/bulk_action/edit/{id}/`), as Close names them. */
  bulkEdit: 'bulkedit_',
  /** A bulk delete of leads (`/bulk_action/delete/{id}/`). */
  bulkDelete: 'bulkdelete_',
} as const

export type IdKind = keyof typeof ID_PREFIXES

/** How many base62 characters follow the prefix: random, or for the api's time-ordered kinds the time and then random. */
export const ID_RANDOM_LENGTH: Record<IdKind, number> = {
  lead: 43,
  contact: 43,
  activity: 43,
  opportunity: 43,
  status: 43,
  task: 43,
  notification: 43,
  user: 43,
  organization: 43,
  membership: 43,
  customField: 43,
  emailAccount: 43,
  phoneNumber: 43,
  template: 43,
  pipeline: 22,
  webhook: 22,
  event: 22,
  request: 22,
  apiKey: 22,
  outbox: 22,
  outboxAttempt: 22,
  outcome: 43,
  emailAttachment: 43,
  invitation: 43,
  passwordReset: 43,
  export: 43,
  import: 43,
  savedSearch: 43,
  bulkEdit: 43,
  bulkDelete: 43,
}

export const BASE62_ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'

export function isIdOf(kind: IdKind, value: string): boolean {
  const prefix = ID_PREFIXES[kind]
  if (!value.startsWith(prefix)) return false
  const rest = value.slice(prefix.length)
  return rest.length === ID_RANDOM_LENGTH[kind] && /^[0-9A-Za-z]+$/.test(rest)
}
