import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { seedDemoOrganization } from '../../tooling/demo/demo-seed.js'
import { requestEvents } from '../../tooling/test-support/request-events.js'
import { call, createTestContext, type TestContext } from '../../tooling/test-support/test-app.js'

interface Outcome {
  id: string
  name: string
  description: string | null
  type: string
  applies_to: string[]
  position: number
  organization_id: string
  created_by: string | null
  updated_by: string | null
  date_created: string
  date_updated: string
}

let ctx: TestContext
beforeAll(async () => {
  ctx = await createTestContext()
})
afterAll(async () => {
  await ctx.close()
})

const admin = () => ctx.org.admin.key
const rep = () => ctx.org.member.key

async function create(body: Record<string, unknown>, key = admin()): Promise<Outcome> {
  const res = await call(ctx.app, key, 'POST', '/outcome/', { body })
  expect(res.statusCode, res.body).toBe(201)
  return res.json<Outcome>()
}

async function names(key = rep()): Promise<string[]> {
  const res = await call(ctx.app, key, 'GET', '/outcome/')
  expect(res.statusCode, res.body).toBe(200)
  return res.json<{ data: Outcome[] }>().data.map((o) => o.name)
}

describe('outcomes', () => {
  it('an admin creates one (201, Close’s defaults); every member reads them, each new one last', async () => {
    const context = await createTestContext()
    try {
      const own = (key: string, method: 'GET' | 'POST', path: string, body?: unknown) =>
        call(context.app, key, method, path, body === undefined ? {} : { body })
      expect((await own(context.org.member.key, 'GET', '/outcome/')).json()).toEqual({ has_more: false, data: [] })
      const res = await own(context.org.admin.key, 'POST', '/outcome/', { name: '  Interested  ' })
      expect(res.statusCode, res.body).toBe(201)
      const created = res.json<Outcome>()
      expect(created).toEqual({
        id: expect.stringMatching(/^outcome_[0-9A-Za-z]{43}$/),
        organization_id: context.org.id,
        name: 'Interested',
        description: null,
        type: 'custom',
        applies_to: ['calls', 'meetings'],
        position: 0,
        created_by: context.org.admin.id,
        updated_by: context.org.admin.id,
        date_created: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}\+00:00$/),
        date_updated: created.date_created,
      })
      await own(context.org.admin.key, 'POST', '/outcome/', { name: 'bad fit', description: ' Not for us ' })
      await own(context.org.admin.key, 'POST', '/outcome/', { name: 'Callback', type: 'vm-dropped' })
      const list = (await own(context.org.member.key, 'GET', '/outcome/')).json<{ data: Outcome[] }>().data
      expect(list.map((o) => [o.name, o.description, o.type, o.applies_to, o.position])).toEqual([
        ['Interested', null, 'custom', ['calls', 'meetings'], 0],
        ['bad fit', 'Not for us', 'custom', ['calls', 'meetings'], 1],
        ['Callback', null, 'vm-dropped', ['calls'], 2],
      ])
      expect((await own(context.org.member.key, 'GET', `/outcome/${created.id}/`)).json()).toEqual(created)
      const page = (await own(context.org.member.key, 'GET', '/outcome/?_limit=2&_skip=1')).json()
      expect(page.has_more).toBe(false)
      expect(page.data.map((o: Outcome) => o.name)).toEqual(['bad fit', 'Callback'])
    } finally {
      await context.close()
    }
  })

  it('keeps names unique in the organization ignoring case, not across organizations', async () => {
    await create({ name: 'Demo booked' })
    for (const name of ['demo BOOKED', ' Demo booked ']) {
      const res = await call(ctx.app, admin(), 'POST', '/outcome/', { body: { name } })
      expect(res.statusCode).toBe(400)
      expect(res.json()).toEqual({ errors: [], 'field-errors': { name: 'An outcome with this name already exists.' } })
    }
    await create({ name: 'Demo booked' }, ctx.other.admin.key)
    const other = await create({ name: 'Demo cancelled' })
    const clash = await call(ctx.app, admin(), 'PUT', `/outcome/${other.id}/`, { body: { name: 'DEMO BOOKED' } })
    expect(clash.statusCode).toBe(400)
    expect(clash.json()['field-errors']).toEqual({ name: 'An outcome with this name already exists.' })
    // Its own name in another case is no clash.
    const recased = await call(ctx.app, admin(), 'PUT', `/outcome/${other.id}/`, { body: { name: 'Demo Cancelled' } })
    expect(recased.statusCode, recased.body).toBe(200)
    expect(recased.json().name).toBe('Demo Cancelled')
  })

  it('lets exactly one of two simultaneous creates take a name', async () => {
    const results = await Promise.all(
      [0, 1].map(() => call(ctx.app, admin(), 'POST', '/outcome/', { body: { name: 'Raced' } })),
    )
    expect(results.map((r) => r.statusCode).sort()).toEqual([201, 400])
    expect((await names()).filter((n) => n === 'Raced')).toHaveLength(1)
  })

  it.each([
    [{ name: '' }, 'name'],
    [{ name: '   ' }, 'name'],
    [{ name: 'x'.repeat(201) }, 'name'],
    [{ name: 7 }, 'name'],
    [{}, 'name'],
    [{ name: 'Odd', type: 'automatic' }, 'type'],
    [{ name: 'Odd', applies_to: [] }, 'applies_to'],
    [{ name: 'Odd', applies_to: ['emails'] }, 'applies_to.0'],
    [{ name: 'Odd', applies_to: 'calls' }, 'applies_to'],
    [{ name: 'Odd', type: 'vm-dropped', applies_to: ['calls', 'meetings'] }, 'applies_to'],
    [{ name: 'Odd', description: 'x'.repeat(2001) }, 'description'],
  ])('refuses %j with a field error on %s', async (body, field) => {
    const res = await call(ctx.app, admin(), 'POST', '/outcome/', { body })
    expect(res.statusCode).toBe(400)
    expect(Object.keys(res.json()['field-errors'])).toContain(field)
    expect(await names()).not.toContain('Odd')
  })

  it('changes only what is sent; a change to nothing writes nothing', async () => {
    const outcome = await create({ name: 'Voicemail', description: 'Left one', applies_to: ['calls'] })
    ctx.clock.advance(60_000)
    const res = await call(ctx.app, admin(), 'PUT', `/outcome/${outcome.id}/`, {
      body: { description: '', applies_to: ['meetings', 'calls', 'calls'] },
    })
    expect(res.statusCode, res.body).toBe(200)
    const changed = res.json<Outcome>()
    expect(changed).toMatchObject({ name: 'Voicemail', description: null, applies_to: ['calls', 'meetings'] })
    expect(changed.date_updated > outcome.date_updated).toBe(true)
    const [event] = await requestEvents(ctx.app, admin(), res)
    expect(event).toMatchObject({ object_type: 'outcome', object_id: outcome.id, action: 'updated', lead_id: null })
    expect(event?.data).toEqual(changed)
    expect(event?.changed_fields).toEqual(['applies_to', 'date_updated', 'description'])
    expect(event?.previous_data).toMatchObject({ description: 'Left one', applies_to: ['calls'] })

    // Becoming vm-dropped without saying what it applies to narrows it to calls.
    const retyped = await call(ctx.app, admin(), 'PUT', `/outcome/${outcome.id}/`, { body: { type: 'vm-dropped' } })
    expect(retyped.json()).toMatchObject({ type: 'vm-dropped', applies_to: ['calls'] })

    ctx.clock.advance(60_000)
    const same = await call(ctx.app, admin(), 'PUT', `/outcome/${outcome.id}/`, {
      body: { name: 'Voicemail', type: null, applies_to: null, description: null },
    })
    expect(same.statusCode, same.body).toBe(200)
    expect(same.json()).toEqual(retyped.json())
    expect(await requestEvents(ctx.app, admin(), same)).toEqual([])
  })

  it('records created and deleted events; a deleted outcome is gone and its name free again', async () => {
    const res = await call(ctx.app, admin(), 'POST', '/outcome/', { body: { name: 'Short-lived' } })
    const created = res.json<Outcome>()
    const [born] = await requestEvents(ctx.app, admin(), res)
    expect(born).toMatchObject({ object_type: 'outcome', action: 'created', object_id: created.id })
    expect(born?.data).toEqual(created)
    const deleted = await call(ctx.app, admin(), 'DELETE', `/outcome/${created.id}/`)
    expect(deleted.statusCode).toBe(200)
    expect(deleted.json()).toEqual({})
    const [gone] = await requestEvents(ctx.app, admin(), deleted)
    expect(gone).toMatchObject({ object_type: 'outcome', action: 'deleted', object_id: created.id })
    expect(gone?.data).toBeNull()
    expect(gone?.previous_data).toEqual(created)
    expect((await call(ctx.app, admin(), 'GET', `/outcome/${created.id}/`)).statusCode).toBe(404)
    expect((await call(ctx.app, admin(), 'DELETE', `/outcome/${created.id}/`)).statusCode).toBe(404)
    await create({ name: 'short-lived' })
  })

  it('keeps writes to admins (403) and another organization’s outcomes out of sight (404)', async () => {
    const mine = await create({ name: 'Admins only' })
    const attempts = [
      ['POST', '/outcome/', { name: 'By a rep' }],
      ['PUT', `/outcome/${mine.id}/`, { name: 'Renamed by a rep' }],
      ['DELETE', `/outcome/${mine.id}/`, undefined],
    ] as const
    for (const [method, path, body] of attempts) {
      const res = await call(ctx.app, rep(), method, path, body === undefined ? {} : { body })
      expect(res.statusCode, `${method} ${path}`).toBe(403)
    }
    expect(await names()).toContain('Admins only')
    expect(await names()).not.toContain('By a rep')
    // Another organization's outcome is a 404 to its admin and its rep alike, before any role check.
    for (const key of [ctx.other.admin.key, ctx.other.member.key]) {
      for (const [method, path, body] of attempts.slice(1)) {
        const res = await call(ctx.app, key, method, path, body === undefined ? {} : { body })
        expect(res.statusCode, `${method} ${path}`).toBe(404)
      }
      expect((await call(ctx.app, key, 'GET', `/outcome/${mine.id}/`)).statusCode).toBe(404)
      expect(await names(key)).not.toContain('Admins only')
    }
  })

  it('may be what a webhook subscription asks for', async () => {
    const res = await call(ctx.app, admin(), 'POST', '/webhook/', {
      body: { url: 'https://hooks.example.com/outcomes', events: [{ object_type: 'outcome', action: 'created' }] },
    })
    expect(res.statusCode, res.body).toBe(201)
  })

  it('come with the demo organization', async () => {
    const demo = await seedDemoOrganization(ctx.database.db, ctx.clock)
    const demoRep = demo.users.find((u) => u.role === 'user')
    expect(demoRep).toBeDefined()
    expect(await names(demoRep?.api_key)).toEqual([
      'Interested',
      'Not interested',
      'Left voicemail',
      'No answer',
      'Call back later',
    ])
  })
})

describe('the order of outcomes', () => {
  let context: TestContext
  const orgPath = () => `/organization/${context.org.id}/`
  const list = async (key = context.org.member.key) => {
    const res = await call(context.app, key, 'GET', '/outcome/')
    expect(res.statusCode, res.body).toBe(200)
    return res.json<{ data: Outcome[] }>().data
  }
  const add = async (name: string) => {
    const res = await call(context.app, context.org.admin.key, 'POST', '/outcome/', { body: { name } })
    expect(res.statusCode, res.body).toBe(201)
    return res.json<Outcome>()
  }

  beforeAll(async () => {
    context = await createTestContext()
    for (const name of ['Interested', 'No answer', 'Voicemail']) await add(name)
  })
  afterAll(async () => {
    await context.close()
  })

  it('holds what an admin sets through the organization, and a new outcome goes last', async () => {
    const [interested, noAnswer, voicemail] = await list()
    if (interested === undefined || noAnswer === undefined || voicemail === undefined) throw new Error('three outcomes')
    context.clock.advance(60_000)
    const res = await call(context.app, context.org.admin.key, 'PUT', orgPath(), {
      body: { outcomes: [{ id: voicemail.id }, interested.id, { id: noAnswer.id }] },
    })
    expect(res.statusCode, res.body).toBe(200)
    const reordered = await list()
    expect(reordered.map((o) => [o.name, o.position])).toEqual([
      ['Voicemail', 0],
      ['Interested', 1],
      ['No answer', 2],
    ])
    expect(reordered[0]?.updated_by).toBe(context.org.admin.id)
    expect((reordered[0]?.date_updated ?? '') > voicemail.date_updated).toBe(true)
    // One event for each outcome that moved, so that other users' screens and webhooks hear of it.
    const events = await requestEvents(context.app, context.org.admin.key, res)
    expect(events.filter((e) => e.object_type === 'outcome').map((e) => [e.object_id, e.action])).toEqual([
      [voicemail.id, 'updated'],
      [interested.id, 'updated'],
      [noAnswer.id, 'updated'],
    ])
    const moved = events.find((e) => e.object_id === voicemail.id)
    expect(moved?.changed_fields).toEqual(['date_updated', 'position'])
    expect(moved?.previous_data).toMatchObject({ position: 2 })
    expect(moved?.data).toEqual(reordered[0])

    await add('Demo booked')
    expect((await list()).map((o) => o.name)).toEqual(['Voicemail', 'Interested', 'No answer', 'Demo booked'])

    // The same order again moves nothing and tells no one.
    const same = await call(context.app, context.org.admin.key, 'PUT', orgPath(), {
      body: { outcomes: (await list()).map((o) => o.id) },
    })
    expect(same.statusCode, same.body).toBe(200)
    expect(await requestEvents(context.app, context.org.admin.key, same)).toEqual([])
  })

  it('refuses an order that leaves out, repeats or invents an outcome, or names another organization’s, and changes nothing', async () => {
    const before = await list()
    const ids = before.map((o) => o.id)
    const theirs = await call(context.app, context.other.admin.key, 'POST', '/outcome/', { body: { name: 'Theirs' } })
    const foreign = theirs.json<Outcome>().id
    for (const order of [
      ids.slice(1),
      [...ids, ids[0]],
      [...ids.slice(0, -1), ids[0]],
      [...ids.slice(1), foreign],
      [...ids.slice(1), 'outcome_NoSuchOutcome'],
      [],
    ]) {
      const res = await call(context.app, context.org.admin.key, 'PUT', orgPath(), {
        body: { outcomes: order, name: 'Should not stick' },
      })
      expect(res.statusCode, JSON.stringify(order)).toBe(400)
      expect(res.json()).toEqual({
        errors: [],
        'field-errors': { outcomes: 'List every outcome of the organization exactly once, in the new order.' },
      })
    }
    for (const outcomes of ['not a list', [7], [{ name: 'no id' }]]) {
      const res = await call(context.app, context.org.admin.key, 'PUT', orgPath(), { body: { outcomes } })
      expect(res.statusCode, JSON.stringify(outcomes)).toBe(400)
      expect(Object.keys(res.json()['field-errors'])[0]).toMatch(/^outcomes/)
    }
    expect(await list()).toEqual(before)
    const org = (await call(context.app, context.org.admin.key, 'GET', orgPath())).json<{ name: string }>()
    expect(org.name).not.toBe('Should not stick')
  })

  it('is for admins only (403), and another organization’s admin cannot reach it (404)', async () => {
    const before = await list()
    const reversed = before.map((o) => o.id).reverse()
    const byRep = await call(context.app, context.org.member.key, 'PUT', orgPath(), { body: { outcomes: reversed } })
    expect(byRep.statusCode).toBe(403)
    const byOther = await call(context.app, context.other.admin.key, 'PUT', orgPath(), {
      body: { outcomes: reversed },
    })
    expect(byOther.statusCode).toBe(404)
    expect(await list()).toEqual(before)
  })
})
