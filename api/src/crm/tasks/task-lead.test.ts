import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { call, createTestContext, type TestContext, type TestOrg } from '../../tooling/test-support/test-app.js'

// A lead's nested `tasks` (its open tasks, each with its `view` for the caller), the lead search's `tasks` and
// `has:tasks`, and what deleting and merging leads do to tasks.

interface TaskView {
  id: string
  _type: string
  view: string
  lead_id: string
  date: string
  is_complete: boolean
  [key: string]: unknown
}

let ctx: TestContext
const rep = () => ctx.org.member.key
const zone = (hours: string) => ({ 'x-tz-offset': hours })

beforeAll(async () => {
  ctx = await createTestContext()
})
afterAll(async () => {
  await ctx.close()
})

async function createLead(body: Record<string, unknown>, key = rep()) {
  const res = await call(ctx.app, key, 'POST', '/lead/', { body })
  expect(res.statusCode, res.body).toBe(200)
  return res.json<{ id: string; contacts: { id: string }[] }>()
}

async function createTask(body: Record<string, unknown>, key = rep()): Promise<TaskView> {
  const res = await call(ctx.app, key, 'POST', '/task/', { body })
  expect(res.statusCode, res.body).toBe(200)
  return res.json()
}

async function readLead(id: string, headers: Record<string, string> = {}, key = rep()) {
  const res = await call(ctx.app, key, 'GET', `/lead/${id}/`, { headers })
  expect(res.statusCode, res.body).toBe(200)
  return res.json<{ id: string; tasks: TaskView[] }>()
}

async function readTask(id: string, headers: Record<string, string> = {}) {
  const res = await call(ctx.app, rep(), 'GET', `/task/${id}/`, { headers })
  expect(res.statusCode, res.body).toBe(200)
  return res.json<TaskView>()
}

/** The lead as `GET /lead/` lists it (found by its unique name). */
async function listedLead(name: string, headers: Record<string, string> = {}) {
  const res = await call(ctx.app, rep(), 'GET', '/lead/', { query: { query: `name:"${name}"` }, headers })
  expect(res.statusCode, res.body).toBe(200)
  const data = res.json().data as { id: string; tasks: TaskView[] }[]
  expect(data).toHaveLength(1)
  return data[0] as { id: string; tasks: TaskView[] }
}

const views = (lead: { tasks: TaskView[] }) => lead.tasks.map((t) => [t.id, t.view])

describe("a lead's nested tasks", () => {
  it('are its open tasks in date order, each as GET /task/{id}/ shows it to the caller', async () => {
    ctx.clock.set(new Date('2026-03-01T11:00:00.000Z'))
    const lead = await createLead({ name: 'Nested Tasks Co', contacts: [{ name: 'Nia Nested' }] })
    const contactId = lead.contacts[0]?.id
    const later = await createTask({ lead_id: lead.id, text: 'Later', date: '2026-03-09' })
    const timed = await createTask({ lead_id: lead.id, text: 'Timed', date: '2026-03-04T15:30:00Z' })
    const soon = await createTask({
      lead_id: lead.id,
      text: 'Soon',
      date: '2026-03-03',
      contact_id: contactId,
      assigned_to: ctx.org.admin.id,
    })
    const dateless = await createTask({ lead_id: lead.id, text: 'Whenever' })
    const done = await createTask({ lead_id: lead.id, text: 'Done already', date: '2026-03-02', is_complete: true })
    expect(done.is_complete).toBe(true)

    for (const offset of ['0', '-5', '14']) {
      const headers = zone(offset)
      const nested = (await readLead(lead.id, headers)).tasks
      // The dateless task carries its creation day (the caller's today when created, 2026-03-01 in UTC).
      expect(nested.map((t) => t.id)).toEqual([dateless.id, soon.id, timed.id, later.id])
      for (const task of nested) expect(task).toEqual(await readTask(task.id, headers))
      // The same order GET /task/ gives the caller, completed ones aside.
      const listed = await call(ctx.app, rep(), 'GET', '/task/', { query: { lead_id: lead.id }, headers })
      expect(listed.statusCode, listed.body).toBe(200)
      const open = (listed.json().data as TaskView[]).filter((t) => !t.is_complete).map((t) => t.id)
      expect(nested.map((t) => t.id)).toEqual(open)
      expect((await listedLead('Nested Tasks Co', headers)).tasks).toEqual(nested)
    }

    const first = (await readLead(lead.id, zone('0'))).tasks[1]
    expect(first).toMatchObject({
      id: soon.id,
      _type: 'lead',
      view: 'future',
      organization_id: ctx.org.id,
      lead_id: lead.id,
      lead_name: 'Nested Tasks Co',
      contact_id: contactId,
      contact_name: 'Nia Nested',
      assigned_to: ctx.org.admin.id,
      assigned_to_name: 'Ada Admin',
      text: 'Soon',
      date: '2026-03-03',
      due_date: '2026-03-03',
      is_dateless: false,
      is_complete: false,
      object_type: null,
      object_id: null,
      created_by: ctx.org.member.id,
      created_by_name: 'Rey Rep',
      updated_by: ctx.org.member.id,
    })
  })

  it('orders a day’s date-only task before a timed task of that day in the caller’s zone', async () => {
    ctx.clock.set(new Date('2026-03-01T11:00:00.000Z'))
    const lead = await createLead({ name: 'Zone Order Co' })
    // 12:00Z on 1 March is 2 March 02:00 at +14, when 2 March began at 1 March 10:00Z: the date-only task is first.
    const timed = await createTask({ lead_id: lead.id, text: 'Timed', date: '2026-03-01T12:00:00Z' })
    const dateOnly = await createTask({ lead_id: lead.id, text: 'Date only', date: '2026-03-02' })
    expect((await readLead(lead.id, zone('14'))).tasks.map((t) => t.id)).toEqual([dateOnly.id, timed.id])
    // At -12, 2 March begins at 2 March 12:00Z, a day after the timed task.
    expect((await readLead(lead.id, zone('-12'))).tasks.map((t) => t.id)).toEqual([timed.id, dateOnly.id])
    expect((await readLead(lead.id, zone('14'))).tasks.map((t) => t.id)).toEqual([dateOnly.id, timed.id])
  })

  it('say inbox or future in each caller’s zone, never another caller’s, and move on with the day', async () => {
    // 11:00Z on 1 March: 28 February 23:00 at -12, 2 March 01:00 at +14.
    ctx.clock.set(new Date('2026-03-01T11:00:00.000Z'))
    const lead = await createLead({ name: 'Two Zones Co' })
    const march1 = await createTask({ lead_id: lead.id, text: 'First', date: '2026-03-01' })
    const march2 = await createTask({ lead_id: lead.id, text: 'Second', date: '2026-03-02' })
    const timed = await createTask({ lead_id: lead.id, text: 'Timed', date: '2026-03-01T20:00:00Z' })

    // +14: all three are today or before. -12: all three are tomorrow or later. Read alternately, so each read
    // follows one by the other zone of the same lead at the same revision.
    // At +14 the timed one (20:00Z) is 2 March 10:00, after 2 March began there.
    const east = [
      [march1.id, 'inbox'],
      [march2.id, 'inbox'],
      [timed.id, 'inbox'],
    ]
    // At -12 the timed one (20:00Z) is 1 March 08:00, between the starts of 1 and 2 March there.
    const west = [
      [march1.id, 'future'],
      [timed.id, 'future'],
      [march2.id, 'future'],
    ]
    expect(views(await readLead(lead.id, zone('14')))).toEqual(east)
    expect(views(await readLead(lead.id, zone('-12')))).toEqual(west)
    expect(views(await readLead(lead.id, zone('14')))).toEqual(east)
    expect(views(await listedLead('Two Zones Co', zone('-12')))).toEqual(west)
    expect(views(await listedLead('Two Zones Co', zone('14')))).toEqual(east)
    expect(views(await readLead(lead.id, zone('-12')))).toEqual(west)
    // UTC: 1 March is today; the timed one (20:00Z) is too; 2 March is tomorrow.
    expect(views(await readLead(lead.id, zone('0')))).toEqual([
      [march1.id, 'inbox'],
      [timed.id, 'inbox'],
      [march2.id, 'future'],
    ])
    // Without X-TZ-Offset the caller is in UTC.
    expect(views(await readLead(lead.id))).toEqual(views(await readLead(lead.id, zone('0'))))

    // Same zone, the next day, nothing changed on the lead: at -12 it is now 1 March 23:00.
    ctx.clock.advance(24 * 3_600_000)
    expect(views(await readLead(lead.id, zone('-12')))).toEqual([
      [march1.id, 'inbox'],
      [timed.id, 'inbox'],
      [march2.id, 'future'],
    ])
    expect(views(await listedLead('Two Zones Co', zone('-12')))).toEqual([
      [march1.id, 'inbox'],
      [timed.id, 'inbox'],
      [march2.id, 'future'],
    ])
    // And a day later still, everything is due at -12.
    ctx.clock.advance(24 * 3_600_000)
    expect(views(await readLead(lead.id, zone('-12'))).map(([, view]) => view)).toEqual(['inbox', 'inbox', 'inbox'])
  })

  it('differ between two zones on the same calendar day', async () => {
    // 12:00Z on 1 March is 1 March in UTC and at +5; a task at 21:00Z is 2 March 02:00 at +5.
    ctx.clock.set(new Date('2026-03-01T12:00:00.000Z'))
    const lead = await createLead({ name: 'Same Day Co' })
    const timed = await createTask({ lead_id: lead.id, text: 'Tonight', date: '2026-03-01T21:00:00Z' })
    const tomorrow = await createTask({ lead_id: lead.id, text: 'Tomorrow', date: '2026-03-02' })
    const utc = [
      [timed.id, 'inbox'],
      [tomorrow.id, 'future'],
    ]
    const plus5 = [
      [tomorrow.id, 'future'],
      [timed.id, 'future'],
    ]
    expect(views(await readLead(lead.id, zone('0')))).toEqual(utc)
    expect(views(await readLead(lead.id, zone('5')))).toEqual(plus5)
    expect(views(await listedLead('Same Day Co', zone('0')))).toEqual(utc)
    expect(views(await listedLead('Same Day Co', zone('5')))).toEqual(plus5)
  })

  it('show a task’s change, completion and deletion at once', async () => {
    ctx.clock.set(new Date('2026-03-01T11:00:00.000Z'))
    const lead = await createLead({ name: 'Live Tasks Co' })
    const a = await createTask({ lead_id: lead.id, text: 'A', date: '2026-03-05' })
    const b = await createTask({ lead_id: lead.id, text: 'B', date: '2026-03-06' })
    const c = await createTask({ lead_id: lead.id, text: 'C', date: '2026-03-07' })
    // Warm the cache in two zones.
    expect((await readLead(lead.id, zone('-12'))).tasks.map((t) => t.id)).toEqual([a.id, b.id, c.id])
    expect((await readLead(lead.id, zone('14'))).tasks.map((t) => t.id)).toEqual([a.id, b.id, c.id])

    const moved = await call(ctx.app, rep(), 'PUT', `/task/${c.id}/`, {
      body: { date: '2026-03-01', text: 'C, sooner', assigned_to: ctx.org.admin.id },
    })
    expect(moved.statusCode, moved.body).toBe(200)
    for (const offset of ['-12', '14']) {
      const nested = (await readLead(lead.id, zone(offset))).tasks
      expect(nested.map((t) => t.id)).toEqual([c.id, a.id, b.id])
      expect(nested[0]).toMatchObject({ text: 'C, sooner', date: '2026-03-01', assigned_to: ctx.org.admin.id })
    }
    expect((await readLead(lead.id, zone('-12'))).tasks[0]?.view).toBe('future')
    expect((await readLead(lead.id, zone('14'))).tasks[0]?.view).toBe('inbox')

    const completed = await call(ctx.app, rep(), 'PUT', `/task/${a.id}/`, { body: { is_complete: true } })
    expect(completed.statusCode, completed.body).toBe(200)
    expect((await readLead(lead.id, zone('14'))).tasks.map((t) => t.id)).toEqual([c.id, b.id])
    expect((await listedLead('Live Tasks Co', zone('-12'))).tasks.map((t) => t.id)).toEqual([c.id, b.id])

    const reopened = await call(ctx.app, rep(), 'PUT', `/task/${a.id}/`, { body: { is_complete: false } })
    expect(reopened.statusCode, reopened.body).toBe(200)
    expect((await readLead(lead.id, zone('-12'))).tasks.map((t) => t.id)).toEqual([c.id, a.id, b.id])

    const bulk = await call(ctx.app, rep(), 'PUT', '/task/', {
      query: { lead_id: lead.id },
      body: { is_complete: true },
    })
    expect(bulk.statusCode, bulk.body).toBe(200)
    expect((await readLead(lead.id, zone('14'))).tasks).toEqual([])
    await call(ctx.app, rep(), 'PUT', `/task/${b.id}/`, { body: { is_complete: false } })
    expect((await readLead(lead.id, zone('14'))).tasks.map((t) => t.id)).toEqual([b.id])

    expect((await call(ctx.app, rep(), 'DELETE', `/task/${b.id}/`)).statusCode).toBe(200)
    expect((await readLead(lead.id, zone('14'))).tasks).toEqual([])
    expect((await listedLead('Live Tasks Co', zone('-12'))).tasks).toEqual([])
  })

  it('never show another organization’s tasks', async () => {
    const lead = await createLead({ name: 'Private Tasks Co' })
    await createTask({ lead_id: lead.id, text: 'Ours', date: '2026-03-05' })
    const res = await call(ctx.app, ctx.other.member.key, 'GET', `/lead/${lead.id}/`)
    expect(res.statusCode).toBe(404)
    const theirs = await createLead({ name: 'Their Co' }, ctx.other.member.key)
    expect((await readLead(theirs.id, {}, ctx.other.member.key)).tasks).toEqual([])
  })
})

describe('lead search on tasks', () => {
  let org: TestOrg
  const ids: Record<string, string> = {}

  async function search(query: string): Promise<string[]> {
    const res = await call(ctx.app, org.member.key, 'GET', '/lead/', { query: { query, _limit: '100' } })
    expect(res.statusCode, res.body).toBe(200)
    const byId = new Map(Object.entries(ids).map(([name, id]) => [id, name]))
    return (res.json().data as { id: string }[]).map((l) => byId.get(l.id) ?? l.id).sort()
  }

  beforeAll(async () => {
    org = await ctx.createOrg('Search Tasks Org')
    const make = async (name: string, open: number, complete: number) => {
      ids[name] = (await createLead({ name }, org.member.key)).id
      for (let i = 0; i < open; i += 1) {
        await createTask({ lead_id: ids[name], text: `Open ${String(i)}`, date: '2026-03-05' }, org.member.key)
      }
      for (let i = 0; i < complete; i += 1) {
        await createTask(
          { lead_id: ids[name], text: `Done ${String(i)}`, date: '2026-03-05', is_complete: true },
          org.member.key,
        )
      }
    }
    await make('none', 0, 0)
    await make('one', 1, 0)
    await make('two', 2, 1)
    await make('done', 0, 3)
    await make('three', 3, 0)
  })

  it('counts open tasks only', async () => {
    expect(await search('tasks>0')).toEqual(['one', 'three', 'two'])
    expect(await search('tasks>1')).toEqual(['three', 'two'])
    expect(await search('tasks:2')).toEqual(['two'])
    expect(await search('tasks:3')).toEqual(['three'])
    expect(await search('tasks:0')).toEqual(['done', 'none'])
    expect(await search('tasks<1')).toEqual(['done', 'none'])
    expect(await search('tasks<=2')).toEqual(['done', 'none', 'one', 'two'])
    expect(await search('tasks>=3')).toEqual(['three'])
    expect(await search('has:tasks')).toEqual(['one', 'three', 'two'])
    expect(await search('-has:tasks')).toEqual(['done', 'none'])
    expect(await search('not has:tasks')).toEqual(['done', 'none'])
  })

  it('follows completion, reopening and deletion', async () => {
    const task = await createTask({ lead_id: ids.none, text: 'New', date: '2026-03-05' }, org.member.key)
    expect(await search('has:tasks')).toEqual(['none', 'one', 'three', 'two'])
    expect(await search('tasks:1')).toEqual(['none', 'one'])
    await call(ctx.app, org.member.key, 'PUT', `/task/${task.id}/`, { body: { is_complete: true } })
    expect(await search('has:tasks')).toEqual(['one', 'three', 'two'])
    const doneTasks = await call(ctx.app, org.member.key, 'GET', '/task/', {
      query: { lead_id: ids.done ?? '', is_complete: 'true' },
    })
    const first = (doneTasks.json().data as TaskView[])[0]
    await call(ctx.app, org.member.key, 'PUT', `/task/${first?.id ?? ''}/`, { body: { is_complete: false } })
    expect(await search('tasks:1')).toEqual(['done', 'one'])
    await call(ctx.app, org.member.key, 'DELETE', `/task/${first?.id ?? ''}/`)
    expect(await search('tasks:0')).toEqual(['done', 'none'])
  })

  it('never counts another organization’s tasks', async () => {
    // The same search in the other organization, whose leads have no tasks.
    const theirs = await createLead({ name: 'Taskless' }, ctx.other.member.key)
    const res = await call(ctx.app, ctx.other.member.key, 'GET', '/lead/', { query: { query: 'has:tasks' } })
    expect(res.statusCode, res.body).toBe(200)
    expect((res.json().data as { id: string }[]).map((l) => l.id)).not.toContain(theirs.id)
    const none = await call(ctx.app, ctx.other.member.key, 'GET', '/lead/', { query: { query: 'tasks:0' } })
    expect((none.json().data as { id: string }[]).map((l) => l.id)).toContain(theirs.id)
  })
})

describe('deleting and merging leads', () => {
  it('deleting a lead deletes its tasks, and leaves other leads’ alone', async () => {
    const lead = await createLead({ name: 'Doomed Co' })
    const other = await createLead({ name: 'Survivor Co' })
    const open = await createTask({ lead_id: lead.id, text: 'Open', date: '2026-03-05' })
    const done = await createTask({ lead_id: lead.id, text: 'Done', is_complete: true })
    const kept = await createTask({ lead_id: other.id, text: 'Kept', date: '2026-03-05' })
    expect((await call(ctx.app, rep(), 'DELETE', `/lead/${lead.id}/`)).statusCode).toBe(200)
    for (const task of [open, done]) {
      expect((await call(ctx.app, rep(), 'GET', `/task/${task.id}/`)).statusCode).toBe(404)
    }
    const all = await call(ctx.app, rep(), 'GET', '/task/', { query: { _type: 'all', lead_id: lead.id } })
    expect(all.json().data).toEqual([])
    expect((await readTask(kept.id)).lead_id).toBe(other.id)
    expect((await readLead(other.id)).tasks.map((t) => t.id)).toEqual([kept.id])
  })

  it('merging moves the source’s tasks, due tasks and TaskCompleted activities to the destination', async () => {
    ctx.clock.set(new Date('2026-03-01T12:00:00.000Z'))
    const source = await createLead({ name: 'Merge Source Co', contacts: [{ name: 'Sid Source' }] })
    const destination = await createLead({ name: 'Merge Destination Co' })
    const sourceOpen = await createTask({ lead_id: source.id, text: 'Source open', date: '2026-03-04' })
    const sourceDone = await createTask({ lead_id: source.id, text: 'Source done', date: '2026-03-02' })
    const completion = await call(ctx.app, rep(), 'PUT', `/task/${sourceDone.id}/`, { body: { is_complete: true } })
    expect(completion.statusCode, completion.body).toBe(200)
    const destinationOpen = await createTask({ lead_id: destination.id, text: 'Destination', date: '2026-03-03' })
    const opportunity = await call(ctx.app, rep(), 'POST', '/opportunity/', {
      body: { lead_id: source.id, value: 5000, date_won: '2026-03-10', contact_id: source.contacts[0]?.id },
    })
    expect(opportunity.statusCode, opportunity.body).toBe(200)
    const dueBefore = await call(ctx.app, rep(), 'GET', '/task/', {
      query: { _type: 'opportunity_due', lead_id: source.id },
    })
    const due = (dueBefore.json().data as TaskView[])[0]
    expect(due?.object_id).toBe(opportunity.json().id)
    const activities = await call(ctx.app, rep(), 'GET', '/activity/task_completed/', {
      query: { lead_id: source.id },
    })
    const completedActivity = (activities.json().data as { id: string; task_id: string }[])[0]
    expect(completedActivity?.task_id).toBe(sourceDone.id)

    // Warm the destination's cached view first.
    expect((await readLead(destination.id, zone('3'))).tasks.map((t) => t.id)).toEqual([destinationOpen.id])
    const merged = await call(ctx.app, rep(), 'POST', '/lead/merge/', {
      body: { source: source.id, destination: destination.id },
    })
    expect(merged.statusCode, merged.body).toBe(200)

    for (const id of [sourceOpen.id, sourceDone.id, due?.id ?? '']) {
      const task = await readTask(id)
      expect(task.lead_id).toBe(destination.id)
      expect(task.lead_name).toBe('Merge Destination Co')
    }
    expect((await readTask(sourceDone.id)).is_complete).toBe(true)
    expect((await readTask(sourceDone.id)).object_id).toBe(completedActivity?.id)
    const nested = (await readLead(destination.id, zone('3'))).tasks
    expect(nested.map((t) => t.id)).toEqual([destinationOpen.id, sourceOpen.id, due?.id])
    const left = await call(ctx.app, rep(), 'GET', '/task/', { query: { _type: 'all', lead_id: source.id } })
    expect(left.json().data).toEqual([])
    const moved = await call(ctx.app, rep(), 'GET', '/activity/task_completed/', {
      query: { lead_id: destination.id },
    })
    expect((moved.json().data as { id: string; lead_id: string }[]).map((a) => [a.id, a.lead_id])).toEqual([
      [completedActivity?.id, destination.id],
    ])
    const search = await call(ctx.app, rep(), 'GET', '/lead/', {
      query: { query: 'name:"Merge Destination Co" tasks:3' },
    })
    expect((search.json().data as { id: string }[]).map((l) => l.id)).toEqual([destination.id])

    // The due task still follows its opportunity, now on the destination.
    const changed = await call(ctx.app, rep(), 'PUT', `/opportunity/${opportunity.json().id as string}/`, {
      body: { date_won: '2026-03-12' },
    })
    expect(changed.statusCode, changed.body).toBe(200)
    const after = await call(ctx.app, rep(), 'GET', '/task/', {
      query: { _type: 'opportunity_due', lead_id: destination.id },
    })
    expect((after.json().data as TaskView[]).map((t) => [t.id, t.date])).toEqual([[due?.id, '2026-03-12']])
  })
})
