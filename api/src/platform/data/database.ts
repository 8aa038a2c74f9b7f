import { mkdirSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, resolve } from 'node:path'
import SqliteDatabase from 'better-sqlite3'
import {
  Kysely,
  PostgresDialect,
  SqliteDialect,
  sql,
  type ColumnType,
  type Generated,
  type LogConfig,
  type Selectable,
  type SqliteDatabase as KyselySqliteDatabase,
  type SqliteStatement,
  type Transaction,
} from 'kysely'
import type pg from 'pg'
import { foldCase } from '../text/text.js'
import { copyingPool } from './postgres-copy.js'
import { LockedSqliteDialect, writeLock, type WriteLockParty } from './sqlite-write-lock.js'

export interface OrganizationTable {
  id: string
  name: string
  currency: string
  country: string
  /** Goes up with every change to what describes the organization (migration 0005's triggers). */
  meta_version: Generated<number>
  created_by: string | null
  updated_by: string | null
  date_created: string
  date_updated: string
  /** 1 when the organization requires two-factor sign-in of its members (migration 0030). */
  require_two_factor: Generated<number>
}

export interface UserTable {
  id: string
  email: string
  email_lower: string
  first_name: string | null
  last_name: string | null
  image: string | null
  last_used_timezone: string | null
  sip_username: string
  sip_password: string
  date_created: string
  date_updated: string
  /** argon2id, PHC string; null until the person sets a password. */
  password_hash: string | null
  password_changed_at: string | null
  /** Two-factor sign-in (migration 0030): the TOTP secrets sealed, when it was turned on, the last step accepted. */
  totp_secret: string | null
  totp_pending_secret: string | null
  totp_enabled_at: string | null
  totp_last_step: number | null
  /** The IANA zone chosen on the Profile (migration 0032); null: the browser's. */
  time_zone: string | null
}

/** Single-use two-factor recovery codes, by SHA-256 (migration 0030). */
export interface RecoveryCodeTable {
  user_id: string
  code_hash: string
  date_created: string
  date_used: string | null
}

export interface MembershipTable {
  id: string
  organization_id: string
  user_id: string
  role: 'admin' | 'user'
  date_created: string
  date_updated: string
  status: Generated<'active' | 'inactive'>
  date_deactivated: string | null
}

export interface ApiKeyTable {
  id: string
  organization_id: string
  user_id: string
  membership_id: string
  secret_hash: string
  date_created: string
  date_revoked: string | null
  /** `api`: made by someone; `session`: minted at a sign-in, for that session alone. */
  kind: Generated<'api' | 'session'>
  description: string | null
  date_expires: string | null
  idle_seconds: number | null
  date_last_used: string | null
}

export interface SignInThrottleTable {
  key: string
  failures: number
  window_ends: string
}

/** An invitation to join an organization (migration 0029); its token is stored only as its SHA-256. */
export interface InvitationTable {
  id: string
  organization_id: string
  email: string
  email_lower: string
  role: 'admin' | 'user'
  token_hash: string
  /** Null when an operator invited with the CLI. */
  invited_by: string | null
  date_created: string
  date_expires: string
  date_last_sent: string
  date_accepted: string | null
  date_revoked: string | null
}

/** A password-reset link (migration 0029); its token is stored only as its SHA-256. */
export interface PasswordResetTable {
  id: string
  user_id: string
  token_hash: string
  date_created: string
  date_expires: string
  date_used: string | null
}

export interface SingleSignOnTable {
  organization_id: string
  issuer: string
  client_id: string
  /** Sealed under LEADLINE_SECRET_KEY (context `single_sign_on:<organization id>`). */
  client_secret: string | null
  enabled: boolean | number
  required: boolean | number
  date_created: string
  date_updated: string
}

export interface SingleSignOnDomainTable {
  domain: string
  organization_id: string
}

/** A single sign-on begun and not finished: by the SHA-256 (hex) of its state. */
export interface SingleSignOnLoginTable {
  state_hash: string
  organization_id: string
  nonce: string
  code_verifier: string
  invitation_token_hash: string | null
  date_created: string
  date_expires: string
}

export interface LeadStatusTable {
  id: string
  organization_id: string
  label: string
  position: number
  date_created: string
  date_updated: string
}

export interface PipelineTable {
  id: string
  organization_id: string
  name: string
  position: number
  created_by: string | null
  updated_by: string | null
  date_created: string
  date_updated: string
}

export interface OpportunityStatusTable {
  id: string
  organization_id: string
  pipeline_id: string
  label: string
  type: 'active' | 'won' | 'lost'
  position: number
  date_created: string
  date_updated: string
}

export interface OpportunityTable {
  id: string
  organization_id: string
  lead_id: string
  contact_id: string | null
  status_id: string
  /** The owner. */
  user_id: string | null
  /** In the currency's smallest unit (cents); Postgres reads its bigint back as text. */
  value: ColumnType<number | string | null, number | null, number | null>
  value_period: 'one_time' | 'monthly' | 'annual'
  value_currency: string
  confidence: number
  /** `YYYY-MM-DD`. */
  date_won: string | null
  date_lost: string | null
  note: string
  created_by: string | null
  updated_by: string | null
  date_created: string
  date_updated: string
}

/** Opportunity sums by organization, status, owner, period and day won, kept by triggers (migration 0010). */
export interface OpportunityRollupTable {
  organization_id: string
  status_id: string
  /** '' when the opportunity has no owner. */
  user_id: string
  value_period: string
  /** '' when it has no `date_won`. */
  date_won: string
  opportunities: number | string
  value: number | string
  annualized: number | string
  expected: number | string
  annualized_expected: number | string
}

/** The same sums without the day won: by organization, status, owner and period (migration 0058). */
export type OpportunityRollupTotalTable = Omit<OpportunityRollupTable, 'date_won'>

export interface PhoneNumberTable {
  id: string
  organization_id: string
  number: string
  label: string | null
  type: 'internal' | 'external' | 'virtual'
  user_id: string | null
  date_created: string
  date_updated: string
}

export interface EmailAccountTable {
  id: string
  organization_id: string
  user_id: string
  /** Lowercased. */
  email: string
  /** JSON: `[{name, email}]`, the account's own address first. */
  identities: string
  smtp_host: string
  smtp_port: number
  smtp_username: string | null
  /** `v1:…` (platform/security/secret-box.ts), never the password itself. */
  smtp_password: string | null
  /** 0 or 1. */
  smtp_use_ssl: number
  /** The last failure of a send through the account (migration 0033); null once a send went through. */
  last_error_message: string | null
  last_error_date: string | null
  date_created: string
  date_updated: string
  created_by: string | null
  updated_by: string | null
}

/** Every address an email account sends as, lowercased: its own and its identities'. */
export interface EmailAccountAddressTable {
  email_account_id: string
  organization_id: string
  address: string
  /** 0 or 1: proven by a link emailed to it, or the account's own address set by an admin (migration 0025). */
  verified: number
  /** SHA-256 (hex) of the token of the link waiting to be followed, if any. */
  token_hash: string | null
  token_expires: string | null
  /** When the last link was sent: resending waits a while. */
  link_sent_at: string | null
}

export interface UserPresenceTable {
  organization_id: string
  user_id: string
  client_type: 'mobile' | 'native' | 'web'
  last_seen: string
}

export interface LeadTable {
  id: string
  organization_id: string
  name: string | null
  description: string
  url: string | null
  status_id: string
  /** Goes up with every change to the lead or a row its view is built from (migration 0005's triggers). */
  revision: Generated<number>
  created_by: string | null
  updated_by: string | null
  date_created: string
  date_updated: string
}
export type LeadRow = Selectable<LeadTable>

export interface LeadAddressTable {
  lead_id: string
  position: number
  organization_id: string
  label: string
  address_1: string | null
  address_2: string | null
  city: string | null
  state: string | null
  zipcode: string | null
  country: string | null
}

export interface ContactTable {
  id: string
  organization_id: string
  lead_id: string
  name: string | null
  title: string | null
  /** Its place among the contacts made in the same request (migration 0036); 0 for one made alone. */
  position: number
  created_by: string | null
  updated_by: string | null
  date_created: string
  date_updated: string
}

interface ContactValueColumns {
  contact_id: string
  position: number
  organization_id: string
  lead_id: string
  type: string
  value_lower: string
}
export type ContactEmailTable = ContactValueColumns & { email: string }
export type ContactPhoneTable = ContactValueColumns & { phone: string }
export type ContactUrlTable = ContactValueColumns & { url: string }

export type CustomObjectType = 'lead' | 'contact' | 'opportunity'

export interface CustomFieldTable {
  id: string
  organization_id: string
  object_type: CustomObjectType
  name: string
  description: string | null
  type: string
  /** JSON array of strings, for `choices` fields. */
  choices: string | null
  accepts_multiple_values: boolean | number
  /** Its place among the organization's fields of its object type, from 0 (migration 0034). */
  position: number
  created_by: string | null
  updated_by: string | null
  date_created: string
  date_updated: string
}

export interface CustomValueTable {
  object_id: string
  field_id: string
  position: number
  organization_id: string
  lead_id: string
  value_text: string
  value_number: number | null
}

export interface ActivityTable {
  id: string
  organization_id: string
  lead_id: string
  contact_id: string | null
  user_id: string | null
  type: string
  /** JSON object with the fields particular to the activity's type. */
  data: string
  /** The opportunity an OpportunityStatusChange is about. */
  opportunity_id: string | null
  /** The task a TaskCompleted is about. */
  task_id: string | null
  /** The conversation an Email belongs to (migration 0022). */
  thread_id: string | null
  /** A received Email's sender check, `pass`, `fail` or `none`, and why (migration 0026); null otherwise. */
  sender_check: string | null
  sender_check_reason: string | null
  created_by: string | null
  updated_by: string | null
  date_created: string
  date_updated: string
}

/** A task (migration 0012). Booleans are 0/1. */
export interface TaskTable {
  id: string
  organization_id: string
  lead_id: string
  type: string
  assigned_to: string | null
  contact_id: string | null
  text: string
  /** Date-only `YYYY-MM-DD` or a wire timestamp; a dateless task's creation day. */
  date: string
  has_time: number
  is_dateless: number
  is_complete: number
  date_completed: string | null
  /** The TaskCompleted activity its last completion recorded. */
  completion_id: string | null
  object_type: string | null
  object_id: string | null
  /** JSON object with the fields particular to the task's type. */
  data: string
  created_by: string | null
  updated_by: string | null
  date_created: string
  date_updated: string
}

/** One change of an object (migration 0013); JSON in `data`, `previous_data` and `changed_fields`. */
export interface EventTable {
  /** The log's order: newest first in `/event/`, and the cursor's key. */
  seq: Generated<number>
  id: string
  organization_id: string
  object_type: string
  object_id: string
  action: string
  lead_id: string | null
  user_id: string | null
  request_id: string | null
  api_key_id: string | null
  data: string
  previous_data: string
  changed_fields: string
  /** Close's `meta` as JSON (migration 0037): `{}` for events recorded before it. */
  meta: string
  /** The client's address, for audit entries (migration 0050); null on every other event. */
  client_address: string | null
  date_created: string
  date_updated: string
}

/** A webhook subscription (migration 0014); `events` is JSON, `verify_ssl` 0/1. */
export interface WebhookSubscriptionTable {
  id: string
  organization_id: string
  url: string
  events: string
  verify_ssl: number
  status: string
  status_reason: string | null
  signature_key: string
  failing_since: string | null
  created_by: string | null
  updated_by: string | null
  date_created: string
  date_updated: string
}

/** A random stamp replaced by triggers on every change to an organization's subscriptions (migration 0014). */
export interface WebhookSubscriptionVersionTable {
  organization_id: string
  version: string
}

/** A delivery owed (migration 0015): written with its change, claimed with a lease, never deleted when it fails. */
export interface OutboxTable {
  seq: Generated<number>
  id: string
  organization_id: string
  kind: string
  subscription_id: string | null
  event_id: string | null
  ordering_key: string
  payload: string
  status: string
  attempts: number
  next_attempt_at: string
  lease_owner: string | null
  lease_until: string | null
  last_status_code: number | null
  last_error: string | null
  date_created: string
  date_updated: string
}

/** One attempt at an outbox delivery (migration 0015). */
export interface OutboxAttemptTable {
  id: string
  organization_id: string
  outbox_id: string
  subscription_id: string | null
  event_id: string | null
  attempt: number
  url: string
  status_code: number | null
  duration_ms: number
  error: string | null
  date_created: string
}

/** Each text a lead search looks in, folded, one value per line (lead-search-index.ts). */
export interface LeadSearchColumns {
  body: string
  name: string
  description: string
  url: string
  contact_name: string
  city: string
  state: string
  zipcode: string
  address: string
  custom: string
  /** The lead's contacts' stored phone numbers, one per line (migration 0051). */
  phone: string
}

export interface LeadSearchTable extends LeadSearchColumns {
  /** SQLite only: the row's place in its organization's range of the trigram index (migration 0006). */
  rowid: Generated<number>
  lead_id: string
  organization_id: string
  /** The lead's status, kept in step with `lead` by a trigger, so a search can combine it with text. */
  status_id: string
  /** The web domain of `url`, computed by the database (migration 0043); null when the lead has none. */
  url_domain: ColumnType<string | null, never, never>
}

/** SQLite only: where each organization's range of `lead_search` rowids starts (`search_key` × 2^32). */
export interface LeadSearchOrgTable {
  organization_id: string
  search_key: number
}

/** Leads per organization, kept by migration 0007's triggers. */
export interface OrganizationLeadCountTable {
  organization_id: string
  leads: number
}

/** Facts about the database as a whole, by key (app-state.ts). */
/** A call (or meeting) outcome (migration 0017); `applies_to` is a JSON list. */
export interface OutcomeTable {
  id: string
  organization_id: string
  name: string
  /** `name` case-folded: unique per organization. */
  name_key: string
  description: string | null
  type: 'custom' | 'vm-dropped'
  applies_to: string
  /** The organization's order of its outcomes, from 0 (migration 0033). */
  position: number
  created_by: string | null
  updated_by: string | null
  date_created: string
  date_updated: string
}

export interface AppStateTable {
  key: string
  value: string
}

/** An organization's inbound signing secret (migration 0019): 32 bytes, hex. */
export interface InboundSecretTable {
  organization_id: string
  secret: string
  date_created: string
}

/** The answer given to a `webhook-id` of the inbound endpoint (migration 0019); `answer` is JSON. */
export interface InboundReceiptTable {
  organization_id: string
  webhook_id: string
  answer: string
  date_created: string
}

/** A message or call the telephony side reported, by its id there (migration 0019). Booleans are 0/1. */
export interface InboundRefTable {
  organization_id: string
  kind: 'sms' | 'call'
  provider_id: string
  activity_id: string | null
  task_id: string | null
  new_lead: number
  in_progress: number
  user_id: string | null
  date_created: string
  date_updated: string
}

/** An email template (migration 0021): Liquid subject and HTML body; `attachments` is JSON; booleans are 0/1. */
export interface EmailTemplateTable {
  id: string
  organization_id: string
  name: string
  subject: string
  body: string
  is_shared: number
  is_archived: number
  attachments: string
  created_by: string | null
  updated_by: string | null
  date_created: string
  date_updated: string
}

/** An email conversation on a lead (migration 0022); its id is an activity id. */
export interface EmailThreadTable {
  id: string
  organization_id: string
  lead_id: string
  /** The latest subject without `Re:`/`Fwd:` prefixes, as written. */
  subject: string
  /** `subject` case-folded, for joining replies that carry no references. */
  subject_key: string
  date_created: string
  date_updated: string
}

/** A Message-ID an email was sent or received with (migration 0022). */
export interface EmailMessageTable {
  organization_id: string
  message_id: string
  activity_id: string
  thread_id: string
}

/** A file of an email (migrations 0023, 0024): its bytes in base64. */
export interface EmailAttachmentTable {
  id: string
  organization_id: string
  /** The email it is in; null for a file uploaded and not yet in one (purged after a day). */
  activity_id: string | null
  filename: string
  content_type: string
  /** The part's Content-ID without angle brackets, for inline images; else null. */
  content_id: string | null
  /** Decoded bytes. */
  size: number
  content: string
  date_created: string
}

/** An export of leads or opportunities (migration 0038, decision 0052). */
export interface DataExportTable {
  id: string
  organization_id: string
  /** The user who asked for it: a member sees their own exports, an admin all of the organization's. */
  created_by: string
  object_type: 'lead' | 'opportunity'
  format: 'csv' | 'json'
  type: 'leads' | 'contacts' | 'lead_opps' | 'opportunities'
  date_format: 'original' | 'iso8601'
  /** JSON array of the columns or keys asked for; null for all. */
  fields: string | null
  /** A lead export's search (the lead search language); null for all leads. */
  query: string | null
  /** An opportunity export's filters, as JSON. */
  params: string | null
  /** The X-TZ-Offset of the request, in which relative dates of the search are read. */
  tz_offset: number
  status: 'created' | 'started' | 'in_progress' | 'done' | 'error'
  n_rows: number | null
  /** Bytes of the gzip-compressed file. */
  size: number | string | null
  error: string | null
  attempts: number
  lease_owner: string | null
  lease_until: string | null
  date_created: string
  date_updated: string
}

/** A piece of an export's gzip-compressed file, in base64 (migration 0038). */
export interface DataExportChunkTable {
  export_id: string
  organization_id: string
  seq: number
  content: string
}

/** A CSV import (migration 0039, decision 0053). */
export interface DataImportTable {
  id: string
  organization_id: string
  /** The member who uploaded it: a member sees their own imports, an admin all of the organization's. */
  created_by: string
  filename: string
  /** Bytes of the file as uploaded. */
  size: ColumnType<number | string, number, number>
  encoding: 'utf-8' | 'utf-8-bom' | 'utf-16le' | 'utf-16be' | 'windows-1252'
  delimiter: string
  /** JSON: the header row, as made unique. */
  columns: string
  /** JSON: the first data rows. */
  preview: string
  n_rows: number
  /** JSON: column → target. */
  mapping: string
  /** JSON: `{match, action}`. */
  duplicate_rule: string
  /** `uploading` while the file streams in (never shown), then the wire statuses. */
  status:
    'uploading' | 'uploaded' | 'checking' | 'checked' | 'queued' | 'running' | 'done' | 'error' | 'undoing' | 'undone'
  /** Data rows the job under way (run or undo) has committed; a resumed job starts after them. */
  rows_done: number
  /** JSON: what the dry run found; null until one finished. */
  check_result: string | null
  /** JSON: created, updated, contacts_created, skipped, failed. */
  counts: string
  error: string | null
  attempts: number
  lease_owner: string | null
  lease_until: string | null
  date_created: string
  date_updated: string
}

/** An object `leadline import close` copied, and the Leadline object it became (migration 0040, decision 0054). */
export interface ImportMappingTable {
  organization_id: string
  /** The source API's base URL. */
  source: string
  source_id: string
  /** What it is (`lead`, `contact`, `note`, …), so a report can count them. */
  kind: string
  target_id: string
  date_created: string
  date_updated: string
}

/** A Smart View (migration 0041, decision 0056): JSON in `s_query` and `selected_fields`; `is_shared` is 0/1. */
export interface SavedSearchTable {
  id: string
  organization_id: string
  user_id: string
  name: string
  description: string | null
  type: 'lead' | 'contact'
  query: string | null
  s_query: string | null
  selected_fields: string | null
  is_shared: number
  created_by: string | null
  updated_by: string | null
  date_created: string
  date_updated: string
}

/**
 * A bulk edit or delete (migration 0042, decision 0057): `params` is the edit asked for (JSON), `lead_ids` the leads
 * chosen one by one (JSON) when there is no query; `cursor` is the `seq` of the last lead of the last batch committed.
 */
export interface BulkActionTable {
  id: string
  organization_id: string
  kind: 'edit' | 'delete'
  type: string | null
  created_by: string
  updated_by: string
  query: string | null
  s_query: string | null
  lead_ids: string | null
  results_limit: number | null
  params: string
  tz_offset: number
  send_done_email: number
  status: string
  n_leads: number | null
  n_leads_processed: number
  n_leads_changed: number
  n_leads_undone: number
  cursor: number
  undo_cursor: string
  error: string | null
  attempts: number
  lease_owner: string | null
  lease_until: string | null
  date_created: string
  date_updated: string
}

/** One lead of a bulk action, fixed when it starts, numbered from 1 in id order. */
export interface BulkActionLeadTable {
  action_id: string
  organization_id: string
  seq: number
  lead_id: string
}

/** What a bulk edit replaced on one lead, and what it wrote there (JSON each), for undo. */
export interface BulkActionChangeTable {
  action_id: string
  organization_id: string
  lead_id: string
  previous: string
  next: string
}

/** A piece of an import's file, UTF-8 and gzip-compressed, in base64 (migration 0039). */
export interface DataImportChunkTable {
  import_id: string
  organization_id: string
  seq: number
  content: string
}

/** A row a dry run (`check`) or a run (`run`) could not take, with why and its cells as read (JSON). */
export interface DataImportFailureTable {
  import_id: string
  organization_id: string
  pass: 'check' | 'run'
  row: number
  reason: string
  cells: string
}

/**
 * A company key of an import and the lead it became: created by the run (1), an existing one it matched and updated
 * (0), or matched and skipped (2).
 */
export interface DataImportLeadTable {
  import_id: string
  organization_id: string
  key: string
  lead_id: string
  created: number
}

/** An existing lead's fields and custom values before an import updated it (JSON), for undo. */
export interface DataImportChangeTable {
  import_id: string
  organization_id: string
  lead_id: string
  previous: string
}

/** A contact or opportunity (its id) or an address (its position) an import added to an existing lead, for undo. */
export interface DataImportAddedTable {
  import_id: string
  organization_id: string
  lead_id: string
  kind: 'contact' | 'address' | 'opportunity'
  object_id: string
}

export interface Tables {
  organization: OrganizationTable
  user: UserTable
  membership: MembershipTable
  api_key: ApiKeyTable
  sign_in_throttle: SignInThrottleTable
  recovery_code: RecoveryCodeTable
  invitation: InvitationTable
  password_reset: PasswordResetTable
  single_sign_on: SingleSignOnTable
  single_sign_on_domain: SingleSignOnDomainTable
  single_sign_on_login: SingleSignOnLoginTable
  lead_status: LeadStatusTable
  pipeline: PipelineTable
  opportunity_status: OpportunityStatusTable
  opportunity: OpportunityTable
  opportunity_rollup: OpportunityRollupTable
  opportunity_rollup_total: OpportunityRollupTotalTable
  phone_number: PhoneNumberTable
  email_account: EmailAccountTable
  email_account_address: EmailAccountAddressTable
  user_presence: UserPresenceTable
  lead: LeadTable
  lead_address: LeadAddressTable
  contact: ContactTable
  contact_email: ContactEmailTable
  contact_phone: ContactPhoneTable
  contact_url: ContactUrlTable
  custom_field: CustomFieldTable
  custom_value: CustomValueTable
  activity: ActivityTable
  task: TaskTable
  event: EventTable
  webhook_subscription: WebhookSubscriptionTable
  webhook_subscription_version: WebhookSubscriptionVersionTable
  outbox: OutboxTable
  outbox_attempt: OutboxAttemptTable
  lead_search: LeadSearchTable
  lead_search_org: LeadSearchOrgTable
  app_state: AppStateTable
  organization_lead_count: OrganizationLeadCountTable
  outcome: OutcomeTable
  inbound_secret: InboundSecretTable
  inbound_receipt: InboundReceiptTable
  inbound_ref: InboundRefTable
  email_template: EmailTemplateTable
  email_thread: EmailThreadTable
  email_message: EmailMessageTable
  email_attachment: EmailAttachmentTable
  data_export: DataExportTable
  data_export_chunk: DataExportChunkTable
  data_import: DataImportTable
  data_import_chunk: DataImportChunkTable
  data_import_failure: DataImportFailureTable
  data_import_lead: DataImportLeadTable
  data_import_change: DataImportChangeTable
  data_import_added: DataImportAddedTable
  import_mapping: ImportMappingTable
  saved_search: SavedSearchTable
  bulk_action: BulkActionTable
  bulk_action_lead: BulkActionLeadTable
  bulk_action_change: BulkActionChangeTable
}

export type Db = Kysely<Tables>

/**
 * Runs `work` in a transaction: the caller's, when `db` already is one (Kysely cannot nest them), else a new one.
 * Lets a unit of work that is atomic on its own also be one step of a larger atomic unit.
 */
export async function inTransaction<T>(db: Db, work: (tx: Db) => Promise<T>): Promise<T> {
  return db.isTransaction ? work(db) : db.transaction().execute(work)
}
export type Tx = Transaction<Tables>
export type Dialect = 'sqlite' | 'postgres'

export interface DatabaseHandle {
  db: Db
  dialect: Dialect
  /** The pg pool behind a Postgres handle, shared with the rate-limit store. */
  pgPool: pg.Pool | undefined
  /** The better-sqlite3 connection behind a SQLite handle. */
  sqlite: KyselySqliteDatabase | undefined
  /** Reads for the hot paths, without building a query or waiting for a transaction on the main connection. */
  reader: HotReader
  url: string
  close(): Promise<void>
}

export const DEFAULT_DATABASE_URL = 'sqlite:data/leadline.db'

export function isPostgresUrl(url: string): boolean {
  return url.startsWith('postgres://') || url.startsWith('postgresql://')
}

/** The file of a `sqlite:` URL (`sqlite:data/leadline.db` → `data/leadline.db`). */
export function sqliteFile(url: string): string {
  if (url.startsWith('sqlite://')) return url.slice('sqlite://'.length)
  if (url.startsWith('sqlite:')) return url.slice('sqlite:'.length)
  return url
}

/**
 * Planner settings for each Postgres session, before the caller's `PGOPTIONS` (which win): Postgres's default
 * `random_page_cost` of 4 prices an index probe as a disk seek, and a search of a few thousand leads then reads the
 * whole `lead` table into a hash join rather than probe its primary key once per match (60 to 90 ms against 20 to
 * 30 ms at 100,000 leads, docs/decisions/0013-postgres-planner-and-buffers.md). 1.1 is the usual figure for data on
 * SSDs or in memory, which is where a CRM's working set lives.
 */
export function postgresSessionOptions(env: NodeJS.ProcessEnv = process.env): string {
  return ['-c random_page_cost=1.1', env.PGOPTIONS].filter((o) => o !== undefined && o !== '').join(' ')
}

/**
 * Opens `sqlite:<path>` (folder created) or `postgres://…`. Migrations are a separate step.
 * `log` is Kysely's query log (the query-plan tests read the SQL the app runs from it).
 */
const PRAGMA = /^\s*pragma\b/i

export interface OpenOptions {
  log?: LogConfig
  sqliteCacheMb?: number
  /**
   * SQLite: the write lock this connection shares with another thread's connection to the same file (the import
   * thread, decision 0053), and which side of it this one is.
   */
  writeLock?: { buffer: SharedArrayBuffer; party: WriteLockParty }
  /**
   * SQLite: point reads on the main connection rather than a second, read-only one, so that the process holds the
   * file through one connection only (the demo seed, which changes the journal mode: withRollbackJournal).
   */
  oneConnection?: boolean
}

const require = createRequire(import.meta.url)

/**
 * node-postgres, required the first time a Postgres database is opened: an api on SQLite never loads it (some 3 MB
 * of heap it would hold for nothing). It is CommonJS, so the require is synchronous, as openDatabase is.
 */
export function postgresDriver(): typeof pg {
  return require('pg') as typeof pg
}

export function openDatabase(url: string, options: OpenOptions = {}): DatabaseHandle {
  const log = options.log === undefined ? {} : { log: options.log }
  if (isPostgresUrl(url)) {
    const pool = new (postgresDriver().Pool)({ connectionString: url, max: 10, options: postgresSessionOptions() })
    // An idle client can lose its connection (server restart, admin termination). pg drops it from the pool;
    // without a listener the 'error' event would crash the process.
    pool.on('error', (error) => {
      process.stderr.write(`postgres: idle connection lost: ${error.message}\n`)
    })
    // Kysely's clients run a `CopyRows` parameter as a COPY (postgres-copy.ts): the bulk writers' rows.
    const db = new Kysely<Tables>({ dialect: new PostgresDialect({ pool: copyingPool(pool) }), ...log })
    const reader = postgresReader(pool)
    return { db, dialect: 'postgres', pgPool: pool, sqlite: undefined, reader, url, close: () => db.destroy() }
  }
  const file = sqliteFile(url)
  if (file !== ':memory:') mkdirSync(dirname(resolve(file)), { recursive: true })
  const sqlite = new SqliteDatabase(file)
  // The import thread's connection (decision 0085) syncs at checkpoints only: each of its batches commits with the
  // import's progress, so a batch lost to a power cut is run again on resume. Any other commit is synced.
  const importThread = options.writeLock?.party === 'import'
  sqlite.pragma('journal_mode = WAL')
  sqlite.pragma(importThread ? 'synchronous = NORMAL' : 'synchronous = FULL')
  sqlite.pragma('foreign_keys = ON')
  sqlite.pragma('busy_timeout = 5000')
  // SQLite's default page cache is 2 MB per connection: a search that visits thousands of rows would read most of
  // its pages from the operating system again on every run. The pages are allocated as they are used.
  const cacheKib = Math.round((options.sqliteCacheMb ?? DEFAULT_SQLITE_CACHE_MB) * 1024)
  sqlite.pragma(`cache_size = -${String(cacheKib)}`)
  // Keeps the planner's statistics fresh (cheap: it only analyzes tables that changed a lot). Not by the import
  // thread's connection: it may write, outside the lock the thread shares with the api (the api's does it).
  if (!importThread) sqlite.pragma(OPTIMIZE)
  // SQLite's lower() folds only ASCII; searches use this one so `name:école` finds "ÉCOLE" as on Postgres.
  sqlite.function('leadline_lower', { deterministic: true }, (value: unknown) =>
    typeof value === 'string' ? foldCase(value) : null,
  )
  const cached = withStatementCache(sqlite)
  const shared = options.writeLock
  const dialect =
    shared === undefined
      ? new SqliteDialect({ database: cached })
      : new LockedSqliteDialect(
          { database: cached },
          writeLock(shared.buffer, shared.party),
          // better-sqlite3's own reading of the statement (an `update … returning` returns rows and writes); a
          // pragma counts as a write, as SQLite calls `pragma optimize` read-only and it may run ANALYZE.
          (sqlText) =>
            PRAGMA.test(sqlText) || !(cached.prepare(sqlText) as unknown as SqliteDatabase.Statement).readonly,
        )
  const db = new Kysely<Tables>({ dialect, ...log })
  // An in-memory database has one connection only; its reader shares it (and so does one asked for one connection).
  const reader =
    file === ':memory:' || options.oneConnection === true
      ? sqliteReader(cached, false)
      : sqliteReader(withStatementCache(openReadConnection(file, cacheKib)), true)
  const close = async () => {
    reader.close()
    if (sqlite.open && !importThread) sqlite.pragma(OPTIMIZE)
    await db.destroy()
  }
  return { db, dialect: 'sqlite', pgPool: undefined, sqlite: cached, reader, url, close }
}

/**
 * SQLite's `pragma optimize` as every connection runs it: each table that grew or shrank tenfold since its statistics
 * were taken, or was never analyzed, is analyzed again — whole. Not with the default mask (0xfffe), whose 0x10 bit
 * has each ANALYZE read a sample of some 2,000 rows an index: a sample cannot hold more rows of one value than it
 * read, so an organization of a million leads was taken for one of 2,000, and the planner then read the whole
 * organization through an index that starts with it rather than a range of leads through theirs (the lead index's
 * build on the million-lead bench file: 15 s → 68 s; decision 0087).
 */
const OPTIMIZE = 'optimize = 0x10002'

/**
 * SQLite: has the planner's statistics brought up to date where a table grew or shrank tenfold since they were
 * taken (or was never analyzed): a bulk write into tables that were empty when the connection opened leaves the
 * planner guessing, and it then walks an organization's whole index for `organization_id = ? and contact_id in (…)`
 * rather than probe the key. Cheap when nothing changed that much; each table it analyzes is read whole (OPTIMIZE).
 * Postgres's autovacuum does this itself.
 */
export async function refreshPlannerStatistics(db: Db, dialect: Dialect): Promise<void> {
  if (dialect === 'sqlite') await sql.raw(`pragma ${OPTIMIZE}`).execute(db)
}

const STATEMENT_CACHE_SIZE = 1000
/** Each SQLite connection's page cache, unless the caller sizes it (`LEADLINE_SQLITE_CACHE_MB`). */
export const DEFAULT_SQLITE_CACHE_MB = 8

/**
 * Kysely's SQLite driver prepares every query anew; preparing costs more than running a point read. This keeps the
 * most recently used statements by SQL text (an `in (?, ?, …)` list of another length is another text, hence the
 * bound), approximately: a hit only marks its statement, and eviction gives a marked one a second chance (as the view
 * cache does, and for the same reason: reordering the map on every hit cost more than the lookup).
 * A statement is never run twice at once: better-sqlite3 runs synchronously, and nothing here streams.
 */
export function withStatementCache(sqlite: KyselySqliteDatabase): KyselySqliteDatabase {
  const statements = new Map<string, { statement: SqliteStatement; used: boolean }>()
  return {
    close: () => {
      statements.clear()
      sqlite.close()
    },
    prepare(sqlText) {
      const hit = statements.get(sqlText)
      if (hit !== undefined) {
        hit.used = true
        return hit.statement
      }
      const statement = sqlite.prepare(sqlText)
      statements.set(sqlText, { statement, used: false })
      for (const [oldest, entry] of statements) {
        if (statements.size <= STATEMENT_CACHE_SIZE) break
        if (oldest === sqlText) continue
        statements.delete(oldest)
        if (entry.used) {
          entry.used = false
          statements.set(oldest, entry)
        }
      }
      return statement
    },
  }
}

/**
 * Point reads by SQL text with `?` placeholders, the same text on both databases. On SQLite they run on a second,
 * read-only connection: in WAL mode it sees every committed write and none that is still in flight, and it never
 * waits behind a transaction holding the main connection (Kysely serializes the one SQLite connection it has).
 */
export interface HotReader {
  all<Row>(sqlText: string, parameters: readonly unknown[]): Promise<Row[]>
  /**
   * The first row `read` answers for `key`. On Postgres the reads of one kind asked for in one turn of the event loop
   * go as one query (`read.many`): a lead read's freshness check was a round trip a request, and Postgres spent more
   * CPU on each than the api did. Each read is still sent after it was asked for, so it sees every write committed
   * before it was asked for, as a read of its own would.
   */
  one<Row>(read: KeyedRead, key: readonly string[]): Promise<Row | undefined>
  close(): void
}

/** A point read by key that concurrent requests share on Postgres (`HotReader.one`). */
export interface KeyedRead {
  /** The read for one key: SQL text with a `?` for each part of the key, the same on both databases. */
  readonly one: string
  /**
   * Postgres only: the same read for many keys. `$1`…`$n` are text arrays, one for each part of the key, meant to be
   * unnested `WITH ORDINALITY`; each row answers the key at its 1-based position `i` (an int4), at most one row a key.
   */
  readonly many: string
}

/** The most keys one query of `KeyedRead.many` takes; more go as further queries. */
export const KEYED_READ_BATCH = 500

/** The read-only connection serves point reads (a lead, a key, an organization): a quarter of the main cache. */
function openReadConnection(file: string, mainCacheKib: number): SqliteDatabase.Database {
  const connection = new SqliteDatabase(file, { readonly: true, fileMustExist: true })
  connection.pragma('busy_timeout = 5000')
  connection.pragma(`cache_size = -${String(Math.max(2048, Math.round(mainCacheKib / 4)))}`)
  return connection
}

function sqliteReader(connection: KyselySqliteDatabase, owned: boolean): HotReader {
  return {
    all<Row>(sqlText: string, parameters: readonly unknown[]) {
      try {
        return Promise.resolve(connection.prepare(sqlText).all(parameters) as Row[])
      } catch (error) {
        return Promise.reject(error instanceof Error ? error : new Error(String(error)))
      }
    },
    // A read here takes microseconds and never waits: nothing to share.
    one<Row>(read: KeyedRead, key: readonly string[]) {
      try {
        return Promise.resolve((connection.prepare(read.one).all(key) as Row[])[0])
      } catch (error) {
        return Promise.reject(error instanceof Error ? error : new Error(String(error)))
      }
    },
    close: () => {
      if (owned) connection.close()
    },
  }
}

function postgresReader(pool: pg.Pool): HotReader {
  // A named query is parsed and planned once per pooled connection, then only executed.
  const named = new Map<string, { name: string; text: string }>()
  const statement = (sqlText: string) => {
    let found = named.get(sqlText)
    if (found === undefined) {
      let n = 0
      found = { name: `leadline_hot_${String(named.size)}`, text: sqlText.replace(/\?/g, () => `$${String(++n)}`) }
      named.set(sqlText, found)
    }
    return found
  }
  const query = async (sqlText: string, values: unknown[]): Promise<unknown[]> => {
    const result = await pool.query<Record<string, unknown>>({ ...statement(sqlText), values })
    return result.rows
  }
  /** The reads asked for since the last flush, by kind; a flush is set for the end of this turn of the event loop. */
  const waiting = new Map<KeyedRead, Waiting[]>()
  let flushing = false
  const flush = () => {
    flushing = false
    for (const [read, reads] of waiting) {
      waiting.delete(read)
      for (let at = 0; at < reads.length; at += KEYED_READ_BATCH)
        void send(read, reads.slice(at, at + KEYED_READ_BATCH))
    }
  }
  const send = async (read: KeyedRead, reads: Waiting[]) => {
    try {
      const [only] = reads
      if (reads.length === 1 && only !== undefined) {
        only.resolve((await query(read.one, [...only.key]))[0])
        return
      }
      // Each distinct key once, its parts in columns: the arrays `many` unnests.
      const joined = reads.map(({ key }) => key.join('\u0000'))
      const positions = new Map<string, number>()
      const columns: string[][] = []
      reads.forEach(({ key }, n) => {
        const distinct = joined[n] ?? ''
        if (positions.has(distinct)) return
        positions.set(distinct, positions.size + 1)
        key.forEach((part, column) => (columns[column] ??= []).push(part))
      })
      const rows = new Map<number, unknown>()
      for (const row of await query(read.many, columns)) {
        const { i, ...rest } = row as { i: number }
        rows.set(i, rest)
      }
      reads.forEach(({ resolve }, n) => {
        resolve(rows.get(positions.get(joined[n] ?? '') ?? 0))
      })
    } catch (error) {
      for (const { reject } of reads) reject(error instanceof Error ? error : new Error(String(error)))
    }
  }
  return {
    async all<Row>(sqlText: string, parameters: readonly unknown[]) {
      return (await query(sqlText, [...parameters])) as Row[]
    },
    one<Row>(read: KeyedRead, key: readonly string[]) {
      return new Promise<Row | undefined>((resolve, reject) => {
        const reads = waiting.get(read) ?? []
        reads.push({ key, resolve: resolve as (row: unknown) => void, reject })
        waiting.set(read, reads)
        if (!flushing) {
          flushing = true
          // After the poll phase: the requests that came in together are all asking by then.
          setImmediate(flush)
        }
      })
    },
    close: () => undefined,
  }
}

interface Waiting {
  key: readonly string[]
  resolve: (row: unknown) => void
  reject: (error: Error) => void
}
