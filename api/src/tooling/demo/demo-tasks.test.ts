import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { formatTimestamp } from '../../platform/data/time.js'
import { call, createTestContext, type TestContext } from '../test-support/test-app.js'
import { inThreadSource } from './demo-lead-source.js'
import { seedDemoLeads } from './demo-leads.js'
import { seedDemoOrganization, type DemoOrganization } from './demo-seed.js'
import { seedDemoTasks } from './demo-tasks.js'

// The tasks the seed gives the demo: each user's inbox of lead tasks, and the due tasks of the open opportunities.

const DAY_MS = 86_400_000

let ctx: TestContext
let demo: DemoOrganization
let now: Date

beforeEach(async () => {
  ctx = await createTestContext()
  demo = await seedDemoOrganization(ctx.database.db, ctx.clock)
  await seedDemoLeads(ctx.database.db, ctx.clock, demo.organization_id, 300, { batchSize: 100, source: inThreadSource })
  await seedDemoTasks(ctx.database.db, ctx.clock, demo)
  now = ctx.clock.now()
})
afterEach(async () => {
  await ctx.close()
})

function tasks(type: string) {
  return ctx.database.db
    .selectFrom('task')
    .selectAll()
    .where('organization_id', '=', demo.organization_id)
    .where('type', '=', type)
    .orderBy('id')
    .execute()
}

describe('demo lead tasks', () => {
  it('give each rep overdue, today’s, tomorrow’s and later tasks, all day and timed, and a few done', async () => {
    const all = await tasks('lead')
    const day = (offset: number) => formatTimestamp(new Date(now.getTime() + offset * DAY_MS)).slice(0, 10)
    const reps = demo.users.filter((u) => u.title === 'rep')
    expect(reps).toHaveLength(2)
    for (const rep of [...reps, ...demo.users.filter((u) => u.title === 'manager')]) {
      const mine = all.filter((t) => t.assigned_to === rep.user_id)
      expect(mine.length, rep.email).toBeGreaterThanOrEqual(15)
      expect(mine.length, rep.email).toBeLessThanOrEqual(30)
      const open = mine.filter((t) => t.is_complete === 0)
      const days = open.map((t) => t.date.slice(0, 10))
      expect(days.some((d) => d < day(0))).toBe(true)
      expect(days.filter((d) => d === day(0)).length).toBeGreaterThan(0)
      expect(days.filter((d) => d === day(1)).length).toBeGreaterThan(0)
      expect(days.filter((d) => d > day(7)).length).toBeGreaterThan(0)
      expect(open.filter((t) => t.has_time === 1).length).toBeGreaterThan(0)
      expect(open.filter((t) => t.has_time === 0).length).toBeGreaterThan(0)
      for (const task of open.filter((t) => t.has_time === 1)) {
        expect(task.date).toMatch(/^\d{4}-\d{2}-\d{2}T(1[4-9]|20|21):[03]0:00\.000000\+00:00$/)
      }
      for (const task of open) expect(task.text).not.toBe('')
      expect(mine.filter((t) => t.is_complete === 1).length, rep.email).toBeGreaterThan(0)
    }
    expect(all.filter((t) => t.assigned_to === demo.users[0]?.user_id).length).toBeGreaterThan(0)
  })

  it('record a TaskCompleted on the lead for each one done', async () => {
    const done = (await tasks('lead')).filter((t) => t.is_complete === 1)
    expect(done.length).toBeGreaterThanOrEqual(3)
    const completions = await ctx.database.db
      .selectFrom('activity')
      .selectAll()
      .where('organization_id', '=', demo.organization_id)
      .where('type', '=', 'TaskCompleted')
      .execute()
    expect(completions).toHaveLength(done.length)
    for (const task of done) {
      const completion = completions.find((a) => a.id === task.completion_id)
      expect(completion, task.id).toBeDefined()
      expect(completion?.task_id).toBe(task.id)
      expect(completion?.lead_id).toBe(task.lead_id)
      expect(completion?.user_id).toBe(task.assigned_to)
      expect(JSON.parse(completion?.data ?? '{}')).toEqual({ task_id: task.id, task_text: task.text })
      expect(task.date_completed).toBe(completion?.date_created)
      expect(task.date_completed !== null && task.date_completed <= formatTimestamp(now)).toBe(true)
      expect(task.date_created <= (task.date_completed ?? '')).toBe(true)
    }
  })

  it('fill each rep’s inbox through the API', async () => {
    for (const rep of demo.users.filter((u) => u.title === 'rep')) {
      const res = await call(ctx.app, rep.api_key, 'GET', '/task/', {
        query: { view: 'inbox', _type: 'all', assigned_to: rep.user_id },
      })
      expect(res.statusCode).toBe(200)
      const page = res.json<{ data: { _type: string; assigned_to: string; view: string; lead_name: string }[] }>()
      const leadTasks = page.data.filter((t) => t._type === 'lead')
      expect(leadTasks.length).toBeGreaterThanOrEqual(8)
      for (const task of page.data) {
        expect(task.assigned_to).toBe(rep.user_id)
        expect(task.view).toBe('inbox')
        expect(task.lead_name).not.toBe('')
      }
    }
  })
})

describe('demo opportunity due tasks', () => {
  it('are open, one per active opportunity with an expected close, and follow it', async () => {
    const opportunities = await ctx.database.db
      .selectFrom('opportunity')
      .innerJoin('opportunity_status', 'opportunity_status.id', 'opportunity.status_id')
      .select([
        'opportunity.id',
        'opportunity.lead_id',
        'opportunity.contact_id',
        'opportunity.user_id',
        'opportunity.date_won',
        'opportunity_status.type as status_type',
      ])
      .where('opportunity.organization_id', '=', demo.organization_id)
      .execute()
    const due = await tasks('opportunity_due')
    const expected = opportunities.filter((o) => o.status_type === 'active' && o.date_won !== null)
    expect(expected.length).toBeGreaterThan(20)
    expect(due.every((t) => t.is_complete === 0)).toBe(true)
    expect(due.map((t) => t.object_id).sort()).toEqual(expected.map((o) => o.id).sort())
    for (const opportunity of expected) {
      const task = due.find((t) => t.object_id === opportunity.id)
      expect(task).toMatchObject({
        lead_id: opportunity.lead_id,
        contact_id: opportunity.contact_id,
        assigned_to: opportunity.user_id,
        date: opportunity.date_won,
        has_time: 0,
        is_dateless: 0,
        object_type: 'opportunity',
        data: '{}',
      })
      expect(task?.id).toMatch(/^noti_/)
    }
  })
})
