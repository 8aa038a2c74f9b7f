import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { TASK_TYPES, type TaskType } from '@leadline/shared/task-schema'
import { call, createTestContext, type TestContext, type TestOrg } from '../../tooling/test-support/test-app.js'
import { formatTimestamp } from '../../platform/data/time.js'
import { insertTask } from './task-repo.js'

let ctx: TestContext
let leadId = ''
let otherLeadId = ''
let contactId = ''
const rep = () => ctx.org.member.key
const admin = () => ctx.org.admin.key

type Body = Record<string, unknown>

async function createTask(body: Body, key = rep(), headers: Record<string, string> = {}) {
  const res = await call(ctx.app, key, 'POST', '/task/', { body: { lead_id: leadId, ...body }, headers })
  expect(res.statusCode, res.body).toBe(200)
  return res.json<Body & { id: string }>()
}

async function listTasks(query: Record<string, string>, key = rep(), headers: Record<string, string> = {}) {
  const res = await call(ctx.app, key, 'GET', '/task/', { query, headers })
  expect(res.statusCode, res.body).toBe(200)
  return res.json<{ data: (Body & { id: string })[] }>().data
}

/** A task of a system type, as the calls, emails and texts issues will make them. */
async function systemTask(org: TestOrg, lead: string, type: TaskType, data: Body = {}, date: string | null = null) {
  return insertTask(ctx.database.db, {
    organizationId: org.id,
    leadId: lead,
    type,
    assignedTo: org.member.id,
    contactId: null,
    text: type === 'incoming_sms' ? 'Are you free at 3?' : '',
    date,
    today: formatTimestamp(ctx.clock.now()).slice(0, 10),
    objectId: `obj_${type}`,
    data,
    userId: null,
    now: formatTimestamp(ctx.clock.now()),
  })
}

beforeAll(async () => {
  ctx = await createTestContext()
  const lead = await call(ctx.app, rep(), 'POST', '/lead/', {
    body: { name: 'Task Host Co', contacts: [{ name: 'Tia Contact' }] },
  })
  leadId = lead.json().id
  contactId = lead.json().contacts[0].id
  otherLeadId = (await call(ctx.app, rep(), 'POST', '/lead/', { body: { name: 'Other Task Co' } })).json().id
})
afterAll(async () => {
  await ctx.close()
})

describe('POST /task/', () => {
  it('creates a dateless lead task with Close’s fields, assigned to the caller, in the inbox', async () => {
    ctx.clock.set(new Date('2026-05-04T10:00:00.000Z'))
    const task = await createTask({ text: 'Call back about pricing', id: 'task_mine', view: 'future' })
    expect(task.id).toMatch(/^task_[0-9A-Za-z]{43}$/)
    // The keys of Close's recorded create_task response, and `date_completed`, which Leadline adds.
    expect(Object.keys(task).sort()).toEqual(
      [
        'date_completed',
        '_type',
        'assigned_to',
        'assigned_to_name',
        'contact_id',
        'contact_name',
        'created_by',
        'created_by_name',
        'date',
        'date_created',
        'date_updated',
        'due_date',
        'id',
        'is_complete',
        'is_dateless',
        'lead_id',
        'lead_name',
        'object_id',
        'object_type',
        'organization_id',
        'text',
        'updated_by',
        'updated_by_name',
        'view',
      ].sort(),
    )
    expect(task).toMatchObject({
      _type: 'lead',
      organization_id: ctx.org.id,
      lead_id: leadId,
      lead_name: 'Task Host Co',
      contact_id: null,
      contact_name: null,
      assigned_to: ctx.org.member.id,
      assigned_to_name: 'Rey Rep',
      text: 'Call back about pricing',
      date: '2026-05-04',
      due_date: null,
      is_dateless: true,
      is_complete: false,
      object_type: null,
      object_id: null,
      view: 'inbox',
      created_by: ctx.org.member.id,
      created_by_name: 'Rey Rep',
      updated_by: ctx.org.member.id,
      date_created: expect.stringMatching(/^2026-05-04T10:00:00\.\d{6}\+00:00$/),
    })
    expect((await call(ctx.app, rep(), 'GET', `/task/${task.id}/`)).json()).toEqual(task)
  })

  it('takes a date or a timestamp (normalized to UTC), the deprecated due_date, an assignee and a contact', async () => {
    const day = await createTask({ date: '2026-06-01', assigned_to: ctx.org.admin.id, contact_id: contactId })
    expect(day).toMatchObject({
      date: '2026-06-01',
      due_date: '2026-06-01',
      is_dateless: false,
      assigned_to: ctx.org.admin.id,
      assigned_to_name: 'Ada Admin',
      contact_id: contactId,
      contact_name: 'Tia Contact',
    })
    const timed = await createTask({ date: '2026-06-01T09:30:00-04:00' })
    expect(timed.date).toBe('2026-06-01T13:30:00.000000+00:00')
    const legacy = await createTask({ due_date: '2026-07-01' })
    expect(legacy).toMatchObject({ date: '2026-07-01', due_date: '2026-07-01' })
  })

  it('creates a completed task: archived, pointing at the TaskCompleted it recorded on the lead', async () => {
    const task = await createTask({ text: 'Already done', date: '2026-01-01', is_complete: true })
    expect(task).toMatchObject({ is_complete: true, view: 'archive', object_type: 'taskcompleted' })
    expect(String(task.object_id)).toMatch(/^acti_/)
    const activity = await call(ctx.app, rep(), 'GET', `/activity/task_completed/${String(task.object_id)}/`)
    expect(activity.statusCode, activity.body).toBe(200)
    expect(activity.json()).toMatchObject({
      _type: 'TaskCompleted',
      task_id: task.id,
      task_text: 'Already done',
      lead_id: leadId,
      user_id: ctx.org.member.id,
    })
    const timeline = (await call(ctx.app, rep(), 'GET', '/activity/', { query: { lead_id: leadId } })).json().data
    expect(timeline.map((a: Body) => a.id)).toContain(task.object_id)
    const byTask = await call(ctx.app, rep(), 'GET', '/activity/task_completed/', { query: { task_id: task.id } })
    expect(byTask.json().data.map((a: Body) => a.id)).toEqual([task.object_id])
  })

  it.each([
    ['no lead', { lead_id: undefined }, 'lead'],
    ['an unknown lead', { lead_id: 'lead_nope' }, 'lead'],
    ['another organization’s lead', { lead_id: 'OTHER_LEAD' }, 'lead'],
    ['a system type', { _type: 'missed_call' }, '_type'],
    ['an unknown type', { _type: 'chore' }, '_type'],
    ['an assignee who is not a member', { assigned_to: 'OTHER_USER' }, 'assigned_to'],
    ['an unknown assignee', { assigned_to: 'user_nope' }, 'assigned_to'],
    ['a contact of another lead', { contact_id: 'CONTACT_ELSEWHERE' }, 'contact_id'],
    ['a date that is not one', { date: '2026-02-30' }, 'date'],
    ['a date in words', { date: 'tomorrow' }, 'date'],
    ['a bad due_date', { due_date: '01/02/2026' }, 'due_date'],
    ['a text that is not text', { text: 12 }, 'text'],
    ['is_complete that is not a boolean', { is_complete: 'yes' }, 'is_complete'],
  ])('refuses %s with a field error, storing nothing', async (_, patch, field) => {
    const otherLead = (await call(ctx.app, ctx.other.admin.key, 'POST', '/lead/', { body: { name: 'Theirs' } })).json()
    const elsewhere = (
      await call(ctx.app, rep(), 'POST', '/contact/', { body: { lead_id: otherLeadId, name: 'Elsewhere' } })
    ).json().id
    const body: Body = { lead_id: leadId, text: 'Should not exist' }
    for (const [key, value] of Object.entries(patch)) {
      body[key] = value === 'OTHER_LEAD' ? otherLead.id : value === 'OTHER_USER' ? ctx.other.admin.id : value
      if (value === 'CONTACT_ELSEWHERE') body[key] = elsewhere
    }
    const before = await listTasks({ _type: 'all', _limit: '1000' })
    const res = await call(ctx.app, rep(), 'POST', '/task/', { body })
    expect(res.statusCode, res.body).toBe(400)
    expect(Object.keys(res.json()['field-errors'])).toContain(field)
    expect(await listTasks({ _type: 'all', _limit: '1000' })).toEqual(before)
  })
})

describe('TaskCompleted activities', () => {
  it('are listed by lead and task, read one by one, and deleted without reopening the task', async () => {
    const task = await createTask({ text: 'Log the call', is_complete: true })
    const completion = String(task.object_id)
    const byLead = await call(ctx.app, rep(), 'GET', '/activity/task_completed/', { query: { lead_id: leadId } })
    expect(byLead.json().data.map((a: Body) => a.id)).toContain(completion)
    const elsewhere = await call(ctx.app, rep(), 'GET', '/activity/task_completed/', {
      query: { lead_id: otherLeadId },
    })
    expect(elsewhere.json().data.map((a: Body) => a.id)).not.toContain(completion)
    expect(
      (await call(ctx.app, ctx.other.admin.key, 'DELETE', `/activity/task_completed/${completion}/`)).statusCode,
    ).toBe(404)
    const deleted = await call(ctx.app, rep(), 'DELETE', `/activity/task_completed/${completion}/`)
    expect(deleted.statusCode).toBe(200)
    expect(deleted.json()).toEqual({})
    expect((await call(ctx.app, rep(), 'GET', `/activity/task_completed/${completion}/`)).statusCode).toBe(404)
    expect((await call(ctx.app, rep(), 'GET', `/task/${task.id}/`)).json()).toMatchObject({
      is_complete: true,
      object_type: null,
      object_id: null,
    })
  })
})

describe('one task: GET, PUT, DELETE', () => {
  it('changes text, date, assignee and completion; reopening keeps the TaskCompleted', async () => {
    const task = await createTask({ text: 'Draft', date: '2026-06-10' })
    ctx.clock.advance(1000)
    const res = await call(ctx.app, admin(), 'PUT', `/task/${task.id}/`, {
      body: {
        text: 'Send proposal',
        date: '2026-06-11T15:00:00Z',
        assigned_to: ctx.org.admin.id,
        lead_id: otherLeadId,
      },
    })
    expect(res.statusCode, res.body).toBe(200)
    expect(res.json()).toMatchObject({
      text: 'Send proposal',
      date: '2026-06-11T15:00:00.000000+00:00',
      assigned_to: ctx.org.admin.id,
      lead_id: leadId,
      updated_by: ctx.org.admin.id,
      updated_by_name: 'Ada Admin',
      created_by: ctx.org.member.id,
    })
    expect(res.json().date_updated > String(task.date_updated)).toBe(true)
    const done = (await call(ctx.app, rep(), 'PUT', `/task/${task.id}/`, { body: { is_complete: true } })).json()
    expect(done).toMatchObject({ is_complete: true, view: 'archive', object_type: 'taskcompleted' })
    const again = (await call(ctx.app, rep(), 'PUT', `/task/${task.id}/`, { body: { is_complete: true } })).json()
    expect(again.object_id).toBe(done.object_id)
    const reopened = (await call(ctx.app, rep(), 'PUT', `/task/${task.id}/`, { body: { is_complete: false } })).json()
    expect(reopened).toMatchObject({ is_complete: false, object_type: null, object_id: null })
    const completions = await call(ctx.app, rep(), 'GET', '/activity/task_completed/', { query: { task_id: task.id } })
    expect(completions.json().data).toHaveLength(1)
    const dateless = (await call(ctx.app, rep(), 'PUT', `/task/${task.id}/`, { body: { date: null } })).json()
    expect(dateless).toMatchObject({ is_dateless: true, due_date: null, view: 'inbox' })
  })

  it('changes assignee, date and completion of a system task, but not its text', async () => {
    const id = await systemTask(ctx.org, leadId, 'missed_call', { phone: '+15550100' })
    const res = await call(ctx.app, rep(), 'PUT', `/task/${id}/`, { body: { text: 'Not mine to write' } })
    expect(res.statusCode).toBe(400)
    expect(Object.keys(res.json()['field-errors'])).toEqual(['text'])
    const ok = await call(ctx.app, rep(), 'PUT', `/task/${id}/`, {
      body: { assigned_to: ctx.org.admin.id, date: '2026-06-12', is_complete: true },
    })
    expect(ok.statusCode, ok.body).toBe(200)
    expect(ok.json()).toMatchObject({
      _type: 'missed_call',
      assigned_to: ctx.org.admin.id,
      date: '2026-06-12',
      is_complete: true,
      object_type: 'call',
      object_id: 'obj_missed_call',
    })
  })

  it('keeps a dateless task dateless when it is sent back as read; a date sent alone dates it, even its own day', async () => {
    const task = await createTask({ text: 'Someday' })
    expect(task).toMatchObject({ is_dateless: true, due_date: null })
    const sentBack = await call(ctx.app, rep(), 'PUT', `/task/${task.id}/`, { body: { ...task, text: 'Someday soon' } })
    expect(sentBack.statusCode, sentBack.body).toBe(200)
    expect(sentBack.json()).toMatchObject({ text: 'Someday soon', is_dateless: true, due_date: null, view: 'inbox' })
    const dated = await call(ctx.app, rep(), 'PUT', `/task/${task.id}/`, { body: { date: task.date } })
    expect(dated.json()).toMatchObject({ is_dateless: false, date: task.date, due_date: task.date })
  })

  it('takes a system task sent back as read, its text unchanged', async () => {
    const id = await systemTask(ctx.org, leadId, 'incoming_sms', { remote_phone: '+14155550100' })
    const read = (await call(ctx.app, rep(), 'GET', `/task/${id}/`)).json<Body>()
    expect(read.text).toBe('Are you free at 3?')
    const res = await call(ctx.app, rep(), 'PUT', `/task/${id}/`, { body: { ...read, is_complete: true } })
    expect(res.statusCode, res.body).toBe(200)
    expect(res.json()).toMatchObject({ text: 'Are you free at 3?', is_complete: true })
    const changed = await call(ctx.app, rep(), 'PUT', `/task/${id}/`, { body: { ...read, text: 'Mine now' } })
    expect(changed.statusCode).toBe(400)
    expect(Object.keys(changed.json()['field-errors'])).toEqual(['text'])
  })

  it.each([
    [{ assigned_to: 'user_nope' }, 'assigned_to'],
    [{ date: '2026-13-01' }, 'date'],
    [{ is_complete: 'done' }, 'is_complete'],
    [{ contact_id: 'cont_nope' }, 'contact_id'],
  ])('refuses %j, changing nothing', async (body, field) => {
    const task = await createTask({ text: 'Stays', date: '2026-06-10' })
    const res = await call(ctx.app, rep(), 'PUT', `/task/${task.id}/`, { body: { text: 'Changed', ...body } })
    expect(res.statusCode).toBe(400)
    expect(Object.keys(res.json()['field-errors'])).toEqual([field])
    expect((await call(ctx.app, rep(), 'GET', `/task/${task.id}/`)).json()).toEqual(task)
  })

  it('deletes a task (200 {}), then 404; another organization sees none of it', async () => {
    const task = await createTask({ text: 'Short-lived' })
    for (const method of ['GET', 'PUT', 'DELETE'] as const) {
      const res = await call(ctx.app, ctx.other.admin.key, method, `/task/${task.id}/`, {
        ...(method === 'PUT' ? { body: { is_complete: true } } : {}),
      })
      expect(res.statusCode, `${method}: ${res.body}`).toBe(404)
      expect(res.json()).toHaveProperty('error')
    }
    const deleted = await call(ctx.app, rep(), 'DELETE', `/task/${task.id}/`)
    expect(deleted.statusCode).toBe(200)
    expect(deleted.json()).toEqual({})
    expect((await call(ctx.app, rep(), 'GET', `/task/${task.id}/`)).statusCode).toBe(404)
    expect((await call(ctx.app, rep(), 'DELETE', `/task/${task.id}/`)).statusCode).toBe(404)
  })
})

describe('the eight types', () => {
  const shapes: Record<TaskType, [string | null, Body]> = {
    lead: [null, {}],
    incoming_email: ['emailthread', { emails: ['acti_1', 'acti_2'], subject: 'Re: pricing', body_preview: 'Hi…' }],
    email_followup: ['emailthread', { email_id: 'acti_3', subject: 'Proposal', body_preview: 'As promised…' }],
    missed_call: ['call', { phone: '+15550101', local_phone: '+15550199' }],
    answered_detached_call: ['call', { phone: '+15550102', recording_url: 'https://example.com/r.mp3' }],
    voicemail: [
      'call',
      {
        phone: '+15550103',
        local_phone: '+15550199',
        voicemail_duration: 42,
        voicemail_url: 'https://example.com/v.mp3',
      },
    ],
    opportunity_due: ['opportunity', {}],
    incoming_sms: ['sms', { remote_phone: '+15550104', local_phone: '+15550199', attachments: [] }],
  }

  it('shows each type’s object and its own fields; only lead tasks unless _type says otherwise', async () => {
    const org = await ctx.createOrg('Task types')
    const lead = (await call(ctx.app, org.member.key, 'POST', '/lead/', { body: { name: 'Types Co' } })).json()
    const ids = new Map<string, string>()
    for (const type of TASK_TYPES) ids.set(type, await systemTask(org, lead.id, type, shapes[type][1], '2026-06-01'))
    const all = await listTasks({ _type: 'all' }, org.member.key)
    expect(all.map((t) => t._type).sort()).toEqual([...TASK_TYPES].sort())
    for (const task of all) {
      const type = task._type as TaskType
      const [objectType, fields] = shapes[type]
      expect(task.id.startsWith(type === 'lead' ? 'task_' : 'noti_'), task.id).toBe(true)
      expect(task.object_type).toBe(objectType)
      expect(task).toMatchObject(fields)
      if (type === 'incoming_sms') expect(task.text).toBe('Are you free at 3?')
      if (type === 'opportunity_due') expect(task).toHaveProperty('opportunity_value_formatted')
      if (type !== 'lead' && type !== 'incoming_sms') expect(task).not.toHaveProperty('text')
    }
    expect((await listTasks({}, org.member.key)).map((t) => t._type)).toEqual(['lead'])
    const calls = await listTasks({ _type__in: 'missed_call,voicemail' }, org.member.key)
    expect(calls.map((t) => t._type).sort()).toEqual(['missed_call', 'voicemail'])
    expect((await listTasks({ _type: 'voicemail' }, org.member.key)).map((t) => t.id)).toEqual([ids.get('voicemail')])
  })
})

describe('filters and order', () => {
  it('filters by id, lead, assignee, membership, completion, dates and creation, also through _params', async () => {
    const org = await ctx.createOrg('Task filters')
    const lead = (await call(ctx.app, org.member.key, 'POST', '/lead/', { body: { name: 'Filter Co' } })).json()
    const other = (await call(ctx.app, org.member.key, 'POST', '/lead/', { body: { name: 'Filter Two' } })).json()
    ctx.clock.set(new Date('2026-03-10T12:00:00.000Z'))
    const make = async (body: Body, key = org.member.key) =>
      (await call(ctx.app, key, 'POST', '/task/', { body: { lead_id: lead.id, ...body } })).json<
        Body & { id: string }
      >()
    const a = await make({ text: 'a', date: '2026-03-09' })
    await make({ text: 'b', date: '2026-03-10T08:00:00Z', assigned_to: org.admin.id })
    ctx.clock.set(new Date('2026-03-11T12:00:00.000Z'))
    const c = await make({ text: 'c', date: '2026-03-12', lead_id: other.id, is_complete: true })
    const d = await make({ text: 'd' })
    const texts = async (query: Record<string, string>) =>
      (await listTasks({ _order_by: 'date_created', ...query }, org.member.key)).map((t) => t.text)
    expect(await texts({ id: a.id })).toEqual(['a'])
    expect(await texts({ id__in: `${a.id},${c.id}` })).toEqual(['a', 'c'])
    expect(await texts({ lead_id: other.id })).toEqual(['c'])
    expect(await texts({ assigned_to: org.admin.id })).toEqual(['b'])
    expect(await texts({ membership_id: org.admin.membershipId })).toEqual(['b'])
    expect(await texts({ membership_id: ctx.org.admin.membershipId })).toEqual([])
    expect(await texts({ is_complete: 'true' })).toEqual(['c'])
    expect(await texts({ is_complete: 'false' })).toEqual(['a', 'b', 'd'])
    expect(await texts({ date__lt: '2026-03-10' })).toEqual(['a'])
    expect(await texts({ date__lte: '2026-03-10' })).toEqual(['a', 'b'])
    expect(await texts({ date__gt: '2026-03-10' })).toEqual(['c', 'd'])
    expect(await texts({ date__gte: '2026-03-10T08:00:00Z' })).toEqual(['b', 'c', 'd'])
    expect(await texts({ date: '2026-03-10' })).toEqual(['b'])
    expect(await texts({ due_date: '2026-03-09' })).toEqual(['a'])
    // As Close documents it, `view=inbox` or `future` overrides `date__lt` and `date__gte`, not `date__lte`.
    expect(await texts({ view: 'inbox', date__gte: '2030-01-01' })).toEqual(['a', 'b', 'd'])
    // A dateless task carries its creation day (11 March), as Close shows it, and filters by it.
    expect(await texts({ view: 'inbox', date__lte: '2026-03-09' })).toEqual(['a'])
    expect(await texts({ view: 'archive', date__gte: '2030-01-01' })).toEqual([])
    expect(await texts({ due_date__lt: '2026-03-10' })).toEqual(['a'])
    expect(await texts({ date_created__gte: '2026-03-11' })).toEqual(['c', 'd'])
    expect(await texts({ date_created__lt: '2026-03-11T00:00:00Z' })).toEqual(['a', 'b'])
    const viaParams = await call(ctx.app, org.member.key, 'POST', '/task/', {
      headers: { 'x-http-method-override': 'GET' },
      body: { _params: { lead_id: other.id, is_complete: true } },
    })
    expect(viaParams.statusCode, viaParams.body).toBe(200)
    expect(viaParams.json().data.map((t: Body) => t.id)).toEqual([c.id])
    expect(d.is_dateless).toBe(true)
  })

  it.each([
    [{ view: 'today' }, 'view'],
    [{ _type: 'chore' }, '_type'],
    [{ _type__in: 'lead,chore' }, '_type__in'],
    [{ is_complete: 'maybe' }, 'is_complete'],
    [{ date__lt: 'next week' }, 'date__lt'],
    [{ date: '2026-03-10T08:00:00Z' }, 'date'],
    [{ date_created__gt: '2026-02-30' }, 'date_created__gt'],
    [{ _order_by: 'text' }, '_order_by'],
    [{ _limit: '1001' }, '_limit'],
  ])('refuses %o with a field error naming it', async (query, field) => {
    const res = await call(ctx.app, rep(), 'GET', '/task/', { query })
    expect(res.statusCode, res.body).toBe(400)
    expect(Object.keys(res.json()['field-errors'])).toEqual([field])
  })

  it('orders by date in the caller’s zone, a date-only task before the timed ones of its day; pages never repeat', async () => {
    const org = await ctx.createOrg('Task order')
    const lead = (await call(ctx.app, org.member.key, 'POST', '/lead/', { body: { name: 'Order Co' } })).json()
    const make = async (text: string, date: string) =>
      call(ctx.app, org.member.key, 'POST', '/task/', { body: { lead_id: lead.id, text, date } })
    // Close's own example, at −8: 2015-01-12 comes after 07:00 UTC on the 12th (the 11th, 23:00 there) and before
    // 08:00 UTC (midnight there), even at the same instant.
    await make('late on the 11th', '2015-01-12T07:00:00+00:00')
    await make('the 12th', '2015-01-12')
    await make('midnight on the 12th', '2015-01-12T08:00:00+00:00')
    await make('the 13th', '2015-01-13')
    await make('also the 12th', '2015-01-12')
    const order = async (query: Record<string, string>, offset: string) =>
      (await listTasks(query, org.member.key, { 'x-tz-offset': offset })).map((t) => t.text)
    const pst = await order({ _order_by: 'date' }, '-8')
    expect(pst.slice(0, 1)).toEqual(['late on the 11th'])
    expect(pst.slice(1, 3).sort()).toEqual(['also the 12th', 'the 12th'])
    expect(pst.slice(3)).toEqual(['midnight on the 12th', 'the 13th'])
    expect(await order({ _order_by: '-date' }, '-8')).toEqual([...pst].reverse())
    // At UTC the 12th starts at 00:00 UTC, before both timed tasks.
    const utc = await order({}, '0')
    expect(utc.slice(2)).toEqual(['late on the 11th', 'midnight on the 12th', 'the 13th'])
    const paged: unknown[] = []
    for (let skip = 0; skip < 5; skip++) {
      paged.push(...(await order({ _order_by: 'date', _limit: '1', _skip: String(skip) }, '-8')))
    }
    expect(paged).toEqual(pst)
    const created = await order({ _order_by: '-date_created' }, '0')
    expect(created).toHaveLength(5)
    // The archive's order: the most recently changed (completed) first.
    const [first] = (await listTasks({ _order_by: 'date_created' }, org.member.key)) as { id: string }[]
    await call(ctx.app, org.member.key, 'PUT', `/task/${first?.id ?? ''}/`, { body: { is_complete: true } })
    const updated = await order({ _order_by: '-date_updated', _type: 'all', is_complete: 'true' }, '0')
    expect(updated).toEqual([created.at(-1)])
    expect((await order({ _order_by: '-date_updated' }, '0'))[0]).toBe(created.at(-1))
    const done = await listTasks({ _order_by: '-date_completed' }, org.member.key)
    expect(done[0]).toMatchObject({ text: created.at(-1), date_completed: expect.stringMatching(/^\d{4}-/) })
    expect(done.slice(1).map((t) => t.date_completed)).toEqual([null, null, null, null])
  })
})

describe('ids alone: _fields=id', () => {
  it('answers the whole list’s ids, in its order, pages and has_more, for every view, order and zone', async () => {
    const org = await ctx.createOrg('Task ids')
    const lead = (await call(ctx.app, org.member.key, 'POST', '/lead/', { body: { name: 'Ids Co' } })).json()
    const dates = ['2015-01-12T07:00:00+00:00', '2015-01-12', '2015-01-12T08:00:00+00:00', '2099-01-13', '2015-01-12']
    for (const [i, date] of dates.entries()) {
      const body = { lead_id: lead.id, text: `task ${String(i)}`, date, is_complete: i === 4 }
      expect((await call(ctx.app, org.member.key, 'POST', '/task/', { body })).statusCode).toBe(200)
    }
    await call(ctx.app, org.admin.key, 'POST', '/task/', { body: { lead_id: lead.id, text: 'the admin’s' } })
    const page = async (query: Record<string, string>, offset: string) => {
      const res = await call(ctx.app, org.member.key, 'GET', '/task/', { query, headers: { 'x-tz-offset': offset } })
      expect(res.statusCode, res.body).toBe(200)
      return res.json<{ has_more: boolean; data: Body[] }>()
    }
    const queries: Record<string, string>[] = [
      {},
      { view: 'inbox', _type: 'all', assigned_to: org.member.id, _limit: '999' },
      { view: 'future', _order_by: 'date' },
      { view: 'archive', _order_by: '-date_completed' },
      { _order_by: '-date', _limit: '2', _skip: '1' },
      { _order_by: 'date', _limit: '3' },
      { _type: 'all', is_complete: 'false', _order_by: '-date_created' },
    ]
    let seen = 0
    for (const query of queries) {
      for (const offset of ['-8', '0', '5']) {
        const whole = await page(query, offset)
        for (const fields of ['id', ' id ,id']) {
          const ids = await page({ ...query, _fields: fields }, offset)
          expect(ids).toEqual({ has_more: whole.has_more, data: whole.data.map((task) => ({ id: task.id })) })
        }
        seen += whole.data.length
      }
    }
    expect(seen).toBeGreaterThan(20)
    // Another field beside the id still answers from the whole view.
    const [withText] = (await page({ _fields: 'id,text', _order_by: 'date', _limit: '1' }, '-8')).data
    expect(withText).toEqual({ id: expect.any(String), text: 'task 0' })
  })
})

describe('views in the caller’s time zone', () => {
  // 23:30 UTC on 1 March: already 2 March east of +0.5, still 1 March west of it.
  const now = new Date('2026-03-01T23:30:00.000Z')

  it.each([
    // offset, local today, is a task dated 2 March in the inbox, is one at 2 March 12:00 UTC
    ['-12', false, false],
    ['-4', false, false],
    ['0', false, false],
    ['5.5', true, true],
    // At +14 it is 2 March 13:30 there, and the day ends at 10:00 UTC, before noon UTC.
    ['14', true, false],
  ])(
    'at %s, dated tasks land in the inbox up to the end of the local today',
    async (offset, dayInInbox, noonInInbox) => {
      const org = await ctx.createOrg(`Views ${offset}`)
      const lead = (await call(ctx.app, org.member.key, 'POST', '/lead/', { body: { name: 'View Co' } })).json()
      ctx.clock.set(now)
      const make = async (body: Body) =>
        (await call(ctx.app, org.member.key, 'POST', '/task/', { body: { lead_id: lead.id, ...body } })).json<
          Body & { id: string }
        >()
      const yesterday = await make({ date: '2026-02-28' })
      const today = await make({ date: '2026-03-01' })
      const march2 = await make({ date: '2026-03-02' })
      const noon2 = await make({ date: '2026-03-02T12:00:00Z' })
      const soon = await make({ date: '2026-03-01T23:59:00Z' })
      const dateless = await make({})
      const done = await make({ date: '2026-03-05', is_complete: true })
      const headers = { 'x-tz-offset': offset }
      const ids = async (view: string) => new Set((await listTasks({ view }, org.member.key, headers)).map((t) => t.id))
      const inbox = await ids('inbox')
      const future = await ids('future')
      expect(await ids('archive')).toEqual(new Set([done.id]))
      // 1 March is today or past at every offset here, and 23:59 UTC on it is before each local day's end.
      const expectedInbox = [yesterday, today, dateless, soon]
      if (dayInInbox) expectedInbox.push(march2)
      if (noonInInbox) expectedInbox.push(noon2)
      expect(inbox).toEqual(new Set(expectedInbox.map((t) => t.id)))
      expect([...future].sort()).toEqual(
        [march2, noon2]
          .filter((t) => !inbox.has(t.id))
          .map((t) => t.id)
          .sort(),
      )
      for (const task of await listTasks({ _type: 'all' }, org.member.key, headers)) {
        const expected = task.id === done.id ? 'archive' : inbox.has(task.id) ? 'inbox' : 'future'
        expect(task.view, task.id).toBe(expected)
      }
    },
  )

  it('puts a date-only task on a DST change day in America/New_York by the offset the BFF sends', async () => {
    const org = await ctx.createOrg('DST views')
    const lead = (await call(ctx.app, org.member.key, 'POST', '/lead/', { body: { name: 'DST Co' } })).json()
    const task = (
      await call(ctx.app, org.member.key, 'POST', '/task/', { body: { lead_id: lead.id, date: '2026-03-08' } })
    ).json()
    // 04:30 UTC on 8 March 2026: 23:30 on the 7th at −5 (EST, before the change), 00:30 on the 8th at −4 (EDT).
    ctx.clock.set(new Date('2026-03-08T04:30:00.000Z'))
    const viewAt = async (offset: string) =>
      (
        await call(ctx.app, org.member.key, 'GET', `/task/${String(task.id)}/`, { headers: { 'x-tz-offset': offset } })
      ).json().view
    expect(await viewAt('-5')).toBe('future')
    expect(await viewAt('-4')).toBe('inbox')
    const inbox = async (offset: string) =>
      (await listTasks({ view: 'inbox' }, org.member.key, { 'x-tz-offset': offset })).map((t) => t.id)
    expect(await inbox('-5')).toEqual([])
    expect(await inbox('-4')).toEqual([task.id])
  })
})

describe('bulk update: PUT /task/', () => {
  async function setUp(name: string) {
    const org = await ctx.createOrg(name)
    const lead = (await call(ctx.app, org.member.key, 'POST', '/lead/', { body: { name: `${name} Co` } })).json()
    const tasks: (Body & { id: string })[] = []
    for (const text of ['one', 'two', 'three']) {
      tasks.push(
        (
          await call(ctx.app, org.member.key, 'POST', '/task/', {
            body: { lead_id: lead.id, text, date: '2026-04-01' },
          })
        ).json(),
      )
    }
    return { org, lead, tasks }
  }

  it('changes every task the filters select, answers {"ok": true}, and records each completion', async () => {
    const { org, tasks } = await setUp('Bulk')
    const [one, two, three] = tasks
    const res = await call(ctx.app, org.member.key, 'PUT', '/task/', {
      query: { id__in: `${String(one?.id)},${String(two?.id)}` },
      body: { is_complete: true, assigned_to: org.admin.id, date: '2026-04-02T10:00:00Z' },
    })
    expect(res.statusCode, res.body).toBe(200)
    expect(res.json()).toEqual({ ok: true })
    const after = await listTasks({ _order_by: 'date_created' }, org.member.key)
    expect(after.map((t) => [t.text, t.is_complete, t.assigned_to, t.date])).toEqual([
      ['one', true, org.admin.id, '2026-04-02T10:00:00.000000+00:00'],
      ['two', true, org.admin.id, '2026-04-02T10:00:00.000000+00:00'],
      ['three', false, org.member.id, '2026-04-01'],
    ])
    const completions = await call(ctx.app, org.member.key, 'GET', '/activity/task_completed/')
    expect(
      completions
        .json()
        .data.map((a: Body) => a.task_text)
        .sort(),
    ).toEqual(['one', 'two'])
    // Each completed task points at its own TaskCompleted.
    for (const task of after.filter((t) => t.is_complete)) {
      const activity = await call(ctx.app, org.member.key, 'GET', `/activity/task_completed/${String(task.object_id)}/`)
      expect(activity.json()).toMatchObject({ task_id: task.id, task_text: task.text })
    }
    const viaParams = await call(ctx.app, org.member.key, 'PUT', '/task/', {
      body: { _params: { id: three?.id }, is_complete: true },
    })
    expect(viaParams.statusCode, viaParams.body).toBe(200)
    expect((await listTasks({ is_complete: 'true' }, org.member.key)).length).toBe(3)
  })

  it.each([
    ['a text', { text: 'Everyone’s now' }, 'text'],
    ['a lead', { lead_id: 'lead_x' }, 'lead_id'],
    ['an assignee who is not a member', { assigned_to: 'user_nope' }, 'assigned_to'],
    ['a bad date', { date: 'soon' }, 'date'],
    ['is_complete as text', { is_complete: 'true' }, 'is_complete'],
    ['an unknown filter in _params', { _params: { colour: 'red' } }, '_params.colour'],
  ])('refuses a body with %s and changes nothing', async (_, body, field) => {
    const { org, lead } = await setUp(`Bulk refused ${field}`)
    const before = await listTasks({}, org.member.key)
    const res = await call(ctx.app, org.member.key, 'PUT', '/task/', {
      query: { lead_id: String(lead.id) },
      body: { is_complete: true, ...body },
    })
    expect(res.statusCode, res.body).toBe(400)
    expect(Object.keys(res.json()['field-errors'])).toContain(field)
    expect(await listTasks({}, org.member.key)).toEqual(before)
  })

  it('refuses a bulk update with no filter at all', async () => {
    const { org } = await setUp('Bulk unfiltered')
    const before = await listTasks({}, org.member.key)
    const res = await call(ctx.app, org.member.key, 'PUT', '/task/', { body: { is_complete: true } })
    expect(res.statusCode).toBe(400)
    expect(res.json().errors[0]).toMatch(/at least one filter/)
    expect(await listTasks({}, org.member.key)).toEqual(before)
  })

  it('refuses a bad filter value and only ever touches the caller’s organization', async () => {
    const { org, lead } = await setUp('Bulk scoped')
    const bad = await call(ctx.app, org.member.key, 'PUT', '/task/', {
      query: { view: 'someday' },
      body: { is_complete: true },
    })
    expect(bad.statusCode).toBe(400)
    expect(Object.keys(bad.json()['field-errors'])).toEqual(['view'])
    const theirs = await call(ctx.app, ctx.other.admin.key, 'PUT', '/task/', {
      query: { lead_id: String(lead.id) },
      body: { is_complete: true },
    })
    expect(theirs.statusCode).toBe(200)
    expect((await listTasks({ is_complete: 'true' }, org.member.key)).length).toBe(0)
  })
})

describe('the OpenAPI document', () => {
  it('documents every task route and the TaskCompleted activity routes', async () => {
    const doc = (await ctx.app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).json()
    expect(Object.keys(doc.paths['/api/v1/task/']).sort()).toEqual(['get', 'post', 'put'])
    expect(Object.keys(doc.paths['/api/v1/task/{id}/']).sort()).toEqual(['delete', 'get', 'put'])
    expect(Object.keys(doc.paths['/api/v1/activity/task_completed/']).sort()).toEqual(['get'])
    expect(Object.keys(doc.paths['/api/v1/activity/task_completed/{id}/']).sort()).toEqual(['delete', 'get'])
    const params = doc.paths['/api/v1/task/'].get.parameters.map((p: { name: string }) => p.name)
    expect(params).toEqual(
      expect.arrayContaining(['view', '_type', '_type__in', 'membership_id', 'date__lt', '_order_by']),
    )
  })
})
