import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import type { TaskType } from '@leadline/shared/task-schema'
import { serve } from '../../app/main.js'
import { formatTimestamp } from '../../platform/data/time.js'
import { call, createTestContext, type TestContext, type TestOrg } from '../../tooling/test-support/test-app.js'
import { insertTask } from './task-repo.js'
import { purgeArchivedTasks } from './task-retention.js'

const DAY_MS = 86_400_000

let ctx: TestContext

afterEach(async () => {
  await ctx.close()
})

async function createLead(org: TestOrg): Promise<string> {
  const res = await call(ctx.app, org.admin.key, 'POST', '/lead/', { body: { name: 'Bluth Company' } })
  expect(res.statusCode).toBe(200)
  return res.json<{ id: string }>().id
}

async function leadTask(org: TestOrg, leadId: string): Promise<string> {
  const res = await call(ctx.app, org.member.key, 'POST', '/task/', {
    body: { lead_id: leadId, text: 'Call back about pricing', date: '2026-03-02' },
  })
  expect(res.statusCode).toBe(200)
  return res.json<{ id: string }>().id
}

/** A task the system makes, as calls and opportunities make theirs; `now` is when it was made. */
function systemTask(org: TestOrg, leadId: string, type: TaskType, now = ctx.clock.now()): Promise<string> {
  return insertTask(ctx.database.db, {
    organizationId: org.id,
    leadId,
    type,
    assignedTo: org.member.id,
    contactId: null,
    date: formatTimestamp(now).slice(0, 10),
    today: formatTimestamp(now).slice(0, 10),
    userId: null,
    now: formatTimestamp(now),
  })
}

async function complete(org: TestOrg, id: string): Promise<void> {
  const res = await call(ctx.app, org.member.key, 'PUT', `/task/${id}/`, { body: { is_complete: true } })
  expect(res.statusCode).toBe(200)
}

async function remaining(): Promise<string[]> {
  const rows = await ctx.database.db.selectFrom('task').select('id').execute()
  return rows.map((r) => r.id).sort()
}

const purge = () => purgeArchivedTasks(ctx.database.db, ctx.clock, ctx.config.taskRetentionDays)

describe('purgeArchivedTasks', () => {
  beforeEach(async () => {
    ctx = await createTestContext()
  })

  it('deletes system tasks archived over 90 days ago, in every organization, and keeps the rest', async () => {
    const lead = await createLead(ctx.org)
    const otherLead = await createLead(ctx.other)
    const archivedLeadTask = await leadTask(ctx.org, lead)
    const missedCall = await systemTask(ctx.org, lead, 'missed_call')
    const otherMissedCall = await systemTask(ctx.other, otherLead, 'missed_call')
    const openDue = await systemTask(ctx.org, lead, 'opportunity_due')
    const openLeadTask = await leadTask(ctx.org, lead)
    const laterVoicemail = await systemTask(ctx.org, lead, 'voicemail')
    for (const id of [archivedLeadTask, missedCall]) await complete(ctx.org, id)
    await complete(ctx.other, otherMissedCall)
    ctx.clock.advance(80 * DAY_MS)
    await complete(ctx.org, laterVoicemail)

    ctx.clock.advance(9 * DAY_MS)
    expect(await purge()).toBe(0)
    ctx.clock.advance(2 * DAY_MS)
    expect(await purge()).toBe(2)
    expect(await remaining()).toEqual([archivedLeadTask, openDue, openLeadTask, laterVoicemail].sort())

    ctx.clock.advance(80 * DAY_MS)
    expect(await purge()).toBe(1)
    expect(await remaining()).toEqual([archivedLeadTask, openDue, openLeadTask].sort())
    // The lead's completed task is still listed, with the TaskCompleted its completion recorded.
    const archive = await call(ctx.app, ctx.org.member.key, 'GET', '/task/', { query: { view: 'archive' } })
    expect(archive.json<{ data: { id: string }[] }>().data.map((t) => t.id)).toEqual([archivedLeadTask])
  })

  it('keeps a system task opened again after its completion', async () => {
    const lead = await createLead(ctx.org)
    const due = await systemTask(ctx.org, lead, 'opportunity_due')
    await complete(ctx.org, due)
    const reopened = await call(ctx.app, ctx.org.member.key, 'PUT', `/task/${due}/`, { body: { is_complete: false } })
    expect(reopened.statusCode).toBe(200)
    ctx.clock.advance(200 * DAY_MS)
    expect(await purge()).toBe(0)
    expect(await remaining()).toEqual([due])
  })
})

describe('LEADLINE_TASK_RETENTION_DAYS', () => {
  beforeEach(async () => {
    ctx = await createTestContext({ env: { LEADLINE_TASK_RETENTION_DAYS: '30' } })
  })

  it('sets how many days archived system tasks are kept', async () => {
    const lead = await createLead(ctx.org)
    const missedCall = await systemTask(ctx.org, lead, 'missed_call')
    await complete(ctx.org, missedCall)
    ctx.clock.advance(29 * DAY_MS)
    expect(await purge()).toBe(0)
    ctx.clock.advance(2 * DAY_MS)
    expect(await purge()).toBe(1)
    expect(await remaining()).toEqual([])
  })
})

describe('the api process', () => {
  beforeEach(async () => {
    ctx = await createTestContext()
  })

  it('purges when it starts, and again at every interval, until it closes', async () => {
    const lead = await createLead(ctx.org)
    const realNow = Date.now()
    const archivedAt = async (daysAgo: number) => {
      const id = await systemTask(ctx.org, lead, 'missed_call', new Date(realNow - daysAgo * DAY_MS))
      await ctx.database.db
        .updateTable('task')
        .set({ is_complete: 1, date_completed: formatTimestamp(new Date(realNow - daysAgo * DAY_MS)) })
        .where('id', '=', id)
        .execute()
      return id
    }
    await archivedAt(100)
    const recent = await archivedAt(10)

    const server = await serve({
      config: { ...ctx.config, logLevel: 'silent' },
      port: 0,
      host: '127.0.0.1',
      retentionIntervalMs: 20,
    })
    try {
      await vi.waitFor(async () => {
        expect(await remaining()).toEqual([recent])
      })
      // Only a later purge can take this one.
      await archivedAt(95)
      await vi.waitFor(async () => {
        expect(await remaining()).toEqual([recent])
      })
    } finally {
      await server.close()
    }
    const afterClose = await archivedAt(120)
    // Several intervals: a timer left running would have purged it by then.
    await new Promise((resolve) => setTimeout(resolve, 100))
    expect(await remaining()).toEqual([afterClose, recent].sort())
  })
})
