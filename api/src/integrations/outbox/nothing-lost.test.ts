import { describe, expect, it } from 'vitest'
import { stopApiProcesses } from '../../tooling/test-support/api-process.js'
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

// Nothing lost: a real api process takes a stream of writes (tasks, to a subscription; leads, to the lead webhook) and
// is SIGKILLed, several times, while the receiver holds one of its deliveries; each time it is started again. Every
// event still reaches the receiver, with valid signatures, in order per object. (On Postgres,
// nothing-lost.postgres.test.ts does the same with two processes.)

const fixture = deliveryFixture({ organization: 'Never Lose Co', holdMs: 150, refuseEvery: 7, leadWebhook: true })

describe('nothing lost', () => {
  it('delivers every event at least once, signed, in order per object, though the api is killed mid-delivery', async () => {
    const { database, org, checking, start } = fixture
    let server = await start()
    const key = org.member.key
    const lead = await apiCall(server, key, 'POST', '/lead/', { name: 'Kill Co' })
    const tasks: string[] = []
    let kills = 0
    const writes = 48
    for (let i = 0; i < writes; i++) {
      if (i % 8 === 0) {
        const task = await apiCall(server, key, 'POST', '/task/', { lead_id: lead.id, text: `Task ${String(i)}` })
        tasks.push(String(task.id))
      } else if (i % 4 === 2) {
        await apiCall(server, key, 'PUT', `/lead/${String(lead.id)}/`, { description: `Step ${String(i)}` })
      } else {
        const id = tasks[i % tasks.length] ?? ''
        await apiCall(server, key, 'PUT', `/task/${id}/`, { text: `Step ${String(i)}` })
      }
      if (i % 12 === 11) {
        // Kill it while the receiver holds one of its deliveries, which it will accept: the process never learns.
        const held = await waitFor(() => checking.holding() > 0, 20_000)
        expect(held, `a delivery held before kill ${String(kills + 1)}`).toBe(true)
        await killHard(server)
        kills++
        server = await start()
      }
    }
    const events = await eventsInOrder(database.db, org.id, ['task.lead', 'lead'], ['created', 'updated'])
    // Every write made one event, and so did the lead's creation.
    expect(events).toHaveLength(writes + 1)
    const eventOf = await outboxEvents(database.db, org.id)
    const delivered = () => deliveryReport(events, eventOf, checking.accepted).missing.length === 0
    const allIn = await waitFor(delivered, 120_000)
    const report = deliveryReport(events, eventOf, checking.accepted)
    expect(allIn, await deliveriesOf(database.db, org.id, report.missing)).toBe(true)
    expect(report.missing).toEqual([])
    expect(report.outOfOrder).toEqual([])
    expect(checking.badSignatures).toEqual([])
    expect(kills).toBe(4)
    // Each kill cut a delivery short that the receiver had taken: it came again, under the same webhook id.
    expect(report.repeats).toBeGreaterThanOrEqual(kills)
    // Some were refused (503) and retried: every one was in the end accepted.
    expect(checking.receiver.requests.some((r) => r.status === 503)).toBe(true)
    // The lead's changes went to the lead webhook, the tasks' to the subscription.
    const paths = new Set(checking.accepted.map((a) => a.path))
    expect(paths).toEqual(new Set(['/hook', '/leads']))

    // A SIGTERM, unlike a SIGKILL, lets the delivery under way finish and be recorded before the process exits.
    checking.stopRefusing()
    await apiCall(server, key, 'PUT', `/task/${tasks[0] ?? ''}/`, { text: 'Last words' })
    expect(await waitFor(() => checking.holding() > 0, 20_000), 'the last delivery held').toBe(true)
    await stopApiProcesses([server])
    const left = await database.db
      .selectFrom('outbox')
      .select('id')
      .where('status', '=', 'pending')
      .where('lease_owner', 'like', `%:${String(server.child.pid)}:%`)
      // Still under its lease: an attempt that ended (a refusal, a timeout on a busy machine) is recorded, and its row
      // waits for the retry with the lease released but the owner's name left on it.
      .where('lease_until', 'is not', null)
      .execute()
    expect(left).toEqual([])
  }, 300_000)
})
