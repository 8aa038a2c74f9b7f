import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { requestEvents } from '../../tooling/test-support/request-events.js'
import { call, createTestContext, type TestContext } from '../../tooling/test-support/test-app.js'

let ctx: TestContext
beforeAll(async () => {
  ctx = await createTestContext()
})
afterAll(async () => {
  await ctx.close()
})

const orgPath = () => `/organization/${ctx.org.id}/`

describe('GET /organization/{id}/', () => {
  it('shows the organization with statuses, the default pipeline’s statuses and memberships', async () => {
    const res = await call(ctx.app, ctx.org.member.key, 'GET', orgPath())
    expect(res.statusCode).toBe(200)
    const org = res.json()
    expect(org).toMatchObject({
      id: ctx.org.id,
      name: 'Acme Inc',
      currency: 'USD',
      currency_symbol: '$',
      country: 'US',
      user_count: 2,
    })
    expect(org.lead_statuses.map((s: { label: string }) => s.label)).toEqual([
      'Potential',
      'Bad Fit',
      'Qualified',
      'Customer',
    ])
    expect(org.opportunity_statuses.map((s: { label: string; type: string }) => [s.label, s.type])).toEqual([
      ['Active', 'active'],
      ['Won', 'won'],
      ['Lost', 'lost'],
    ])
    expect(new Set(org.opportunity_statuses.map((s: { pipeline_id: string }) => s.pipeline_id)).size).toBe(1)
    expect(org.memberships.map((m: { user_id: string; role: string }) => [m.user_id, m.role])).toEqual([
      [ctx.org.admin.id, 'admin'],
      [ctx.org.member.id, 'user'],
    ])
    expect(org.memberships[0].user_full_name).toBe('Ada Admin')
  })
})

/** One lead custom field of Close's organization object, as recorded (`closex_get_organization`). */
const RECORDED_LEAD_FIELD = {
  name: '02. Address',
  date_updated: '2017-07-24T08:57:21.718000+00:00',
  created_by: 'user_CwSfS8J6DsD6tnAsUwNFKCpS7Tq9LVCgJvHapOcpWyW',
  organization_id: 'orga_CC25dsMNG4KsRpxn2LEwPUVyGRs4poLYFIBsioIK4Oj',
  date_created: '2017-07-24T08:57:21.718000+00:00',
  type: 'text',
  id: 'lcf_lAfIkfmlUOacvFGHN79b1QtTPCldkXmIMYyHDwm8ByU',
  updated_by: 'user_CwSfS8J6DsD6tnAsUwNFKCpS7Tq9LVCgJvHapOcpWyW',
}

describe('GET /organization/{id}/: what Close scripts read first', () => {
  it('carries the custom fields of each object type and the pipelines, in their order, as their own routes show them', async () => {
    const admin = ctx.org.admin.key
    const made: [string, string][] = []
    for (const [objectType, name] of [
      ['lead', 'Source CRM'],
      ['lead', 'Industry'],
      ['contact', 'Birthday'],
      ['opportunity', 'Deal size'],
    ] as const) {
      const res = await call(ctx.app, admin, 'POST', `/custom_field/${objectType}/`, { body: { name, type: 'text' } })
      expect(res.statusCode).toBe(200)
      made.push([objectType, res.json().id])
    }
    const pipeline = await call(ctx.app, admin, 'POST', '/pipeline/', { body: { name: 'Renewals' } })
    expect(pipeline.statusCode).toBe(201)

    const org = (await call(ctx.app, ctx.org.member.key, 'GET', orgPath())).json()
    for (const objectType of ['lead', 'contact', 'opportunity'] as const) {
      const listed = (await call(ctx.app, ctx.org.member.key, 'GET', `/custom_field/${objectType}/`)).json()
      expect(org[`${objectType}_custom_fields`]).toEqual(listed.data)
    }
    expect(org.lead_custom_fields.map((f: { name: string }) => f.name)).toEqual(['Source CRM', 'Industry'])
    const pipelines = (await call(ctx.app, ctx.org.member.key, 'GET', '/pipeline/')).json()
    expect(org.pipelines).toEqual(pipelines.data)
    expect(org.pipelines.map((p: { name: string }) => p.name)).toEqual(['Sales', 'Renewals'])

    // Every field Close's recorded custom field has, Leadline's has, of the same JSON type.
    const ours = org.lead_custom_fields[0] as Record<string, unknown>
    for (const [key, value] of Object.entries(RECORDED_LEAD_FIELD)) {
      expect(typeof ours[key], key).toBe(typeof value)
    }

    // `_fields` picks them like any other field.
    const picked = await call(ctx.app, ctx.org.member.key, 'GET', `${orgPath()}?_fields=pipelines,lead_custom_fields`)
    expect(picked.json()).toEqual({ pipelines: org.pipelines, lead_custom_fields: org.lead_custom_fields })

    for (const [objectType, id] of made) await call(ctx.app, admin, 'DELETE', `/custom_field/${objectType}/${id}/`)
    await call(ctx.app, admin, 'DELETE', `/pipeline/${pipeline.json().id}/`)
  })

  it('lists deactivated members in inactive_memberships, not in memberships', async () => {
    // Its own organization: deactivating the member revokes the key the other tests use.
    const own = await createTestContext()
    try {
      const path = `/organization/${own.org.id}/`
      const admin = own.org.admin.key
      const before = (await call(own.app, admin, 'GET', path)).json()
      expect(before.inactive_memberships).toEqual([])
      const deactivated = await call(own.app, admin, 'POST', `/membership/${own.org.member.membershipId}/deactivate/`)
      expect(deactivated.statusCode).toBe(200)
      const after = (await call(own.app, admin, 'GET', path)).json()
      expect(after.memberships.map((m: { user_id: string }) => m.user_id)).toEqual([own.org.admin.id])
      expect(after.inactive_memberships.map((m: { user_id: string }) => m.user_id)).toEqual([own.org.member.id])
      expect(after.user_count).toBe(1)
    } finally {
      await own.close()
    }
  })
})

describe('PUT /organization/{id}/', () => {
  it('renames the organization and changes its currency', async () => {
    const res = await call(ctx.app, ctx.org.admin.key, 'PUT', orgPath(), {
      body: { name: '  Acme Europe ', currency: 'EUR' },
    })
    expect(res.statusCode).toBe(200)
    expect(res.json()).toMatchObject({
      name: 'Acme Europe',
      currency: 'EUR',
      currency_symbol: '€',
      updated_by: ctx.org.admin.id,
    })
    const again = await call(ctx.app, ctx.org.admin.key, 'GET', orgPath())
    expect(again.json()).toMatchObject({ name: 'Acme Europe', currency: 'EUR' })
  })

  it.each([
    [{ currency: 'XYZ' }, 'currency'],
    [{ currency: 'usd' }, 'currency'],
    [{ name: '   ' }, 'name'],
    [{ name: '' }, 'name'],
    [{ country: 'USA' }, 'country'],
    [{ name: 42 }, 'name'],
  ])('refuses %j with a field error and changes nothing', async (body, field) => {
    const before = (await call(ctx.app, ctx.org.admin.key, 'GET', orgPath())).json()
    const res = await call(ctx.app, ctx.org.admin.key, 'PUT', orgPath(), { body })
    expect(res.statusCode).toBe(400)
    expect(Object.keys(res.json()['field-errors'])).toEqual([field])
    const after = (await call(ctx.app, ctx.org.admin.key, 'GET', orgPath())).json()
    expect(after).toEqual(before)
  })

  it('reorders the lead statuses', async () => {
    const org = (await call(ctx.app, ctx.org.admin.key, 'GET', orgPath())).json()
    const reversed = [...org.lead_statuses].reverse()
    const res = await call(ctx.app, ctx.org.admin.key, 'PUT', orgPath(), {
      body: { lead_statuses: reversed.map((s: { id: string }) => ({ id: s.id })) },
    })
    expect(res.statusCode).toBe(200)
    expect(res.json().lead_statuses).toEqual(reversed)
    const byIds = await call(ctx.app, ctx.org.admin.key, 'PUT', orgPath(), {
      body: { lead_statuses: org.lead_statuses.map((s: { id: string }) => s.id) },
    })
    expect(byIds.json().lead_statuses).toEqual(org.lead_statuses)
  })

  it('refuses an order that leaves out, repeats or invents a status, and changes nothing', async () => {
    const org = (await call(ctx.app, ctx.org.admin.key, 'GET', orgPath())).json()
    const ids: string[] = org.lead_statuses.map((s: { id: string }) => s.id)
    const foreign = (await call(ctx.app, ctx.other.admin.key, 'GET', `/organization/${ctx.other.id}/`)).json()
      .lead_statuses[0].id
    const tooMany = Array.from({ length: 1001 }, (_, i) => ids[i % ids.length])
    const tooLong = [...ids.slice(1), 'x'.repeat(101)]
    for (const order of [
      ids.slice(1),
      [...ids, ids[0]],
      [...ids.slice(1), foreign],
      [...ids.slice(0, -1), ids[0]],
      tooMany,
      tooLong,
    ]) {
      const res = await call(ctx.app, ctx.org.admin.key, 'PUT', orgPath(), {
        body: { lead_statuses: order, name: 'Should not stick' },
      })
      expect(res.statusCode).toBe(400)
      // The field as a whole, or the one entry that is too long.
      expect(Object.keys(res.json()['field-errors'])).toEqual([order === tooLong ? 'lead_statuses.3' : 'lead_statuses'])
    }
    const after = (await call(ctx.app, ctx.org.admin.key, 'GET', orgPath())).json()
    expect(after.lead_statuses).toEqual(org.lead_statuses)
    expect(after.name).toBe(org.name)
  })

  it('records an organization event other admins’ screens refresh from, without the members, and none for no change', async () => {
    const before = (await call(ctx.app, ctx.org.admin.key, 'GET', orgPath())).json()
    ctx.clock.advance(60_000)
    const reversed = [...before.lead_statuses].reverse()
    const res = await call(ctx.app, ctx.org.admin.key, 'PUT', orgPath(), {
      body: { name: 'Acme Events', lead_statuses: reversed.map((s: { id: string }) => s.id) },
    })
    expect(res.statusCode, res.body).toBe(200)
    const events = await requestEvents(ctx.app, ctx.org.admin.key, res)
    expect(events).toHaveLength(1)
    const [event] = events
    expect(event).toMatchObject({
      object_type: 'organization',
      object_id: ctx.org.id,
      action: 'updated',
      lead_id: null,
      user_id: ctx.org.admin.id,
    })
    expect(event?.changed_fields).toEqual(['date_updated', 'lead_statuses', 'name'])
    expect(event?.previous_data).toMatchObject({ name: before.name, lead_statuses: before.lead_statuses })
    expect(event?.data).toMatchObject({ name: 'Acme Events', lead_statuses: reversed, currency: before.currency })
    expect(event?.data).not.toHaveProperty('memberships')
    expect(event?.data).not.toHaveProperty('inactive_memberships')
    expect(JSON.stringify(event)).not.toContain('@example.com')

    const same = await call(ctx.app, ctx.org.admin.key, 'PUT', orgPath(), { body: { name: 'Acme Events' } })
    expect(same.statusCode).toBe(200)
    expect(await requestEvents(ctx.app, ctx.org.admin.key, same)).toEqual([])
  })

  it('is for admins only', async () => {
    const res = await call(ctx.app, ctx.org.member.key, 'PUT', orgPath(), { body: { currency: 'GBP' } })
    expect(res.statusCode).toBe(403)
  })
})
