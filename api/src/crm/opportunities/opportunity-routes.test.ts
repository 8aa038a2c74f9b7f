import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { call, createTestContext, type TestContext } from '../../tooling/test-support/test-app.js'

interface Status {
  id: string
  label: string
  type: string
  pipeline_id: string
}

let ctx: TestContext
let leadId = ''
let otherLeadId = ''
let contactId = ''
let statuses: Status[] = []
const rep = () => ctx.org.member.key
const admin = () => ctx.org.admin.key

function status(type: string): Status {
  const found = statuses.find((s) => s.type === type)
  if (found === undefined) throw new Error(`no ${type} status`)
  return found
}

async function create(body: Record<string, unknown>, headers: Record<string, string> = {}) {
  return call(ctx.app, rep(), 'POST', '/opportunity/', { body: { lead_id: leadId, ...body }, headers })
}

beforeAll(async () => {
  ctx = await createTestContext()
  const lead = await call(ctx.app, rep(), 'POST', '/lead/', {
    body: { name: 'Deal Host Co', contacts: [{ name: 'Dana Buyer' }] },
  })
  leadId = lead.json().id
  contactId = lead.json().contacts[0].id
  otherLeadId = (await call(ctx.app, rep(), 'POST', '/lead/', { body: { name: 'Second Co' } })).json().id
  statuses = (await call(ctx.app, rep(), 'GET', '/status/opportunity/')).json().data
})
afterAll(async () => {
  await ctx.close()
})

describe('POST /opportunity/', () => {
  it('creates an opportunity with Close’s fields, in the first active status, owned by the caller', async () => {
    const res = await create({ value: 150_000, note: 'Big one', confidence: 40, contact_id: contactId })
    expect(res.statusCode, res.body).toBe(200)
    const opp = res.json()
    expect(opp.id).toMatch(/^oppo_[0-9A-Za-z]{43}$/)
    const active = status('active')
    expect(opp).toMatchObject({
      organization_id: ctx.org.id,
      lead_id: leadId,
      lead_name: 'Deal Host Co',
      contact_id: contactId,
      contact_name: 'Dana Buyer',
      status_id: active.id,
      status_label: active.label,
      status_type: 'active',
      pipeline_id: active.pipeline_id,
      value: 150_000,
      value_period: 'one_time',
      value_currency: 'USD',
      value_formatted: '$1,500',
      annualized_value: 150_000,
      expected_value: 60_000,
      annualized_expected_value: 60_000,
      confidence: 40,
      date_won: null,
      date_lost: null,
      note: 'Big one',
      user_id: ctx.org.member.id,
      user_name: 'Rey Rep',
      created_by: ctx.org.member.id,
      created_by_name: 'Rey Rep',
      integration_links: [],
      custom: {},
    })
    expect(typeof opp.pipeline_name).toBe('string')
    expect(opp.pipeline_name.length).toBeGreaterThan(0)
  })

  it('writes monthly and annual values as Close does, and annualizes monthly ones', async () => {
    const monthly = (await create({ value: 10_000, value_period: 'monthly', confidence: 50 })).json()
    expect(monthly).toMatchObject({
      value_formatted: '$100 monthly',
      annualized_value: 120_000,
      expected_value: 5_000,
      annualized_expected_value: 60_000,
    })
    const annual = (await create({ value: 200_000, value_period: 'annual', value_currency: 'EUR' })).json()
    expect(annual).toMatchObject({ value_formatted: '€2,000 annual', value_currency: 'EUR', annualized_value: 200_000 })
  })

  it('takes a status by label, and dates a won opportunity the caller’s today', async () => {
    const won = status('won')
    // 23:30 UTC on 1 March is already 2 March at +14 and still 1 March at −12.
    ctx.clock.set(new Date('2026-03-01T23:30:00.000Z'))
    const cases: [string, string][] = [
      ['-12', '2026-03-01'],
      ['0', '2026-03-01'],
      ['14', '2026-03-02'],
    ]
    for (const [offset, day] of cases) {
      const res = await create({ status: won.label.toUpperCase() }, { 'x-tz-offset': offset })
      expect(res.statusCode, res.body).toBe(200)
      expect(res.json()).toMatchObject({ status_id: won.id, status_type: 'won', date_won: day })
    }
    const given = (await create({ status_id: won.id, date_won: '2025-12-31' })).json()
    expect(given.date_won).toBe('2025-12-31')
  })

  it('records the initial status as an OpportunityStatusChange on the lead’s timeline', async () => {
    const opp = (await create({ value: 500, value_period: 'monthly', confidence: 90 })).json()
    const list = await call(ctx.app, rep(), 'GET', `/activity/status_change/opportunity/?opportunity_id=${opp.id}`)
    expect(list.statusCode, list.body).toBe(200)
    const [change] = list.json().data
    expect(list.json().data).toHaveLength(1)
    expect(change).toMatchObject({
      _type: 'OpportunityStatusChange',
      lead_id: leadId,
      opportunity_id: opp.id,
      old_status_id: null,
      old_status_label: null,
      old_status_type: null,
      new_status_id: opp.status_id,
      new_status_label: opp.status_label,
      new_status_type: 'active',
      opportunity_value: 500,
      opportunity_value_period: 'monthly',
      opportunity_value_currency: 'USD',
      opportunity_value_formatted: '$5 monthly',
      opportunity_confidence: 90,
      opportunity_date_won: null,
      user_id: ctx.org.member.id,
    })
    const one = await call(ctx.app, rep(), 'GET', `/activity/status_change/opportunity/${String(change.id)}/`)
    expect(one.json().id).toBe(change.id)
    const timeline = (await call(ctx.app, rep(), 'GET', `/activity/?lead_id=${leadId}`)).json().data
    expect(timeline.map((a: { id: string }) => a.id)).toContain(change.id)
  })

  it('lists status changes by lead, user and creation time, also through _params', async () => {
    const lead = (await call(ctx.app, rep(), 'POST', '/lead/', { body: { name: 'Change Filter Co' } })).json()
    ctx.clock.set(new Date('2026-04-01T10:00:00.000Z'))
    const byRep = (await create({ lead_id: lead.id })).json()
    ctx.clock.set(new Date('2026-04-02T10:00:00.000Z'))
    const byAdmin = (
      await call(ctx.app, admin(), 'POST', '/opportunity/', {
        body: { lead_id: lead.id, status: status('lost').label },
      })
    ).json()
    const moved = await call(ctx.app, admin(), 'PUT', `/opportunity/${String(byRep.id)}/`, {
      body: { status_id: status('won').id },
    })
    expect(moved.statusCode, moved.body).toBe(200)
    const changes = async (query: string) => {
      const res = await call(ctx.app, rep(), 'GET', `/activity/status_change/opportunity/?${query}`)
      expect(res.statusCode, res.body).toBe(200)
      return res
        .json()
        .data.map((a: { opportunity_id: string; new_status_type: string }) => [a.opportunity_id, a.new_status_type])
    }
    expect(await changes(`lead_id=${String(lead.id)}`)).toHaveLength(3)
    expect(await changes(`lead_id=${String(lead.id)}&user_id=${ctx.org.member.id}`)).toEqual([[byRep.id, 'active']])
    expect((await changes(`lead_id=${String(lead.id)}&user_id=${ctx.org.admin.id}`)).sort()).toEqual(
      [
        [byAdmin.id, 'lost'],
        [byRep.id, 'won'],
      ].sort(),
    )
    expect(await changes(`lead_id=${String(lead.id)}&date_created__lt=2026-04-02`)).toEqual([[byRep.id, 'active']])
    expect(
      (await changes(`lead_id=${String(lead.id)}&date_created__gt=2026-04-01T12:00:00Z`)).map((c: string[]) => c[0]),
    ).toHaveLength(2)
    const viaParams = await call(ctx.app, rep(), 'POST', '/activity/status_change/opportunity/', {
      headers: { 'x-http-method-override': 'GET' },
      body: { _params: { lead_id: lead.id, user_id: ctx.org.member.id } },
    })
    expect(viaParams.statusCode, viaParams.body).toBe(200)
    expect(viaParams.json().data).toHaveLength(1)
    const bad = await call(ctx.app, rep(), 'GET', '/activity/status_change/opportunity/?date_created__gt=yesterday')
    expect(bad.statusCode).toBe(400)
  })

  it.each([
    ['no lead', { lead_id: 'OMITTED' }, 'lead'],
    ['an unknown lead', { lead_id: 'lead_nope' }, 'lead'],
    ['both status and status_id', { status: 'Active', status_id: 'stat_x' }, 'status'],
    ['an unknown status_id', { status_id: 'stat_nope' }, 'status_id'],
    ['an unknown status label', { status: 'Negotiating forever' }, 'status'],
    ['an unknown pipeline', { pipeline_id: 'pipe_nope' }, 'pipeline_id'],
    ['a contact of another lead', { contact_id: 'CONTACT_OF_OTHER' }, 'contact_id'],
    ['an owner who is not a member', { user_id: 'USER_OF_OTHER' }, 'user_id'],
    ['a fractional value', { value: 12.5 }, 'value'],
    ['a negative value', { value: -1 }, 'value'],
    ['a value over a billion', { value: 100_000_000_001 }, 'value'],
    ['a value given as text', { value: '100' }, 'value'],
    ['confidence over 100', { confidence: 101 }, 'confidence'],
    ['confidence under 0', { confidence: -5 }, 'confidence'],
    ['an unknown period', { value_period: 'weekly' }, 'value_period'],
    ['an unknown currency', { value_currency: 'XYZ' }, 'value_currency'],
    ['a date_won that is not a date', { date_won: '2026-02-30' }, 'date_won'],
    ['a date_won that is a timestamp', { date_won: 'tomorrow' }, 'date_won'],
    ['an unknown custom field', { 'custom.cf_nope': 'x' }, 'custom.cf_nope'],
  ])('refuses %s with a field error, storing nothing', async (_, patch, field) => {
    const otherContact = (
      await call(ctx.app, rep(), 'POST', '/contact/', { body: { lead_id: otherLeadId, name: 'Elsewhere' } })
    ).json().id
    const body = JSON.parse(
      JSON.stringify(patch).replace('CONTACT_OF_OTHER', otherContact).replace('USER_OF_OTHER', ctx.other.admin.id),
    )
    const before = (await call(ctx.app, rep(), 'GET', '/opportunity/')).json().total_results
    const sent: Record<string, unknown> = { lead_id: leadId, ...body }
    if (sent.lead_id === 'OMITTED') delete sent.lead_id
    const res = await call(ctx.app, rep(), 'POST', '/opportunity/', { body: sent })
    expect(res.statusCode, res.body).toBe(400)
    expect(Object.keys(res.json()['field-errors'])).toContain(field)
    expect((await call(ctx.app, rep(), 'GET', '/opportunity/')).json().total_results).toBe(before)
  })

  it('ignores read-only fields a client sends back', async () => {
    const res = await create({ value: 100, value_formatted: '$1,000,000', status_label: 'Won', lead_name: 'Nope' })
    expect(res.statusCode, res.body).toBe(200)
    expect(res.json()).toMatchObject({ value_formatted: '$1', status_type: 'active', lead_name: 'Deal Host Co' })
  })

  it('stores opportunity custom fields by id and by name', async () => {
    const field = await call(ctx.app, admin(), 'POST', '/custom_field/opportunity/', {
      body: { name: 'Competitor', type: 'text' },
    })
    expect(field.statusCode, field.body).toBe(200)
    const fieldId = field.json().id
    const byId = (await create({ [`custom.${fieldId}`]: 'Globex' })).json()
    expect(byId[`custom.${fieldId}`]).toBe('Globex')
    expect(byId.custom).toEqual({ Competitor: 'Globex' })
    const byName = (await create({ custom: { Competitor: 'Initech' } })).json()
    expect(byName[`custom.${fieldId}`]).toBe('Initech')
  })
})

describe('GET, PUT and DELETE /opportunity/{id}/', () => {
  it('moves through statuses: won dates it, lost stamps date_lost, each change recorded', async () => {
    const opp = (await create({ value: 1_000 })).json()
    ctx.clock.set(new Date('2026-04-10T10:00:00.000Z'))
    const lost = await call(ctx.app, rep(), 'PUT', `/opportunity/${String(opp.id)}/`, {
      body: { status_id: status('lost').id },
    })
    expect(lost.statusCode, lost.body).toBe(200)
    expect(lost.json()).toMatchObject({ status_type: 'lost', date_won: null })
    expect(lost.json().date_lost).toMatch(/^2026-04-10T10:00:00\.\d{6}\+00:00$/)
    const won = await call(ctx.app, rep(), 'PUT', `/opportunity/${String(opp.id)}/`, {
      body: { status: status('won').label },
      headers: { 'x-tz-offset': '-11' },
    })
    expect(won.json()).toMatchObject({ status_type: 'won', date_won: '2026-04-09', date_lost: null })
    const changes = (
      await call(ctx.app, rep(), 'GET', `/activity/status_change/opportunity/?opportunity_id=${String(opp.id)}`)
    ).json().data
    expect(
      changes.map((c: { new_status_type: string; old_status_type: string | null }) => [
        c.old_status_type,
        c.new_status_type,
      ]),
    ).toEqual([
      ['lost', 'won'],
      ['active', 'lost'],
      [null, 'active'],
    ])
    expect(changes[0].opportunity_date_won).toBe('2026-04-09')
  })

  it('changes only what is sent, and records no status change when the status stays', async () => {
    const opp = (await create({ value: 1_000, note: 'first', confidence: 10 })).json()
    const res = await call(ctx.app, rep(), 'PUT', `/opportunity/${String(opp.id)}/`, {
      body: { note: 'second', lead_id: otherLeadId, id: 'oppo_fake' },
    })
    expect(res.statusCode, res.body).toBe(200)
    expect(res.json()).toMatchObject({ id: opp.id, note: 'second', value: 1_000, confidence: 10, lead_id: leadId })
    const changes = (
      await call(ctx.app, rep(), 'GET', `/activity/status_change/opportunity/?opportunity_id=${String(opp.id)}`)
    ).json().data
    expect(changes).toHaveLength(1)
    const cleared = await call(ctx.app, rep(), 'PUT', `/opportunity/${String(opp.id)}/`, {
      body: { value: null, contact_id: null },
    })
    expect(cleared.json()).toMatchObject({ value: null, value_formatted: null, expected_value: null })
  })

  it('refuses a bad update and changes nothing', async () => {
    const opp = (await create({ value: 1_000, note: 'kept' })).json()
    const res = await call(ctx.app, rep(), 'PUT', `/opportunity/${String(opp.id)}/`, {
      body: { note: 'lost?', confidence: 500 },
    })
    expect(res.statusCode, res.body).toBe(400)
    const after = (await call(ctx.app, rep(), 'GET', `/opportunity/${String(opp.id)}/`)).json()
    expect(after.note).toBe('kept')
    const badStatus = await call(ctx.app, rep(), 'PUT', `/opportunity/${String(opp.id)}/`, {
      body: { note: 'lost?', status_id: 'stat_nope' },
    })
    expect(badStatus.statusCode, badStatus.body).toBe(400)
    expect((await call(ctx.app, rep(), 'GET', `/opportunity/${String(opp.id)}/`)).json().note).toBe('kept')
  })

  it('hides another organization’s opportunity (404) and its leads from a create', async () => {
    const opp = (await create({ value: 1 })).json()
    for (const method of ['GET', 'PUT', 'DELETE'] as const) {
      const res = await call(ctx.app, ctx.other.admin.key, method, `/opportunity/${String(opp.id)}/`, {
        ...(method === 'PUT' ? { body: { note: 'x' } } : {}),
      })
      expect(res.statusCode, res.body).toBe(404)
    }
    const res = await call(ctx.app, ctx.other.admin.key, 'POST', '/opportunity/', { body: { lead_id: leadId } })
    expect(res.statusCode, res.body).toBe(400)
    expect(res.json()['field-errors']).toHaveProperty('lead')
    const unknown = await call(ctx.app, rep(), 'GET', '/opportunity/oppo_nope/')
    expect(unknown.statusCode).toBe(404)
    expect(unknown.json()).toHaveProperty('error')
  })

  it('deletes an opportunity with its custom values', async () => {
    const opp = (await create({ value: 1 })).json()
    const res = await call(ctx.app, rep(), 'DELETE', `/opportunity/${String(opp.id)}/`)
    expect(res.statusCode, res.body).toBe(200)
    expect(res.json()).toEqual({})
    expect((await call(ctx.app, rep(), 'GET', `/opportunity/${String(opp.id)}/`)).statusCode).toBe(404)
  })
})

describe('opportunities on their lead', () => {
  it('shows them nested in the lead, kept in step with changes', async () => {
    const lead = (await call(ctx.app, rep(), 'POST', '/lead/', { body: { name: 'Nested Co' } })).json()
    const opp = (await call(ctx.app, rep(), 'POST', '/opportunity/', { body: { lead_id: lead.id, value: 700 } })).json()
    let view = (await call(ctx.app, rep(), 'GET', `/lead/${String(lead.id)}/`)).json()
    expect(view.opportunities.map((o: { id: string }) => o.id)).toEqual([opp.id])
    expect(view.opportunities[0]).toMatchObject({ lead_name: 'Nested Co', value_formatted: '$7' })
    await call(ctx.app, rep(), 'PUT', `/opportunity/${String(opp.id)}/`, { body: { value: 900 } })
    view = (await call(ctx.app, rep(), 'GET', `/lead/${String(lead.id)}/`)).json()
    expect(view.opportunities[0].value_formatted).toBe('$9')
    await call(ctx.app, rep(), 'PUT', `/lead/${String(lead.id)}/`, { body: { name: 'Renamed Co' } })
    view = (await call(ctx.app, rep(), 'GET', `/lead/${String(lead.id)}/`)).json()
    expect(view.opportunities[0].lead_name).toBe('Renamed Co')
  })

  it('makes opportunities>N and has:opportunities real in the lead search', async () => {
    const lead = (await call(ctx.app, rep(), 'POST', '/lead/', { body: { name: 'Searchable Deals Co' } })).json()
    for (let i = 0; i < 2; i++) {
      await call(ctx.app, rep(), 'POST', '/opportunity/', { body: { lead_id: lead.id, value: 1 } })
    }
    const ids = async (query: string) =>
      (await call(ctx.app, rep(), 'GET', '/lead/', { query: { query } })).json().data.map((l: { id: string }) => l.id)
    expect(await ids('"Searchable Deals" has:opportunities')).toEqual([lead.id])
    expect(await ids('"Searchable Deals" opportunities>1')).toEqual([lead.id])
    expect(await ids('"Searchable Deals" opportunities>2')).toEqual([])
    expect(await ids('"Second Co" has:opportunities')).toEqual([])
  })

  it('deletes a lead’s opportunities with it, and a merge moves them', async () => {
    const source = (await call(ctx.app, rep(), 'POST', '/lead/', { body: { name: 'Merge Source' } })).json()
    const destination = (await call(ctx.app, rep(), 'POST', '/lead/', { body: { name: 'Merge Destination' } })).json()
    const moved = (
      await call(ctx.app, rep(), 'POST', '/opportunity/', { body: { lead_id: source.id, value: 5 } })
    ).json()
    const merge = await call(ctx.app, rep(), 'POST', '/lead/merge/', {
      body: { source: source.id, destination: destination.id },
    })
    expect(merge.statusCode, merge.body).toBe(200)
    const after = (await call(ctx.app, rep(), 'GET', `/opportunity/${String(moved.id)}/`)).json()
    expect(after).toMatchObject({ lead_id: destination.id, lead_name: 'Merge Destination' })

    const doomed = (await call(ctx.app, rep(), 'POST', '/lead/', { body: { name: 'Doomed Co' } })).json()
    const gone = (await call(ctx.app, rep(), 'POST', '/opportunity/', { body: { lead_id: doomed.id } })).json()
    expect((await call(ctx.app, rep(), 'DELETE', `/lead/${String(doomed.id)}/`)).statusCode).toBe(200)
    expect((await call(ctx.app, rep(), 'GET', `/opportunity/${String(gone.id)}/`)).statusCode).toBe(404)
  })

  it('follows its status into another pipeline when the status moves there', async () => {
    const renewals = await call(ctx.app, admin(), 'POST', '/pipeline/', { body: { name: 'Renewals' } })
    expect(renewals.statusCode, renewals.body).toBe(201)
    const movable = await call(ctx.app, admin(), 'POST', '/status/opportunity/', { body: { label: 'Contract sent' } })
    const opp = (await create({ status_id: movable.json().id })).json()
    expect(opp.pipeline_id).not.toBe(renewals.json().id)
    const moved = await call(ctx.app, admin(), 'PUT', `/pipeline/${String(renewals.json().id)}/`, {
      body: { statuses: [{ id: movable.json().id }] },
    })
    expect(moved.statusCode, moved.body).toBe(200)
    const after = (await call(ctx.app, rep(), 'GET', `/opportunity/${String(opp.id)}/`)).json()
    expect(after).toMatchObject({
      status_id: movable.json().id,
      pipeline_id: renewals.json().id,
      pipeline_name: 'Renewals',
    })
  })

  it('refuses to delete an opportunity status in use, saying how many use it', async () => {
    const created = await call(ctx.app, admin(), 'POST', '/status/opportunity/', { body: { label: 'Demo booked' } })
    expect(created.statusCode, created.body).toBe(200)
    const statusId = created.json().id
    await create({ status_id: statusId })
    await create({ status_id: statusId })
    const res = await call(ctx.app, admin(), 'DELETE', `/status/opportunity/${String(statusId)}/`)
    expect(res.statusCode, res.body).toBe(400)
    expect(res.json().error).toContain('2 opportunities')
  })
})

describe('GET /opportunity/', () => {
  it('lists the organization’s opportunities newest first with total_results, filtered', async () => {
    const lead = (await call(ctx.app, rep(), 'POST', '/lead/', { body: { name: 'Listed Co' } })).json()
    const first = (await call(ctx.app, rep(), 'POST', '/opportunity/', { body: { lead_id: lead.id } })).json()
    const second = (
      await call(ctx.app, rep(), 'POST', '/opportunity/', { body: { lead_id: lead.id, status_id: status('won').id } })
    ).json()
    const res = await call(ctx.app, rep(), 'GET', `/opportunity/?lead_id=${String(lead.id)}`)
    expect(res.statusCode, res.body).toBe(200)
    expect(res.json()).toMatchObject({ total_results: 2, has_more: false })
    expect(res.json().data.map((o: { id: string }) => o.id)).toEqual([second.id, first.id])
    const won = (await call(ctx.app, rep(), 'GET', `/opportunity/?lead_id=${String(lead.id)}&status_type=won`)).json()
    expect(won.data.map((o: { id: string }) => o.id)).toEqual([second.id])
    const others = (await call(ctx.app, ctx.other.admin.key, 'GET', '/opportunity/')).json()
    expect(others.total_results).toBe(0)
  })
})
