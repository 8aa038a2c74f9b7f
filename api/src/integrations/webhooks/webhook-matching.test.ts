import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { WebhookFilter } from '@leadline/shared/webhook-filter'
import { openDatabase, type DatabaseHandle, type Db } from '../../platform/data/database.js'
import { migrateToLatest } from '../../platform/data/migrate.js'
import type { EventView } from '../events/event-routes.js'
import { newId } from '../../platform/security/ids.js'
import { formatTimestamp } from '../../platform/data/time.js'
import {
  createOrg,
  createTestDatabase,
  TestClock,
  type TestDatabase,
  type TestOrg,
} from '../../tooling/test-support/test-app.js'
import { subscriptionMatcher } from './webhook-matching.js'

// The matcher on a real database, through two connections as two api processes would hold them: what one commits,
// the other's next matcher sees; what a transaction changed and rolled back, nobody sees.

let testDb: TestDatabase
let here: DatabaseHandle
let there: DatabaseHandle
const clock = new TestClock()
let org: TestOrg
let other: TestOrg

beforeAll(async () => {
  testDb = await createTestDatabase()
  here = openDatabase(testDb.url)
  await migrateToLatest(here.db)
  there = openDatabase(testDb.url)
  org = await createOrg(here, clock, 'Matching Co')
  other = await createOrg(here, clock, 'Elsewhere Inc')
})

afterAll(async () => {
  await there.close()
  await here.close()
  await testDb.drop()
})

interface Wanted {
  object_type: string
  action: string
  extra_filter?: WebhookFilter | null
}

/** A subscription written straight into the table, as the routes (in any process) write it. */
async function subscribe(db: Db, organizationId: string, events: Wanted[], status = 'active'): Promise<string> {
  const id = newId('webhook')
  const now = formatTimestamp(clock.now())
  await db
    .insertInto('webhook_subscription')
    .values({
      id,
      organization_id: organizationId,
      url: 'https://hooks.example.com/in',
      events: JSON.stringify(events.map((e) => ({ ...e, extra_filter: e.extra_filter ?? null }))),
      verify_ssl: 1,
      status,
      status_reason: null,
      signature_key: 'ab'.repeat(32),
      failing_since: null,
      created_by: null,
      updated_by: null,
      date_created: now,
      date_updated: now,
    })
    .execute()
  return id
}

function eventOf(fields: Partial<EventView> & Pick<EventView, 'object_type' | 'action'>): EventView {
  return {
    id: newId('event'),
    object_id: 'lead_x',
    lead_id: 'lead_x',
    user_id: 'user_someone',
    request_id: null,
    api_key_id: null,
    organization_id: 'orga_someone',
    date_created: '2026-03-01T12:00:00.000000+00:00',
    date_updated: '2026-03-01T12:00:00.000000+00:00',
    data: {},
    previous_data: {},
    changed_fields: [],
    meta: {},
    ...fields,
  }
}

const leadCreated = eventOf({
  object_type: 'lead',
  action: 'created',
  data: { name: 'Acme', status_label: 'Potential' },
})
const leadUpdated = eventOf({
  object_type: 'lead',
  action: 'updated',
  data: { name: 'Acme', status_label: 'Qualified' },
  previous_data: { status_label: 'Potential' },
  changed_fields: ['status_id', 'status_label'],
})
const taskCompleted = eventOf({ object_type: 'task.lead', action: 'completed', data: { text: 'Call' } })

const statusChanged: WebhookFilter = {
  type: 'field_accessor',
  field: 'changed_fields',
  filter: { type: 'contains', value: 'status_label' },
}

async function matchFor(db: Db, event: EventView, organizationId = org.id): Promise<readonly string[]> {
  return (await subscriptionMatcher(db, organizationId))(event)
}

describe('subscriptionMatcher', () => {
  it('matches nothing for an organization that never had a subscription', async () => {
    const fresh = await createOrg(here, clock, 'Quiet Ltd')
    expect(await matchFor(here.db, leadCreated, fresh.id)).toEqual([])
  })

  it('picks active subscriptions by object type and action, then by filter, in the order they were made', async () => {
    const everyLead = await subscribe(here.db, org.id, [
      { object_type: 'lead', action: 'created' },
      { object_type: 'lead', action: 'updated' },
    ])
    const statusOnly = await subscribe(here.db, org.id, [
      { object_type: 'lead', action: 'updated', extra_filter: statusChanged },
    ])
    const tasks = await subscribe(here.db, org.id, [{ object_type: 'task.lead', action: 'completed' }])
    await subscribe(here.db, org.id, [{ object_type: 'lead', action: 'created' }], 'paused')
    await subscribe(here.db, other.id, [{ object_type: 'lead', action: 'created' }])

    const match = await subscriptionMatcher(here.db, org.id)
    expect(match(leadCreated)).toEqual([everyLead])
    expect(match(leadUpdated)).toEqual([everyLead, statusOnly])
    expect(match({ ...leadUpdated, changed_fields: ['name'] })).toEqual([everyLead])
    expect(match(taskCompleted)).toEqual([tasks])
    expect(match(eventOf({ object_type: 'task.lead', action: 'updated' }))).toEqual([])
    expect(match(eventOf({ object_type: 'contact', action: 'created' }))).toEqual([])
  })

  it('names a subscription once when several of its entries, or any of their filters, match', async () => {
    const fresh = await createOrg(here, clock, 'Twice Co')
    const id = await subscribe(here.db, fresh.id, [
      { object_type: 'lead', action: 'updated', extra_filter: statusChanged },
      {
        object_type: 'lead',
        action: 'updated',
        extra_filter: {
          type: 'field_accessor',
          field: 'data',
          filter: { type: 'field_accessor', field: 'name', filter: { type: 'equals', value: 'Acme' } },
        },
      },
    ])
    const match = await subscriptionMatcher(here.db, fresh.id)
    expect(match(leadUpdated)).toEqual([id])
    expect(match({ ...leadUpdated, changed_fields: ['name'] })).toEqual([id])
    expect(match({ ...leadUpdated, changed_fields: ['name'], data: { name: 'Other' } })).toEqual([])
  })

  it('reads through a transaction it is given, and sees what that transaction wrote', async () => {
    const fresh = await createOrg(here, clock, 'Inside Co')
    const ids = await here.db.transaction().execute(async (tx) => {
      const id = await subscribe(tx, fresh.id, [{ object_type: 'lead', action: 'created' }])
      return { id, matched: await matchFor(tx, leadCreated, fresh.id) }
    })
    expect(ids.matched).toEqual([ids.id])
    expect(await matchFor(here.db, leadCreated, fresh.id)).toEqual([ids.id])
  })

  it('forgets what a transaction wrote and rolled back, even after later changes', async () => {
    const fresh = await createOrg(here, clock, 'Rollback Co')
    const kept = await subscribe(here.db, fresh.id, [{ object_type: 'lead', action: 'created' }])
    expect(await matchFor(here.db, leadCreated, fresh.id)).toEqual([kept])
    const rolledBack = new Error('rolled back')
    await expect(
      here.db.transaction().execute(async (tx) => {
        const ghost = await subscribe(tx, fresh.id, [{ object_type: 'lead', action: 'created' }])
        expect(await matchFor(tx, leadCreated, fresh.id)).toEqual([kept, ghost])
        throw rolledBack
      }),
    ).rejects.toBe(rolledBack)
    // The next change commits. A counter would now come back to the number the rolled-back change had, under which
    // the cache holds the ghost; a random stamp does not come back.
    const later = await subscribe(there.db, fresh.id, [{ object_type: 'contact', action: 'created' }])
    expect(await matchFor(here.db, leadCreated, fresh.id)).toEqual([kept])
    expect(await matchFor(here.db, eventOf({ object_type: 'contact', action: 'created' }), fresh.id)).toEqual([later])
  })

  it('sees at once what another connection committed: a new subscription, a pause, new events, a deletion', async () => {
    const fresh = await createOrg(here, clock, 'Two Processes Co')
    expect(await matchFor(here.db, leadCreated, fresh.id)).toEqual([])
    const id = await subscribe(there.db, fresh.id, [{ object_type: 'lead', action: 'created' }])
    expect(await matchFor(here.db, leadCreated, fresh.id)).toEqual([id])

    await there.db.updateTable('webhook_subscription').set({ status: 'paused' }).where('id', '=', id).execute()
    expect(await matchFor(here.db, leadCreated, fresh.id)).toEqual([])
    await there.db.updateTable('webhook_subscription').set({ status: 'active' }).where('id', '=', id).execute()
    expect(await matchFor(here.db, leadCreated, fresh.id)).toEqual([id])

    await there.db
      .updateTable('webhook_subscription')
      .set({ events: JSON.stringify([{ object_type: 'lead', action: 'updated', extra_filter: statusChanged }]) })
      .where('id', '=', id)
      .execute()
    expect(await matchFor(here.db, leadCreated, fresh.id)).toEqual([])
    expect(await matchFor(here.db, leadUpdated, fresh.id)).toEqual([id])

    await there.db.deleteFrom('webhook_subscription').where('id', '=', id).execute()
    expect(await matchFor(here.db, leadUpdated, fresh.id)).toEqual([])
  })

  it('keeps what it parsed while the stamp stays, and reads again when it moves', async () => {
    const fresh = await createOrg(here, clock, 'Cached Co')
    const id = await subscribe(here.db, fresh.id, [{ object_type: 'lead', action: 'created' }])
    expect(await matchFor(here.db, leadCreated, fresh.id)).toEqual([id])
    const stampOf = async () =>
      (
        await here.db
          .selectFrom('webhook_subscription_version')
          .select('version')
          .where('organization_id', '=', fresh.id)
          .executeTakeFirstOrThrow()
      ).version
    const before = await stampOf()
    // Changing what matching reads moves the stamp; changing anything else (a delivery failing) does not.
    await here.db
      .updateTable('webhook_subscription')
      .set({ failing_since: '2026-03-01T12:00:00.000000+00:00', url: 'https://elsewhere.example.com/' })
      .where('id', '=', id)
      .execute()
    expect(await stampOf()).toBe(before)
    const pause = () =>
      here.db.updateTable('webhook_subscription').set({ status: 'paused' }).where('id', '=', id).execute()
    await pause()
    expect(await stampOf()).not.toBe(before)
    // Put the old stamp back by hand: the cache, filed under it, answers as it did then, without reading the table.
    await here.db
      .updateTable('webhook_subscription_version')
      .set({ version: before })
      .where('organization_id', '=', fresh.id)
      .execute()
    expect(await matchFor(here.db, leadCreated, fresh.id)).toEqual([id])
    // Any write of `status` (even to the same value) moves the stamp, and the next matcher reads the table again.
    await pause()
    expect(await stampOf()).not.toBe(before)
    expect(await matchFor(here.db, leadCreated, fresh.id)).toEqual([])
  })
})
