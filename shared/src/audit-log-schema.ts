import { Type, type Static } from '@sinclair/typebox'

// An entry of the audit log (decision 0073): who did what to which object, when and from which address.

export const AUDIT_ACTIONS = [
  'sign_in',
  'sign_in_failed',
  'api_key_created',
  'api_key_revoked',
  'role_changed',
  'member_deactivated',
  'member_reactivated',
  'export_created',
  'import_created',
  'import_run',
  'import_undo',
  'webhook_created',
  'webhook_updated',
  'webhook_deleted',
  'single_sign_on_changed',
  'bulk_delete',
] as const
export type AuditAction = (typeof AUDIT_ACTIONS)[number]

/** The largest `_limit` of `/audit_log/`. */
export const AUDIT_LOG_LIMIT_MAX = 100

const nullable = (description: string) => Type.Union([Type.String(), Type.Null()], { description })

export const auditEntrySchema = Type.Object({
  id: Type.String({ description: 'The entry’s event id (`ev_…`).' }),
  date_created: Type.String({ description: 'When it happened (UTC).' }),
  action: Type.String({ description: `One of ${AUDIT_ACTIONS.join(', ')}.` }),
  user_id: nullable('Who did it; null for a failed sign-in, whose actor is not known.'),
  actor_name: nullable('Their name when they did it.'),
  actor_email: nullable('Their email when they did it; for a failed sign-in, the email tried.'),
  object_type: Type.String({
    description: '`user`, `api_key`, `membership`, `export`, `import`, `webhook`, `single_sign_on` or `bulk_delete`.',
  }),
  object_id: Type.String(),
  client_address: nullable('The address the request came from, as the api trusts it (LEADLINE_TRUST_PROXY).'),
  details: Type.Record(Type.String(), Type.Unknown(), {
    description: 'What else the entry says: a sign-in’s method, a role’s old and new value, an export’s kind…',
  }),
  request_id: nullable('The API request (`req_…`).'),
  api_key_id: nullable('The API key of that request; for a sign-in, the session’s new key.'),
})
export type AuditEntry = Static<typeof auditEntrySchema>
