import { randomBytes } from 'node:crypto'
import { deleteAppState, readAppState, writeAppState } from '../../platform/data/app-state.js'
import type { Db } from '../../platform/data/database.js'
import type { SecretBox } from '../../platform/security/secret-box.js'
import { LEAD_WEBHOOK_KEY_CONTEXT, openSecret, storeSecret } from '../../platform/security/stored-secrets.js'
import { webhookUrlProblem } from '../../platform/security/outbound-url.js'

// The operator's lead webhook: one URL for the whole installation that hears of every lead created, updated, deleted
// or merged. `leadline lead-webhook set URL` stores it in `app_state` and wins over LEADLINE_LEAD_WEBHOOK_URL;
// `clear` stores NONE, which wins over the environment too; `reset` forgets the stored setting, so the
// environment's URL (if any) applies again.

const NONE = 'none'

export type LeadWebhookSource = 'cli' | 'env' | 'none'

export interface LeadWebhookSetting {
  url: string | null
  /** Where the URL comes from: stored by the CLI (`cli`, also when cleared), the environment, or nowhere. */
  source: LeadWebhookSource
}

/**
 * The URL as given when a lead webhook may POST to it (the rules of a subscription's URL: https, no credentials, not
 * to this machine or a private network, unless `allowPrivate`), otherwise an error saying what is wrong.
 */
export function parseLeadWebhookUrl(raw: string, allowPrivate: boolean, name = 'the lead webhook URL'): string {
  const problem = webhookUrlProblem(raw, allowPrivate)
  if (problem !== undefined) throw new Error(`${name}: ${problem}`)
  return raw
}

/** The stored setting (a URL or NONE) when there is one, else the environment's URL. */
export function resolveLeadWebhook(stored: string | undefined, envUrl: string | null): LeadWebhookSetting {
  if (stored === undefined) return envUrl === null ? { url: null, source: 'none' } : { url: envUrl, source: 'env' }
  return { url: stored === NONE ? null : stored, source: 'cli' }
}

export async function readLeadWebhook(db: Db, envUrl: string | null): Promise<LeadWebhookSetting> {
  return resolveLeadWebhook(await readAppState(db, 'lead_webhook_url'), envUrl)
}

/** Stores a URL that `parseLeadWebhookUrl` accepted. */
export async function setLeadWebhookUrl(db: Db, url: string): Promise<void> {
  await writeAppState(db, 'lead_webhook_url', url)
}

export async function clearLeadWebhookUrl(db: Db): Promise<void> {
  await writeAppState(db, 'lead_webhook_url', NONE)
}

export async function resetLeadWebhookUrl(db: Db): Promise<void> {
  await deleteAppState(db, 'lead_webhook_url')
}

/**
 * The installation's key for signing lead webhook requests (64 hex characters, like a subscription's), made on first
 * use and stored sealed under `box` (decision 0040). Every process that asks at once gets the same one: the first
 * insert wins and the others read it.
 */
export async function leadWebhookSigningKey(db: Db, box: SecretBox | null): Promise<string> {
  const open = (stored: string) => openSecret(box, stored, LEAD_WEBHOOK_KEY_CONTEXT, 'The lead webhook signature key')
  const existing = await readAppState(db, 'lead_webhook_signature_key')
  if (existing !== undefined) return open(existing)
  const key = randomBytes(32).toString('hex')
  await db
    .insertInto('app_state')
    .values({ key: 'lead_webhook_signature_key', value: storeSecret(box, key, LEAD_WEBHOOK_KEY_CONTEXT) })
    .onConflict((oc) => oc.column('key').doNothing())
    .execute()
  const made = await readAppState(db, 'lead_webhook_signature_key')
  if (made === undefined) throw new Error('the lead webhook signing key could not be stored')
  return open(made)
}

const LEAD_WEBHOOK_EVENTS = { created: 'create', updated: 'update', deleted: 'delete', merged: 'merge' } as const

type LeadWebhookAction = keyof typeof LEAD_WEBHOOK_EVENTS

/**
 * The action the lead webhook hears of for an event, if any: lead events, except the source's deletion in a merge,
 * which the merge's own notification (`source_id`, `destination_id`) already tells.
 */
export function leadWebhookAction(event: {
  object_type: string
  action: string
  meta: unknown
}): LeadWebhookAction | undefined {
  const { object_type: objectType, action, meta } = event
  if (objectType !== 'lead' || !isLeadWebhookActionName(action)) return undefined
  if (action === 'deleted' && typeof meta === 'object' && meta !== null && 'merge_source_lead_id' in meta)
    return undefined
  return action
}

function isLeadWebhookActionName(action: string): action is LeadWebhookAction {
  return Object.hasOwn(LEAD_WEBHOOK_EVENTS, action)
}

/**
 * The lead webhook's body: the lead as `GET /lead/{id}/` answers it for create and update, `{id}` for delete, and
 * `{source_id, destination_id}` for merge (a lead's `merged` event is the source's, its `lead_id` the destination).
 */
export function leadWebhookBody(
  action: LeadWebhookAction,
  event: { object_id: string; lead_id: string | null; data: unknown },
): { model: 'lead'; event: string; data: unknown } {
  const name = LEAD_WEBHOOK_EVENTS[action]
  if (action === 'deleted') return { model: 'lead', event: name, data: { id: event.object_id } }
  if (action === 'merged')
    return { model: 'lead', event: name, data: { source_id: event.object_id, destination_id: event.lead_id } }
  return { model: 'lead', event: name, data: event.data }
}
