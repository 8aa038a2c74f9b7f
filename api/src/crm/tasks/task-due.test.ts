import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { call, createTestContext, type TestContext } from '../../tooling/test-support/test-app.js'

// An opportunity's `opportunity_due` task over HTTP: made, moved, completed, reopened and deleted with the
// opportunity, and with its status's type.

interface TaskView {
  id: string
  _type: string
  view: string
  lead_id: string
  date: string
  is_complete: boolean
  assigned_to: string | null
  contact_id: string | null
  [key: string]: unknown
}

interface Status {
  id: string
  label: string
  type: string
  pipeline_id: string
}

let ctx: TestContext
let leadId = ''
let contactA = ''
let contactB = ''
let leadTaskId = ''
let statuses: Status[] = []
const rep = () => ctx.org.member.key
const admin = () => ctx.org.admin.key

function status(type: string): Status {
  const found = statuses.find((s) => s.type === type)
  if (found === undefined) throw new Error(`no ${type} status`)
  return found
}

async function createOpportunity(body: Record<string, unknown>) {
  const res = await call(ctx.app, rep(), 'POST', '/opportunity/', { body: { lead_id: leadId, ...body } })
  expect(res.statusCode, res.body).toBe(200)
  return res.json<{ id: string; [key: string]: unknown }>()
}

async function updateOpportunity(id: string, body: Record<string, unknown>) {
  const res = await call(ctx.app, rep(), 'PUT', `/opportunity/${id}/`, { body })
  expect(res.statusCode, res.body).toBe(200)
  return res.json<{ id: string; [key: string]: unknown }>()
}

/** Every `opportunity_due` task of the lead, open or not. */
async function dueTasks(lead = leadId, headers: Record<string, string> = {}): Promise<TaskView[]> {
  const res = await call(ctx.app, rep(), 'GET', '/task/', {
    query: { _type: 'opportunity_due', lead_id: lead },
    headers,
  })
  expect(res.statusCode, res.body).toBe(200)
  return res.json<{ data: TaskView[] }>().data
}

/** The due tasks of one opportunity. */
async function dueOf(opportunityId: string, lead = leadId): Promise<TaskView[]> {
  return (await dueTasks(lead)).filter((t) => t.object_id === opportunityId)
}

async function nestedTasks(lead = leadId) {
  const res = await call(ctx.app, rep(), 'GET', `/lead/${lead}/`)
  expect(res.statusCode, res.body).toBe(200)
  return res.json<{ tasks: TaskView[] }>().tasks
}

/** The lead's own task is untouched by everything here. */
async function expectLeadTaskUntouched() {
  const res = await call(ctx.app, rep(), 'GET', `/task/${leadTaskId}/`)
  expect(res.statusCode, res.body).toBe(200)
  expect(res.json()).toMatchObject({
    _type: 'lead',
    text: 'Call them back',
    date: '2026-03-20',
    is_complete: false,
    lead_id: leadId,
    assigned_to: ctx.org.member.id,
  })
  expect(res.json<TaskView>().date_updated).toBe(res.json<TaskView>().date_created)
}

beforeAll(async () => {
  ctx = await createTestContext()
  const lead = await call(ctx.app, rep(), 'POST', '/lead/', {
    body: { name: 'Due Dates Co', contacts: [{ name: 'Ann Able' }, { name: 'Ben Baker' }] },
  })
  leadId = lead.json().id
  const contacts = lead.json<{ contacts: { id: string; name: string }[] }>().contacts
  contactA = contacts.find((c) => c.name === 'Ann Able')?.id ?? ''
  contactB = contacts.find((c) => c.name === 'Ben Baker')?.id ?? ''
  statuses = (await call(ctx.app, rep(), 'GET', '/status/opportunity/')).json().data
  const task = await call(ctx.app, rep(), 'POST', '/task/', {
    body: { lead_id: leadId, text: 'Call them back', date: '2026-03-20' },
  })
  expect(task.statusCode, task.body).toBe(200)
  leadTaskId = task.json().id
})
beforeEach(() => {
  ctx.clock.set(new Date('2026-03-01T12:00:00.000Z'))
})
afterAll(async () => {
  await ctx.close()
})

describe('an opportunity’s due task', () => {
  it('is made for an active opportunity with a date_won, with the opportunity’s fields', async () => {
    const opp = await createOpportunity({
      date_won: '2026-03-15',
      value: 250_000,
      value_period: 'monthly',
      note: 'Renewal',
      contact_id: contactA,
      user_id: ctx.org.admin.id,
    })
    const due = await dueOf(opp.id)
    expect(due).toHaveLength(1)
    const task = due[0]
    expect(task?.id).toMatch(/^noti_/)
    expect(task).toMatchObject({
      _type: 'opportunity_due',
      view: 'future',
      organization_id: ctx.org.id,
      lead_id: leadId,
      lead_name: 'Due Dates Co',
      contact_id: contactA,
      contact_name: 'Ann Able',
      assigned_to: ctx.org.admin.id,
      assigned_to_name: 'Ada Admin',
      date: '2026-03-15',
      due_date: '2026-03-15',
      is_dateless: false,
      is_complete: false,
      object_type: 'opportunity',
      object_id: opp.id,
      opportunity_value: 250_000,
      opportunity_value_currency: opp.value_currency,
      opportunity_value_formatted: opp.value_formatted,
      opportunity_value_period: 'monthly',
      opportunity_note: 'Renewal',
      opportunity_status_id: opp.status_id,
      opportunity_status_label: opp.status_label,
      opportunity_status_type: 'active',
      created_by: ctx.org.member.id,
    })
    expect(opp.value_formatted).toEqual(expect.any(String))
    expect(opp.value_currency).toBe('USD')
    // GET /task/{id}/ agrees, and the lead shows it among its open tasks.
    expect((await call(ctx.app, rep(), 'GET', `/task/${task?.id ?? ''}/`)).json()).toEqual(task)
    expect((await nestedTasks()).map((t) => t.id)).toContain(task?.id)
    // The default list (lead tasks only) does not show it.
    const plain = await call(ctx.app, rep(), 'GET', '/task/', { query: { lead_id: leadId } })
    expect((plain.json().data as TaskView[]).map((t) => t.id)).not.toContain(task?.id)

    // Its opportunity fields follow the opportunity.
    await updateOpportunity(opp.id, { value: 1000, value_period: 'one_time', note: 'Smaller', value_currency: 'EUR' })
    const changed = await updateOpportunity(opp.id, {})
    const [after] = await dueOf(opp.id)
    expect(after).toMatchObject({
      id: task?.id,
      opportunity_value: 1000,
      opportunity_value_currency: 'EUR',
      opportunity_value_formatted: changed.value_formatted,
      opportunity_value_period: 'one_time',
      opportunity_note: 'Smaller',
    })
    expect((await nestedTasks()).find((t) => t.id === task?.id)).toMatchObject({ opportunity_note: 'Smaller' })
    await expectLeadTaskUntouched()
  })

  it('is not made for an active opportunity without a date_won', async () => {
    const opp = await createOpportunity({ value: 100 })
    expect(await dueOf(opp.id)).toEqual([])
    await updateOpportunity(opp.id, { note: 'Still undated' })
    expect(await dueOf(opp.id)).toEqual([])
  })

  it('is not made for an opportunity created won or lost', async () => {
    const won = await createOpportunity({ status_id: status('won').id, date_won: '2026-03-01' })
    const lost = await createOpportunity({ status_id: status('lost').id, date_won: '2026-03-01' })
    expect(await dueOf(won.id)).toEqual([])
    expect(await dueOf(lost.id)).toEqual([])
  })

  it('follows date_won, owner and contact, and goes when date_won is cleared', async () => {
    const opp = await createOpportunity({ date_won: '2026-03-10', contact_id: contactA })
    const [task] = await dueOf(opp.id)
    expect(task).toMatchObject({ date: '2026-03-10', assigned_to: ctx.org.member.id, contact_id: contactA })

    await updateOpportunity(opp.id, { date_won: '2026-02-27' })
    expect(await dueOf(opp.id)).toMatchObject([{ id: task?.id, date: '2026-02-27', view: 'inbox' }])
    await updateOpportunity(opp.id, { user_id: ctx.org.admin.id })
    expect(await dueOf(opp.id)).toMatchObject([
      { id: task?.id, assigned_to: ctx.org.admin.id, assigned_to_name: 'Ada Admin', date: '2026-02-27' },
    ])
    await updateOpportunity(opp.id, { contact_id: contactB })
    expect(await dueOf(opp.id)).toMatchObject([{ id: task?.id, contact_id: contactB, contact_name: 'Ben Baker' }])
    await updateOpportunity(opp.id, { contact_id: null })
    expect(await dueOf(opp.id)).toMatchObject([{ id: task?.id, contact_id: null, contact_name: null }])
    const nested = (await nestedTasks()).find((t) => t.id === task?.id)
    expect(nested).toMatchObject({ date: '2026-02-27', assigned_to: ctx.org.admin.id, contact_id: null })

    await updateOpportunity(opp.id, { date_won: null })
    expect(await dueOf(opp.id)).toEqual([])
    expect((await nestedTasks()).map((t) => t.id)).not.toContain(task?.id)
    expect((await call(ctx.app, rep(), 'GET', `/task/${task?.id ?? ''}/`)).statusCode).toBe(404)

    // Dated again: one open task again.
    await updateOpportunity(opp.id, { date_won: '2026-04-01' })
    expect(await dueOf(opp.id)).toMatchObject([
      { date: '2026-04-01', is_complete: false, assigned_to: ctx.org.admin.id, contact_id: null },
    ])
    await expectLeadTaskUntouched()
  })

  it('is completed when won or lost, and open again when active and dated again', async () => {
    const opp = await createOpportunity({ date_won: '2026-03-12' })
    const [task] = await dueOf(opp.id)

    await updateOpportunity(opp.id, { status_id: status('won').id })
    expect(await dueOf(opp.id)).toMatchObject([{ id: task?.id, is_complete: true, view: 'archive' }])
    expect((await nestedTasks()).map((t) => t.id)).not.toContain(task?.id)
    const archive = await call(ctx.app, rep(), 'GET', '/task/', {
      query: { _type: 'opportunity_due', lead_id: leadId, view: 'archive' },
    })
    expect((archive.json().data as TaskView[]).map((t) => t.id)).toContain(task?.id)

    await updateOpportunity(opp.id, { status_id: status('active').id })
    expect(await dueOf(opp.id)).toMatchObject([
      { id: task?.id, is_complete: false, date: '2026-03-12', view: 'future' },
    ])
    expect((await nestedTasks()).map((t) => t.id)).toContain(task?.id)

    await updateOpportunity(opp.id, { status_id: status('lost').id })
    expect(await dueOf(opp.id)).toMatchObject([{ id: task?.id, is_complete: true, view: 'archive' }])
    // Changing a lost one's date_won leaves its task complete.
    await updateOpportunity(opp.id, { date_won: '2026-03-20' })
    expect(await dueOf(opp.id)).toMatchObject([{ id: task?.id, is_complete: true, date: '2026-03-12' }])

    await updateOpportunity(opp.id, { status_id: status('active').id })
    expect(await dueOf(opp.id)).toMatchObject([{ id: task?.id, is_complete: false, date: '2026-03-20' }])

    // Won without a date_won: dated the caller's today, and its task completed.
    await updateOpportunity(opp.id, { date_won: null })
    expect(await dueOf(opp.id)).toEqual([])
    const won = await updateOpportunity(opp.id, { status_id: status('won').id })
    expect(won.date_won).toBe('2026-03-01')
    // Back to active, dated by the win: open again.
    await updateOpportunity(opp.id, { status_id: status('active').id })
    expect(await dueOf(opp.id)).toMatchObject([{ is_complete: false, date: '2026-03-01', view: 'inbox' }])
    await expectLeadTaskUntouched()
  })

  it('goes with its opportunity', async () => {
    const opp = await createOpportunity({ date_won: '2026-03-05' })
    const keep = await createOpportunity({ date_won: '2026-03-06' })
    const [task] = await dueOf(opp.id)
    expect((await call(ctx.app, rep(), 'DELETE', `/opportunity/${opp.id}/`)).statusCode).toBe(200)
    expect((await call(ctx.app, rep(), 'GET', `/task/${task?.id ?? ''}/`)).statusCode).toBe(404)
    expect((await nestedTasks()).map((t) => t.id)).not.toContain(task?.id)
    expect(await dueOf(keep.id)).toHaveLength(1)

    // A won one's completed task goes too.
    await updateOpportunity(keep.id, { status_id: status('won').id })
    const [completed] = await dueOf(keep.id)
    expect(completed?.is_complete).toBe(true)
    expect((await call(ctx.app, rep(), 'DELETE', `/opportunity/${keep.id}/`)).statusCode).toBe(200)
    expect((await call(ctx.app, rep(), 'GET', `/task/${completed?.id ?? ''}/`)).statusCode).toBe(404)
    await expectLeadTaskUntouched()
  })

  it('stays completed by its user through edits that leave its day, until it is dated again', async () => {
    const opp = await createOpportunity({ date_won: '2026-03-05', contact_id: contactA })
    const [task] = await dueOf(opp.id)
    const done = await call(ctx.app, rep(), 'PUT', `/task/${task?.id ?? ''}/`, { body: { is_complete: true } })
    expect(done.statusCode, done.body).toBe(200)

    await updateOpportunity(opp.id, { note: 'Edited', value: 4200, confidence: 80 })
    expect(await dueOf(opp.id)).toMatchObject([{ id: task?.id, is_complete: true, date: '2026-03-05' }])
    // Owner and contact still follow.
    await updateOpportunity(opp.id, { user_id: ctx.org.admin.id, contact_id: contactB })
    expect(await dueOf(opp.id)).toMatchObject([
      { id: task?.id, is_complete: true, assigned_to: ctx.org.admin.id, contact_id: contactB },
    ])
    expect((await nestedTasks()).map((t) => t.id)).not.toContain(task?.id)
    // A new day is a new due: open again.
    await updateOpportunity(opp.id, { date_won: '2026-03-06' })
    expect(await dueOf(opp.id)).toMatchObject([{ id: task?.id, is_complete: false, date: '2026-03-06' }])

    // A day its user set stays through an unrelated edit too.
    const moved = await call(ctx.app, rep(), 'PUT', `/task/${task?.id ?? ''}/`, { body: { date: '2026-03-04' } })
    expect(moved.statusCode, moved.body).toBe(200)
    await updateOpportunity(opp.id, { note: 'Edited again' })
    expect(await dueOf(opp.id)).toMatchObject([{ id: task?.id, is_complete: false, date: '2026-03-04' }])
    await updateOpportunity(opp.id, { date_won: '2026-03-07' })
    expect(await dueOf(opp.id)).toMatchObject([{ id: task?.id, is_complete: false, date: '2026-03-07' }])
  })

  it('stays one task through many changes', async () => {
    const opp = await createOpportunity({ date_won: '2026-03-05' })
    const changes: Record<string, unknown>[] = [
      { status_id: status('won').id },
      { status_id: status('active').id },
      { date_won: null },
      { date_won: '2026-03-07' },
      { status_id: status('lost').id },
      { status_id: status('active').id },
      { user_id: ctx.org.admin.id, date_won: '2026-03-08' },
    ]
    for (const change of changes) {
      await updateOpportunity(opp.id, change)
      expect((await dueOf(opp.id)).length).toBeLessThanOrEqual(1)
    }
    expect(await dueOf(opp.id)).toMatchObject([
      { is_complete: false, date: '2026-03-08', assigned_to: ctx.org.admin.id },
    ])
  })
})

describe('a status’s type change', () => {
  it('moves the due tasks of its opportunities (PUT /status/opportunity/{id}/)', async () => {
    const created = await call(ctx.app, admin(), 'POST', '/status/opportunity/', {
      body: { label: 'Negotiation', type: 'active' },
    })
    expect(created.statusCode, created.body).toBe(200)
    const negotiation = created.json<Status>()
    const dated = await createOpportunity({ status_id: negotiation.id, date_won: '2026-03-09' })
    const undated = await createOpportunity({ status_id: negotiation.id })
    const elsewhere = await createOpportunity({ date_won: '2026-03-09' })
    const [task] = await dueOf(dated.id)
    const [other] = await dueOf(elsewhere.id)
    expect(task?.is_complete).toBe(false)

    const toWon = await call(ctx.app, admin(), 'PUT', `/status/opportunity/${negotiation.id}/`, {
      body: { type: 'won' },
    })
    expect(toWon.statusCode, toWon.body).toBe(200)
    expect(await dueOf(dated.id)).toMatchObject([{ id: task?.id, is_complete: true, view: 'archive' }])
    expect(await dueOf(undated.id)).toEqual([])
    expect(await dueOf(elsewhere.id)).toEqual([other])
    expect((await nestedTasks()).map((t) => t.id)).not.toContain(task?.id)
    // Born in the status while it is won: no due task until the status becomes active.
    const bornWon = await createOpportunity({ status_id: negotiation.id, date_won: '2026-03-10' })
    expect(await dueOf(bornWon.id)).toEqual([])

    const toActive = await call(ctx.app, admin(), 'PUT', `/status/opportunity/${negotiation.id}/`, {
      body: { type: 'active' },
    })
    expect(toActive.statusCode, toActive.body).toBe(200)
    expect(await dueOf(dated.id)).toMatchObject([{ id: task?.id, is_complete: false, date: '2026-03-09' }])
    expect(await dueOf(undated.id)).toEqual([])
    expect(await dueOf(bornWon.id)).toMatchObject([
      { is_complete: false, date: '2026-03-10', lead_id: leadId, assigned_to: ctx.org.member.id },
    ])
    expect((await nestedTasks()).map((t) => t.id)).toContain(task?.id)

    const toLost = await call(ctx.app, admin(), 'PUT', `/status/opportunity/${negotiation.id}/`, {
      body: { type: 'lost', label: 'Negotiation (lost)' },
    })
    expect(toLost.statusCode, toLost.body).toBe(200)
    expect(await dueOf(dated.id)).toMatchObject([{ id: task?.id, is_complete: true }])
    // A label change alone leaves it as it is.
    await call(ctx.app, admin(), 'PUT', `/status/opportunity/${negotiation.id}/`, { body: { label: 'Negotiation' } })
    expect(await dueOf(dated.id)).toMatchObject([{ id: task?.id, is_complete: true }])
    await expectLeadTaskUntouched()
  })

  it('moves the due tasks of its opportunities (PUT /pipeline/{id}/)', async () => {
    const pipelineRes = await call(ctx.app, admin(), 'POST', '/pipeline/', {
      body: {
        name: 'Renewals',
        statuses: [
          { label: 'Renewing', type: 'active' },
          { label: 'Renewed', type: 'won' },
        ],
      },
    })
    expect(pipelineRes.statusCode, pipelineRes.body).toBe(201)
    const pipeline = pipelineRes.json<{ id: string; statuses: Status[] }>()
    const [renewing, renewed] = pipeline.statuses
    const opp = await createOpportunity({ status_id: renewing?.id, date_won: '2026-03-11' })
    const [task] = await dueOf(opp.id)
    expect(task?.is_complete).toBe(false)

    const flip = async (renewingType: string) => {
      const res = await call(ctx.app, admin(), 'PUT', `/pipeline/${pipeline.id}/`, {
        body: {
          statuses: [
            { id: renewing?.id, label: 'Renewing', type: renewingType },
            { id: renewed?.id, label: 'Renewed', type: 'won' },
          ],
        },
      })
      expect(res.statusCode, res.body).toBe(200)
    }
    await flip('lost')
    expect(await dueOf(opp.id)).toMatchObject([{ id: task?.id, is_complete: true, view: 'archive' }])
    await flip('active')
    expect(await dueOf(opp.id)).toMatchObject([{ id: task?.id, is_complete: false, date: '2026-03-11' }])
    await flip('won')
    expect(await dueOf(opp.id)).toMatchObject([{ id: task?.id, is_complete: true }])
    await flip('active')
    expect(await dueOf(opp.id)).toMatchObject([{ id: task?.id, is_complete: false }])
    expect((await nestedTasks()).map((t) => t.id)).toContain(task?.id)
    await expectLeadTaskUntouched()
  })
})
