import { LRUCache } from 'lru-cache'
import { webhookFilterMatches, type WebhookFilter } from '@leadline/shared/webhook-filter'
import type { Db } from '../../platform/data/database.js'
import type { EventView } from '../events/event-routes.js'
import { parseSubscriptionEvents } from './webhook-events.js'

// Which subscriptions an event goes to. Asked inside the write transaction of every change, so it costs one point
// read while the organization's subscriptions stay as they were: they are parsed once and kept under the stamp
// that migration 0014's triggers replace on every change to them (docs/decisions/0023-webhook-subscriptions.md).

/** A subscription's wish for one object type and action: any of its filters, or everything when one had none. */
interface Wish {
  subscriptionId: string
  everything: boolean
  filters: WebhookFilter[]
}

interface Entry {
  version: string
  /** Wishes by `object_type action`, subscriptions in the order they were made. */
  wishes: Map<string, Wish[]>
}

// Read with peek: the organization first remembered is the first forgotten, however often it is read.
const entries = new LRUCache<string, Entry>({ max: 1000 })
const NONE: readonly string[] = Object.freeze([])
const matchNone = (): readonly string[] => NONE

const keyOf = (objectType: string, action: string) => `${objectType} ${action}`

async function loadWishes(db: Db, organizationId: string): Promise<Map<string, Wish[]>> {
  const rows = await db
    .selectFrom('webhook_subscription')
    .select(['id', 'events'])
    .where('organization_id', '=', organizationId)
    .where('status', '=', 'active')
    .orderBy('date_created')
    .orderBy('id')
    .execute()
  const wishes = new Map<string, Wish[]>()
  for (const row of rows) {
    const mine = new Map<string, Wish>()
    for (const event of parseSubscriptionEvents(row.events)) {
      const key = keyOf(event.object_type, event.action)
      let wish = mine.get(key)
      if (wish === undefined) {
        wish = { subscriptionId: row.id, everything: false, filters: [] }
        mine.set(key, wish)
        const others = wishes.get(key)
        if (others === undefined) wishes.set(key, [wish])
        else others.push(wish)
      }
      if (event.extra_filter === null) wish.everything = true
      else wish.filters.push(event.extra_filter)
    }
  }
  return wishes
}

/**
 * A function giving, for an event of the organization, the ids of its active subscriptions that ask for the event's
 * object type and action and whose filter (if any) the event passes. Reads through `db`, which may be the caller's
 * transaction: the stamp first, then (only when it moved since this process last looked) the subscriptions.
 */
export async function subscriptionMatcher(
  db: Db,
  organizationId: string,
): Promise<(event: EventView) => readonly string[]> {
  const stamp = await db
    .selectFrom('webhook_subscription_version')
    .select('version')
    .where('organization_id', '=', organizationId)
    .executeTakeFirst()
  if (stamp === undefined) return matchNone
  let entry = entries.peek(organizationId)
  if (entry?.version !== stamp.version) {
    entry = { version: stamp.version, wishes: await loadWishes(db, organizationId) }
    entries.set(organizationId, entry)
  }
  const { wishes } = entry
  if (wishes.size === 0) return matchNone
  return (event) => {
    const candidates = wishes.get(keyOf(event.object_type, event.action))
    if (candidates === undefined) return NONE
    const filtered = filteredAs(event)
    const ids: string[] = []
    for (const wish of candidates) {
      if (wish.everything || wish.filters.some((filter) => webhookFilterMatches(filter, filtered)))
        ids.push(wish.subscriptionId)
    }
    return ids
  }
}

/**
 * The event a filter reads. A `deleted` event's `data` is null and its `previous_data` the object (as Close shows
 * them), but a filter on `data` (`data.user_id`, `data.name`) still reads the object that was deleted: filters
 * written for the object's fields keep working on its deletion, and those on `previous_data` read the same object.
 */
function filteredAs(event: EventView): EventView {
  return event.action === 'deleted' && event.data === null ? { ...event, data: event.previous_data } : event
}
