import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { newId } from '../../platform/security/ids.js'
import { formatTimestamp } from '../../platform/data/time.js'
import { call, createTestContext, type TestContext, type TestOrg } from '../../tooling/test-support/test-app.js'

let ctx: TestContext
beforeAll(async () => {
  ctx = await createTestContext()
})
afterAll(async () => {
  await ctx.close()
})

type ObjectType = 'lead' | 'contact' | 'opportunity'

interface FieldBody {
  id: string
  name: string
  position: number
}

async function create(org: TestOrg, objectType: ObjectType, name: string): Promise<FieldBody> {
  const res = await call(ctx.app, org.admin.key, 'POST', `/custom_field/${objectType}/`, {
    body: { name, type: 'text' },
  })
  expect(res.statusCode, res.body).toBe(200)
  return res.json()
}

async function schemaNames(org: TestOrg, objectType: ObjectType, key = org.admin.key): Promise<string[]> {
  const res = await call(ctx.app, key, 'GET', `/custom_field_schema/${objectType}/`)
  expect(res.statusCode, res.body).toBe(200)
  return res.json<{ fields: FieldBody[] }>().fields.map((f) => f.name)
}

async function listNames(org: TestOrg, objectType: ObjectType): Promise<string[]> {
  const res = await call(ctx.app, org.member.key, 'GET', `/custom_field/${objectType}/`)
  expect(res.statusCode, res.body).toBe(200)
  return res.json<{ data: FieldBody[] }>().data.map((f) => f.name)
}

async function reorder(org: TestOrg, objectType: ObjectType, ids: string[], key = org.admin.key) {
  return call(ctx.app, key, 'PUT', `/custom_field_schema/${objectType}/`, {
    body: { fields: ids.map((id) => ({ id })) },
  })
}

describe('the custom field schema', () => {
  it('lists an object type’s fields in creation order until someone reorders, a new field last', async () => {
    const org = await ctx.createOrg('Schema order')
    const a = await create(org, 'lead', 'Alpha')
    const b = await create(org, 'lead', 'Beta')
    await create(org, 'contact', 'Contact only')
    expect([a.position, b.position]).toEqual([0, 1])
    expect(await schemaNames(org, 'lead', org.member.key)).toEqual(['Alpha', 'Beta'])
    expect(await schemaNames(org, 'contact')).toEqual(['Contact only'])
    expect(await schemaNames(org, 'opportunity')).toEqual([])
  })

  it('puts the listed fields first in the order given, the others after them in their order; the list follows', async () => {
    const org = await ctx.createOrg('Schema reorder')
    await create(org, 'opportunity', 'One')
    const two = await create(org, 'opportunity', 'Two')
    await create(org, 'opportunity', 'Three')
    const four = await create(org, 'opportunity', 'Four')
    const res = await reorder(org, 'opportunity', [four.id, two.id])
    expect(res.statusCode, res.body).toBe(200)
    const body = res.json<{ fields: FieldBody[] }>()
    expect(body.fields.map((f) => f.name)).toEqual(['Four', 'Two', 'One', 'Three'])
    expect(body.fields.map((f) => f.position)).toEqual([0, 1, 2, 3])
    expect(await schemaNames(org, 'opportunity')).toEqual(['Four', 'Two', 'One', 'Three'])
    expect(await listNames(org, 'opportunity')).toEqual(['Four', 'Two', 'One', 'Three'])
    const paged = await call(ctx.app, org.member.key, 'GET', '/custom_field/opportunity/?_skip=1&_limit=2')
    expect(paged.json<{ data: FieldBody[] }>().data.map((f) => f.name)).toEqual(['Two', 'One'])
    await create(org, 'opportunity', 'Five')
    expect(await schemaNames(org, 'opportunity')).toEqual(['Four', 'Two', 'One', 'Three', 'Five'])
  })

  it('shows the order in the lead’s custom values and where values are written', async () => {
    const org = await ctx.createOrg('Schema on leads')
    const first = await create(org, 'lead', 'First')
    const second = await create(org, 'lead', 'Second')
    expect((await reorder(org, 'lead', [second.id])).statusCode).toBe(200)
    const lead = await call(ctx.app, org.member.key, 'POST', '/lead/', {
      body: { name: 'Ordered', [`custom.${first.id}`]: '1', [`custom.${second.id}`]: '2' },
    })
    expect(lead.statusCode, lead.body).toBe(200)
    expect(Object.keys(lead.json<{ custom: Record<string, unknown> }>().custom)).toEqual(['Second', 'First'])
  })

  it('records an update of each field whose place changed, and only those', async () => {
    const org = await ctx.createOrg('Schema events')
    const a = await create(org, 'contact', 'A')
    const b = await create(org, 'contact', 'B')
    const c = await create(org, 'contact', 'C')
    expect((await reorder(org, 'contact', [b.id, a.id])).statusCode).toBe(200)
    const events = await ctx.database.db
      .selectFrom('event')
      .select(['object_id', 'object_type', 'action', 'changed_fields'])
      .where('organization_id', '=', org.id)
      .where('action', '=', 'updated')
      .execute()
    expect(events.map((e) => e.object_id).sort()).toEqual([a.id, b.id].sort())
    for (const event of events) {
      expect(event).toMatchObject({ object_type: 'custom_field.contact', changed_fields: '["position"]' })
    }
    expect(events.map((e) => e.object_id)).not.toContain(c.id)
    expect((await reorder(org, 'contact', [b.id, a.id, c.id])).statusCode).toBe(200)
    const again = await ctx.database.db
      .selectFrom('event')
      .select('id')
      .where('organization_id', '=', org.id)
      .where('action', '=', 'updated')
      .execute()
    expect(again).toHaveLength(2)
  })

  it('accepts an empty list and changes nothing', async () => {
    const org = await ctx.createOrg('Schema empty')
    await create(org, 'lead', 'Kept first')
    await create(org, 'lead', 'Kept second')
    const res = await reorder(org, 'lead', [])
    expect(res.statusCode).toBe(200)
    expect(res.json<{ fields: FieldBody[] }>().fields.map((f) => f.name)).toEqual(['Kept first', 'Kept second'])
  })

  it.each([
    ['an unknown id', () => ['cf_unknown']],
    ['a duplicate', (ids: string[]) => [ids[0] ?? '', ids[1] ?? '', ids[0] ?? '']],
  ] as const)('refuses %s with a field error on fields, and keeps the order', async (_what, ids) => {
    const org = await ctx.createOrg('Schema refused')
    const made = [await create(org, 'lead', 'X'), await create(org, 'lead', 'Y')]
    const res = await reorder(org, 'lead', ids(made.map((f) => f.id)))
    expect(res.statusCode).toBe(400)
    expect(res.json()).toEqual({ errors: [], 'field-errors': { fields: expect.any(String) } })
    expect(await schemaNames(org, 'lead')).toEqual(['X', 'Y'])
  })

  it('refuses a field of another object type or of another organization as unknown', async () => {
    const org = await ctx.createOrg('Schema foreign')
    const mine = await create(org, 'lead', 'Mine')
    await create(org, 'lead', 'Also mine')
    const contactField = await create(org, 'contact', 'A contact field')
    const theirs = await create(ctx.other, 'lead', 'Theirs for schema')
    for (const id of [contactField.id, theirs.id]) {
      const res = await reorder(org, 'lead', [id, mine.id])
      expect(res.statusCode).toBe(400)
      expect(res.json<{ 'field-errors': Record<string, string> }>()['field-errors'].fields).toContain(id)
    }
    expect(await schemaNames(org, 'lead')).toEqual(['Mine', 'Also mine'])
    expect(await schemaNames(ctx.other, 'lead')).toContain('Theirs for schema')
  })

  it.each([
    [{ fields: 'nope' }],
    [{ fields: [{}] }],
    [{ fields: [{ id: 3 }] }],
    [{}],
    [{ fields: Array.from({ length: 1001 }, (_, i) => ({ id: `cf_${String(i)}` })) }],
    [{ fields: [{ id: 'x'.repeat(101) }] }],
  ])('refuses the malformed body %j with a 400 in the documented shape', async (body) => {
    const res = await call(ctx.app, ctx.org.admin.key, 'PUT', '/custom_field_schema/lead/', { body })
    expect(res.statusCode).toBe(400)
    expect(res.json()).toEqual({ errors: [], 'field-errors': expect.any(Object) })
  })

  it('refuses a reorder to a non-admin with 403 and changes nothing', async () => {
    const org = await ctx.createOrg('Schema rep')
    await create(org, 'lead', 'P')
    const q = await create(org, 'lead', 'Q')
    const res = await reorder(org, 'lead', [q.id], org.member.key)
    expect(res.statusCode).toBe(403)
    expect(res.json()).toEqual({ error: expect.any(String) })
    expect(await schemaNames(org, 'lead')).toEqual(['P', 'Q'])
  })

  it('answers 404 in the documented shape for an object type that has no schema', async () => {
    for (const method of ['GET', 'PUT'] as const) {
      const res = await call(ctx.app, ctx.org.admin.key, method, '/custom_field_schema/task/', {
        body: method === 'PUT' ? { fields: [] } : undefined,
      })
      expect(res.statusCode).toBe(404)
      expect(res.json()).toEqual({ error: expect.any(String) })
    }
  })
})

/** A minimal lead row to hold values, inserted straight into the database. */
async function insertLead(org: TestOrg): Promise<string> {
  const status = await ctx.database.db
    .selectFrom('lead_status')
    .select('id')
    .where('organization_id', '=', org.id)
    .executeTakeFirstOrThrow()
  const id = newId('lead')
  const now = formatTimestamp(ctx.clock.now())
  await ctx.database.db
    .insertInto('lead')
    .values({
      id,
      organization_id: org.id,
      name: 'Value holder',
      description: '',
      url: null,
      status_id: status.id,
      created_by: null,
      updated_by: null,
      date_created: now,
      date_updated: now,
    })
    .execute()
  return id
}

async function insertValues(org: TestOrg, fieldId: string, count: number): Promise<void> {
  const leadId = await insertLead(org)
  await ctx.database.db
    .insertInto('custom_value')
    .values(
      Array.from({ length: count }, (_, position) => ({
        object_id: leadId,
        field_id: fieldId,
        position,
        organization_id: org.id,
        lead_id: leadId,
        value_text: `v${position}`,
        value_number: null,
      })),
    )
    .execute()
}

describe('a custom field’s usage', () => {
  it('counts the values the field holds across the organization’s objects', async () => {
    const org = await ctx.createOrg('Usage')
    const used = await create(org, 'lead', 'Used')
    const unused = await create(org, 'lead', 'Unused')
    const other = await create(org, 'lead', 'Other')
    await insertValues(org, used.id, 2)
    await insertValues(org, used.id, 1)
    await insertValues(org, other.id, 4)
    const usage = async (id: string) => call(ctx.app, org.admin.key, 'GET', `/custom_field/lead/${id}/usage/`)
    expect((await usage(used.id)).json()).toEqual({ values: 3 })
    expect((await usage(unused.id)).json()).toEqual({ values: 0 })
    expect((await usage(other.id)).json()).toEqual({ values: 4 })
  })

  it('counts a contact field’s values set through the API', async () => {
    const org = await ctx.createOrg('Usage contacts')
    const role = await create(org, 'contact', 'Role')
    const lead = await call(ctx.app, org.member.key, 'POST', '/lead/', {
      body: {
        name: 'With contacts',
        contacts: [
          { name: 'Ann', [`custom.${role.id}`]: 'Buyer' },
          { name: 'Bob', [`custom.${role.id}`]: 'Champion' },
          { name: 'Cy' },
        ],
      },
    })
    expect(lead.statusCode, lead.body).toBe(200)
    const res = await call(ctx.app, org.admin.key, 'GET', `/custom_field/contact/${role.id}/usage/`)
    expect(res.statusCode).toBe(200)
    expect(res.json()).toEqual({ values: 2 })
  })

  it('is for admins: a non-admin hears 403, another organization’s or type’s field is not found', async () => {
    const org = await ctx.createOrg('Usage roles')
    const field = await create(org, 'opportunity', 'Guarded')
    const theirs = await create(ctx.other, 'opportunity', 'Theirs for usage')
    expect(
      (await call(ctx.app, org.member.key, 'GET', `/custom_field/opportunity/${field.id}/usage/`)).statusCode,
    ).toBe(403)
    for (const path of [`/custom_field/opportunity/${theirs.id}/usage/`, `/custom_field/lead/${field.id}/usage/`]) {
      const res = await call(ctx.app, org.admin.key, 'GET', path)
      expect(res.statusCode).toBe(404)
      expect(res.json()).toEqual({ error: expect.stringMatching(/custom field not found/) })
    }
  })
})
