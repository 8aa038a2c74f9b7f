import { describe, expect, it } from 'vitest'
import type { ApiProcess } from '../../tooling/test-support/api-process.js'
import {
  apiCall,
  deliveryFixture,
  deliveriesOf,
  deliveryReport,
  eventsInOrder,
  killHard,
  outboxEvents,
  waitFor,
} from '../../tooling/test-support/delivery-check.js'

// Two api processes on one Postgres share the deliveries (FOR UPDATE SKIP LOCKED): while both live, every event is
// delivered exactly once; when one is killed mid-delivery, the other and its restarted self still deliver them all.

const fixture = deliveryFixture({ organization: 'Two Dispatchers Co', holdMs: 40, refuseEvery: 9, leadWebhook: false })

/** `count` writes spread over the processes in turn: a task made now and then, the others' texts changed. */
async function write(through: ApiProcess[], leadId: string, tasks: string[], from: number, count: number) {
  for (let i = from; i < from + count; i++) {
    const server = through[i % through.length]
    if (server === undefined) throw new Error('no process to write through')
    if (i % 6 === 0) {
      const task = await apiCall(server, fixture.org.member.key, 'POST', '/task/', {
        lead_id: leadId,
        text: `Task ${String(i)}`,
      })
      tasks.push(String(task.id))
    } else {
      await apiCall(server, fixture.org.member.key, 'PUT', `/task/${tasks[i % tasks.length] ?? ''}/`, {
        text: `Step ${String(i)}`,
      })
    }
  }
}

const taskEvents = () => eventsInOrder(fixture.database.db, fixture.org.id, ['task.lead'], ['created', 'updated'])

async function allDelivered(): Promise<ReturnType<typeof deliveryReport>> {
  const events = await taskEvents()
  const eventOf = await outboxEvents(fixture.database.db, fixture.org.id)
  const allIn = await waitFor(
    () => deliveryReport(events, eventOf, fixture.checking.accepted).missing.length === 0,
    120_000,
  )
  const report = deliveryReport(events, eventOf, fixture.checking.accepted)
  expect(allIn, await deliveriesOf(fixture.database.db, fixture.org.id, report.missing)).toBe(true)
  return report
}

describe('two api processes sharing the deliveries', () => {
  it('deliver every event exactly once while both live, and at least once, in order, when one is killed', async () => {
    let a = await fixture.start()
    const b = await fixture.start()
    const lead = await apiCall(a, fixture.org.member.key, 'POST', '/lead/', { name: 'Shared Co' })
    const tasks: string[] = []
    await write([a, b], String(lead.id), tasks, 0, 60)

    const both = await allDelivered()
    expect(both.missing).toEqual([])
    expect(both.outOfOrder).toEqual([])
    expect(both.repeats).toBe(0)
    expect(fixture.checking.badSignatures).toEqual([])
    // Both did some of the work: each delivered row names the process that delivered it.
    const owners = await fixture.database.db
      .selectFrom('outbox')
      .select('lease_owner')
      .distinct()
      .where('organization_id', '=', fixture.org.id)
      .where('status', '=', 'delivered')
      .execute()
    for (const server of [a, b]) {
      expect(owners.some((o) => o.lease_owner?.includes(`:${String(server.child.pid)}:`))).toBe(true)
    }

    // One is killed in the middle of a delivery (it holds a row's lease it has not settled); the other goes on, and
    // the killed one comes back. Writes go through the one to kill, one at a time, until it is seen holding a lease:
    // a fixed batch could be delivered whole between two looks on a slow machine.
    const killed = a
    const delivering = async () =>
      (
        await fixture.database.db
          .selectFrom('outbox')
          .select('seq')
          .where('status', '=', 'pending')
          .where('lease_owner', 'like', `%:${String(killed.child.pid)}:%`)
          .where('lease_until', 'is not', null)
          .execute()
      ).length > 0
    let next = 60
    let holding = false
    while (!holding && next < 100) {
      await write([killed], String(lead.id), tasks, next, 1)
      next += 1
      holding = await waitFor(delivering, 500)
    }
    expect(holding, 'the process to kill holds a lease').toBe(true)
    await killHard(killed)
    await write([b], String(lead.id), tasks, next, 12)
    a = await fixture.start()
    await write([a, b], String(lead.id), tasks, next + 12, 12)

    const after = await allDelivered()
    expect(after.missing).toEqual([])
    expect(after.outOfOrder).toEqual([])
    expect(fixture.checking.badSignatures).toEqual([])
    expect(await taskEvents()).toHaveLength(next + 24)
  }, 300_000)
})
