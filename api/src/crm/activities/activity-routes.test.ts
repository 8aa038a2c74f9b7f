import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { call, createTestContext, type TestContext } from '../../tooling/test-support/test-app.js'

let ctx: TestContext
let lead: { id: string; contacts: { id: string }[] }
beforeAll(async () => {
  ctx = await createTestContext()
  lead = (
    await call(ctx.app, ctx.org.member.key, 'POST', '/lead/', {
      body: { name: 'Timeline Co', contacts: [{ name: 'Tim' }] },
    })
  ).json()
})
afterAll(async () => {
  await ctx.close()
})

const rep = () => ctx.org.member.key

async function note(text: string, extra: Record<string, unknown> = {}) {
  ctx.clock.advance(60_000)
  const res = await call(ctx.app, rep(), 'POST', '/activity/note/', {
    body: { lead_id: lead.id, note: text, ...extra },
  })
  expect(res.statusCode, res.body).toBe(200)
  return res.json()
}

describe('notes', () => {
  it('creates, reads, updates and deletes a note', async () => {
    const created = await note('Called <b>twice</b>\nNo answer', { contact_id: lead.contacts[0]?.id })
    expect(created).toMatchObject({
      _type: 'Note',
      lead_id: lead.id,
      contact_id: lead.contacts[0]?.id,
      note: 'Called <b>twice</b>\nNo answer',
      note_html: '<p>Called &#60;b&#62;twice&#60;/b&#62;<br>No answer</p>',
      user_id: ctx.org.member.id,
      user_name: 'Rey Rep',
    })
    expect(created.id).toMatch(/^acti_/)
    expect((await call(ctx.app, rep(), 'GET', `/activity/note/${created.id}/`)).json().note).toBe(created.note)
    const updated = await call(ctx.app, rep(), 'PUT', `/activity/note/${created.id}/`, {
      body: { note: 'Reached them' },
    })
    expect(updated.json()).toMatchObject({ note: 'Reached them', id: created.id })
    const deleted = await call(ctx.app, rep(), 'DELETE', `/activity/note/${created.id}/`)
    expect(deleted.json()).toEqual({})
    expect((await call(ctx.app, rep(), 'GET', `/activity/note/${created.id}/`)).statusCode).toBe(404)
  })

  it.each([
    [{ note: '   ' }, 'note'],
    [{ note: 'x', lead_id: 'lead_nope' }, 'lead_id'],
    [{ note: 'x', contact_id: 'cont_nope' }, 'contact_id'],
    [{ lead_id: undefined, note: 'x' }, 'lead_id'],
    [{ note: 5 }, 'note'],
  ])('refuses %j with a field error on %s', async (body, field) => {
    const res = await call(ctx.app, rep(), 'POST', '/activity/note/', { body: { lead_id: lead.id, ...body } })
    expect(res.statusCode).toBe(400)
    expect(Object.keys(res.json()['field-errors'])).toContain(field)
  })

  it('hides another organization’s notes', async () => {
    const mine = await note('Mine only')
    for (const method of ['GET', 'PUT', 'DELETE'] as const) {
      const res = await call(
        ctx.app,
        ctx.other.admin.key,
        method,
        `/activity/note/${mine.id}/`,
        method === 'PUT' ? { body: { note: 'x' } } : {},
      )
      expect(res.statusCode, method).toBe(404)
    }
    const theirs = await call(ctx.app, ctx.other.admin.key, 'GET', `/activity/?lead_id=${lead.id}`)
    expect(theirs.json().data).toEqual([])
  })
})

describe('GET /activity/', () => {
  it('mixes every kind, newest first, with filters', async () => {
    const fresh = (await call(ctx.app, rep(), 'POST', '/lead/', { body: { name: 'Mixed Co' } })).json()
    ctx.clock.advance(60_000)
    await call(ctx.app, ctx.org.admin.key, 'PUT', `/lead/${fresh.id}/`, { body: { status: 'Qualified' } })
    ctx.clock.advance(60_000)
    const before = ctx.clock.now().toISOString()
    ctx.clock.advance(60_000)
    await call(ctx.app, rep(), 'POST', '/activity/note/', { body: { lead_id: fresh.id, note: 'Latest' } })
    const all = (await call(ctx.app, rep(), 'GET', `/activity/?lead_id=${fresh.id}`)).json()
    expect(all.data.map((a: { _type: string }) => a._type)).toEqual(['Note', 'LeadStatusChange', 'Created'])
    const byAdmin = (
      await call(ctx.app, rep(), 'GET', `/activity/?lead_id=${fresh.id}&user_id=${ctx.org.admin.id}`)
    ).json()
    expect(byAdmin.data.map((a: { _type: string }) => a._type)).toEqual(['LeadStatusChange'])
    const after = (
      await call(ctx.app, rep(), 'GET', '/activity/', { query: { lead_id: fresh.id, date_created__gt: before } })
    ).json()
    expect(after.data.map((a: { _type: string }) => a._type)).toEqual(['Note'])
    const older = (
      await call(ctx.app, rep(), 'GET', '/activity/', { query: { lead_id: fresh.id, date_created__lt: before } })
    ).json()
    expect(older.data.map((a: { _type: string }) => a._type)).toEqual(['LeadStatusChange', 'Created'])
    const fields = (await call(ctx.app, rep(), 'GET', `/activity/?lead_id=${fresh.id}&_fields=_type`)).json()
    expect(fields.data).toEqual([{ _type: 'Note' }, { _type: 'LeadStatusChange' }, { _type: 'Created' }])
    const created = (await call(ctx.app, rep(), 'GET', `/activity/created/?lead_id=${fresh.id}`)).json().data
    expect(created).toHaveLength(1)
    expect((await call(ctx.app, rep(), 'GET', `/activity/created/${created[0].id}/`)).json()._type).toBe('Created')
  })

  it('refuses a malformed date filter and a _limit over 100', async () => {
    const bad = await call(ctx.app, rep(), 'GET', '/activity/', { query: { date_created__gt: 'yesterday-ish' } })
    expect(bad.statusCode).toBe(400)
    expect(bad.json()['field-errors']).toHaveProperty('date_created__gt')
    expect((await call(ctx.app, rep(), 'GET', '/activity/?_limit=101')).statusCode).toBe(400)
  })
})

describe('GET /activity/ by type', () => {
  let typed: { id: string }
  const types = async (query: Record<string, string>) => {
    const res = await call(ctx.app, rep(), 'GET', '/activity/', { query: { lead_id: typed.id, ...query } })
    expect(res.statusCode, res.body).toBe(200)
    return res.json().data.map((a: { _type: string }) => a._type)
  }
  beforeAll(async () => {
    typed = (await call(ctx.app, rep(), 'POST', '/lead/', { body: { name: 'Typed Co' } })).json()
    const steps: [string, string, Record<string, unknown>][] = [
      ['PUT', `/lead/${typed.id}/`, { status: 'Qualified' }],
      ['POST', '/opportunity/', { lead_id: typed.id, value: 1000 }],
      ['POST', '/task/', { lead_id: typed.id, text: 'Send the deck', is_complete: true }],
      ['POST', '/activity/note/', { lead_id: typed.id, note: 'Sent' }],
    ]
    for (const [method, path, body] of steps) {
      ctx.clock.advance(60_000)
      const res = await call(ctx.app, rep(), method === 'PUT' ? 'PUT' : 'POST', path, { body })
      expect(res.statusCode, res.body).toBe(200)
    }
  })

  it('keeps the order and lists only the types asked for', async () => {
    expect(await types({})).toEqual(['Note', 'TaskCompleted', 'OpportunityStatusChange', 'LeadStatusChange', 'Created'])
    expect(await types({ _type: 'Note' })).toEqual(['Note'])
    expect(await types({ _type__in: 'Created,LeadStatusChange, TaskCompleted' })).toEqual([
      'TaskCompleted',
      'LeadStatusChange',
      'Created',
    ])
    expect(await types({ _type__in: 'OpportunityStatusChange' })).toEqual(['OpportunityStatusChange'])
    // Both: the types named in both.
    expect(await types({ _type: 'Note,Created', _type__in: 'Created,TaskCompleted' })).toEqual(['Created'])
    expect(await types({ _type: 'Note', _type__in: 'Created' })).toEqual([])
  })

  it('accepts the types later issues add, which match nothing yet', async () => {
    expect(await types({ _type__in: 'Call,Email,EmailThread,SMS' })).toEqual([])
    expect(await types({ _type__in: 'SMS,Note' })).toEqual(['Note'])
  })

  it('pages several types as the whole list orders them, ties at one instant included', async () => {
    const lead = (await call(ctx.app, rep(), 'POST', '/lead/', { body: { name: 'Paged Types Co' } })).json()
    for (const [n, status] of ['Qualified', 'Potential', 'Qualified'].entries()) {
      // Two notes at the instant of each status change: the ids break their ties.
      for (const path of [`/lead/${lead.id}/`, '/activity/note/', '/activity/note/']) {
        const body = path === '/activity/note/' ? { lead_id: lead.id, note: `Note ${String(n)}` } : { status }
        const res = await call(ctx.app, rep(), path === '/activity/note/' ? 'POST' : 'PUT', path, { body })
        expect(res.statusCode, res.body).toBe(200)
      }
      ctx.clock.advance(60_000)
    }
    const listed = async (query: Record<string, string>) => {
      const res = await call(ctx.app, rep(), 'GET', '/activity/', { query: { lead_id: lead.id, ...query } })
      expect(res.statusCode, res.body).toBe(200)
      return res.json<{ has_more: boolean; data: { id: string; _type: string }[] }>()
    }
    const wanted = ['Note', 'LeadStatusChange']
    const whole = (await listed({})).data.filter((a) => wanted.includes(a._type)).map((a) => a.id)
    expect(whole).toHaveLength(9)
    const paged: string[] = []
    for (let skip = 0; ; skip += 2) {
      const page = await listed({ _type__in: wanted.join(','), _limit: '2', _skip: String(skip) })
      paged.push(...page.data.map((a) => a.id))
      if (!page.has_more) break
    }
    expect(paged).toEqual(whole)
  })

  it('pages within the types asked for', async () => {
    const page = (
      await call(ctx.app, rep(), 'GET', '/activity/', {
        query: { lead_id: typed.id, _type__in: 'Created,LeadStatusChange,Note', _limit: '1', _skip: '1' },
      })
    ).json()
    expect(page.data.map((a: { _type: string }) => a._type)).toEqual(['LeadStatusChange'])
    expect(page.has_more).toBe(true)
  })

  it.each([
    ['_type__in', 'Note,Meeting'],
    ['_type__in', 'note'],
    ['_type__in', ' , '],
    ['_type', 'constructor'],
  ])('refuses %s=%j with a field error on it', async (param, value) => {
    const res = await call(ctx.app, rep(), 'GET', '/activity/', { query: { lead_id: typed.id, [param]: value } })
    expect(res.statusCode).toBe(400)
    expect(res.json()).toEqual({ errors: [], 'field-errors': { [param]: expect.any(String) } })
  })

  it('is only a filter of the list of every type', async () => {
    const res = await call(ctx.app, rep(), 'GET', '/activity/note/', { query: { lead_id: typed.id, _type: 'Created' } })
    expect(res.statusCode, res.body).toBe(200)
    expect(res.json().data.map((a: { _type: string }) => a._type)).toEqual(['Note'])
  })
})

describe('what every activity carries', () => {
  it('has activity_at, its date_created for these types, and users (find_activities.json)', async () => {
    const fresh = (await call(ctx.app, rep(), 'POST', '/lead/', { body: { name: 'Wire Activity Co' } })).json()
    await call(ctx.app, rep(), 'PUT', `/lead/${fresh.id}/`, { body: { status: 'Qualified' } })
    await call(ctx.app, rep(), 'POST', '/activity/note/', { body: { lead_id: fresh.id, note: 'Also here' } })
    const all = (await call(ctx.app, rep(), 'GET', `/activity/?lead_id=${fresh.id}`)).json().data
    expect(all.map((a: { _type: string }) => a._type).sort()).toEqual(['Created', 'LeadStatusChange', 'Note'])
    for (const activity of all) {
      expect(activity, activity._type).toMatchObject({ activity_at: activity.date_created, users: [] })
    }
  })
})

describe('typed activity routes', () => {
  it('answer 404 for another organization’s Created and LeadStatusChange activities', async () => {
    const theirs = (
      await call(ctx.app, ctx.other.admin.key, 'POST', '/lead/', { body: { name: 'Their Timeline Co' } })
    ).json()
    await call(ctx.app, ctx.other.admin.key, 'PUT', `/lead/${theirs.id}/`, { body: { status: 'Customer' } })
    const theirActivities = (await call(ctx.app, ctx.other.admin.key, 'GET', `/activity/?lead_id=${theirs.id}`)).json()
      .data as { id: string; _type: string }[]
    const created = theirActivities.find((a) => a._type === 'Created')
    const change = theirActivities.find((a) => a._type === 'LeadStatusChange')
    expect(created).toBeDefined()
    expect(change).toBeDefined()
    for (const path of [`/activity/created/${created?.id}/`, `/activity/status_change/lead/${change?.id}/`]) {
      expect((await call(ctx.app, rep(), 'GET', path)).statusCode, path).toBe(404)
      expect((await call(ctx.app, ctx.other.admin.key, 'GET', path)).statusCode, path).toBe(200)
    }
    // A Created id under the status-change route is not found either.
    expect(
      (await call(ctx.app, ctx.other.admin.key, 'GET', `/activity/status_change/lead/${created?.id}/`)).statusCode,
    ).toBe(404)
  })
})

describe('GET /activity/ across leads', () => {
  it('lists the organization’s activities newest first, optionally one user’s', async () => {
    const context = await createTestContext()
    try {
      const key = context.org.member.key
      const first = (await call(context.app, key, 'POST', '/lead/', { body: { name: 'First Co' } })).json()
      context.clock.advance(60_000)
      const second = (await call(context.app, key, 'POST', '/lead/', { body: { name: 'Second Co' } })).json()
      context.clock.advance(60_000)
      await call(context.app, context.org.admin.key, 'POST', '/activity/note/', {
        body: { lead_id: first.id, note: 'Admin note' },
      })
      await call(context.app, context.other.admin.key, 'POST', '/lead/', { body: { name: 'Not Ours' } })
      const all = (await call(context.app, key, 'GET', '/activity/')).json().data
      expect(all.map((a: { _type: string; lead_id: string }) => [a._type, a.lead_id])).toEqual([
        ['Note', first.id],
        ['Created', second.id],
        ['Created', first.id],
      ])
      const byAdmin = (await call(context.app, key, 'GET', `/activity/?user_id=${context.org.admin.id}`)).json().data
      expect(byAdmin.map((a: { _type: string }) => a._type)).toEqual(['Note'])
      const page = (await call(context.app, key, 'GET', '/activity/?_limit=2&_skip=1')).json()
      expect(page.data.map((a: { lead_id: string }) => a.lead_id)).toEqual([second.id, first.id])
    } finally {
      await context.close()
    }
  })
})
