import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { isIdOf } from '@leadline/shared/ids'
import { newId } from '../../platform/security/ids.js'
import { formatTimestamp } from '../../platform/data/time.js'
import { answeredWhileOthersWait } from '../../tooling/test-support/responsive.js'
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
  description: string | null
  type: string
  choices: string[] | null
  accepts_multiple_values: boolean
  position: number
  organization_id: string
  created_by: string | null
  updated_by: string | null
  date_created: string
  date_updated: string
}

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}\+00:00$/

async function fields(org: TestOrg, objectType: ObjectType): Promise<FieldBody[]> {
  const res = await call(ctx.app, org.admin.key, 'GET', `/custom_field/${objectType}/`)
  expect(res.statusCode).toBe(200)
  return res.json().data
}

async function create(org: TestOrg, objectType: ObjectType, body: Record<string, unknown>): Promise<FieldBody> {
  const res = await call(ctx.app, org.admin.key, 'POST', `/custom_field/${objectType}/`, { body })
  expect(res.statusCode, res.body).toBe(200)
  return res.json()
}

async function fetchField(org: TestOrg, objectType: ObjectType, id: string): Promise<FieldBody> {
  const res = await call(ctx.app, org.admin.key, 'GET', `/custom_field/${objectType}/${id}/`)
  expect(res.statusCode).toBe(200)
  return res.json()
}

/** No lead API is needed: a minimal lead row holds the values, inserted straight into the database. */
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

async function insertValues(org: TestOrg, fieldId: string, values: string[], objectId?: string): Promise<string> {
  const leadId = await insertLead(org)
  await ctx.database.db
    .insertInto('custom_value')
    .values(
      values.map((value, position) => ({
        object_id: objectId ?? leadId,
        field_id: fieldId,
        position,
        organization_id: org.id,
        lead_id: leadId,
        value_text: value,
        value_number: null,
      })),
    )
    .execute()
  return leadId
}

async function valueCount(fieldId: string): Promise<number> {
  const rows = await ctx.database.db
    .selectFrom('custom_value')
    .select('object_id')
    .where('field_id', '=', fieldId)
    .execute()
  return rows.length
}

describe('creating custom fields', () => {
  it('creates a field with defaults, answers 200, and shows it under its object type only', async () => {
    const org = await ctx.createOrg('Create fields')
    const res = await call(ctx.app, org.admin.key, 'POST', '/custom_field/lead/', {
      body: { name: '  Lead initials ', type: 'text' },
    })
    expect(res.statusCode).toBe(200)
    const field = res.json()
    expect(field).toEqual({
      id: expect.any(String),
      name: 'Lead initials',
      description: null,
      type: 'text',
      choices: null,
      accepts_multiple_values: false,
      position: 0,
      organization_id: org.id,
      created_by: org.admin.id,
      updated_by: org.admin.id,
      date_created: expect.stringMatching(TIMESTAMP),
      date_updated: field.date_created,
    })
    expect(isIdOf('customField', field.id)).toBe(true)
    expect(await fetchField(org, 'lead', field.id)).toEqual(field)
    expect(await fields(org, 'lead')).toEqual([field])
    expect(await fields(org, 'contact')).toEqual([])
    expect(await fields(org, 'opportunity')).toEqual([])
  })

  it.each([['text'], ['textarea'], ['number'], ['date'], ['datetime'], ['user'], ['contact'], ['hidden']])(
    'creates a %s field on contacts and opportunities too',
    async (type) => {
      for (const objectType of ['contact', 'opportunity'] as const) {
        const field = await create(ctx.org, objectType, { name: `${type} ${objectType}`, type })
        expect(field).toMatchObject({ type, choices: null, accepts_multiple_values: false })
        expect((await fetchField(ctx.org, objectType, field.id)).type).toBe(type)
      }
    },
  )

  it('creates a choices field with trimmed choices in order, a description and multiple values', async () => {
    const field = await create(ctx.org, 'lead', {
      name: 'Products',
      description: '  What they bought  ',
      type: 'choices',
      choices: [' Gamma', 'Alpha ', 'Beta'],
      accepts_multiple_values: true,
    })
    expect(field).toMatchObject({
      description: 'What they bought',
      type: 'choices',
      choices: ['Gamma', 'Alpha', 'Beta'],
      accepts_multiple_values: true,
    })
    expect(await fetchField(ctx.org, 'lead', field.id)).toEqual(field)
  })

  it('ignores read-only fields in the body', async () => {
    const res = await call(ctx.app, ctx.org.admin.key, 'POST', '/custom_field/lead/', {
      body: {
        name: 'Read only',
        type: 'text',
        id: 'cf_mine',
        organization_id: ctx.other.id,
        created_by: ctx.other.admin.id,
        date_created: '2001-01-01T00:00:00.000000+00:00',
      },
    })
    expect(res.statusCode).toBe(200)
    const field = res.json()
    expect(field.id).not.toBe('cf_mine')
    expect(field.organization_id).toBe(ctx.org.id)
    expect(field.created_by).toBe(ctx.org.admin.id)
    expect(field.date_created).not.toBe('2001-01-01T00:00:00.000000+00:00')
    expect((await fields(ctx.other, 'lead')).map((f) => f.name)).not.toContain('Read only')
  })

  it.each([
    [{ name: '   ', type: 'text' }, 'name', 'This field may not be blank.'],
    [{ name: '', type: 'text' }, 'name', 'This field may not be blank.'],
    [{ name: 'x'.repeat(201), type: 'text' }, 'name', 'Ensure this field has no more than 200 characters.'],
    [{ name: 42, type: 'text' }, 'name', 'Must be a string.'],
    [{ type: 'text' }, 'name', 'This field is required.'],
    [{ name: 'No type' }, 'type', 'This field is required.'],
    [{ name: 'Bad type', type: 'boolean' }, 'type', 'Not a valid choice.'],
    [{ name: 'No choices', type: 'choices' }, 'choices', 'A choices field needs a list of at least one choice.'],
    [{ name: 'Null choices', type: 'choices', choices: null }, 'choices', expect.any(String)],
    [{ name: 'Empty choices', type: 'choices', choices: [] }, 'choices', expect.any(String)],
    [{ name: 'Blank choice', type: 'choices', choices: ['a', '  '] }, 'choices', 'Choices may not be blank.'],
    [{ name: 'Twice', type: 'choices', choices: ['Red', ' RED'] }, 'choices', '"RED" is listed more than once.'],
    [{ name: 'Not text', type: 'choices', choices: ['a', 1] }, 'choices', 'Each choice must be a string.'],
    [{ name: 'Not a list', type: 'choices', choices: 'a,b' }, 'choices', 'Must be a list.'],
    [{ name: 'Text choices', type: 'text', choices: ['a'] }, 'choices', 'Only fields of type choices have choices.'],
    [
      { name: 'Multi', type: 'text', accepts_multiple_values: 'yes' },
      'accepts_multiple_values',
      'Must be true or false.',
    ],
    [{ name: 'Long', type: 'text', description: 'd'.repeat(10_001) }, 'description', expect.any(String)],
  ])('refuses %j with a field error and creates nothing', async (body, field, message) => {
    const before = await fields(ctx.org, 'lead')
    const res = await call(ctx.app, ctx.org.admin.key, 'POST', '/custom_field/lead/', { body })
    expect(res.statusCode).toBe(400)
    expect(res.json()).toEqual({ errors: [], 'field-errors': { [field]: message } })
    expect(await fields(ctx.org, 'lead')).toEqual(before)
  })

  it('accepts null choices for a field that is not a choices field, and a name of exactly 200 characters', async () => {
    const field = await create(ctx.org, 'lead', { name: 'n'.repeat(200), type: 'number', choices: null })
    expect(field).toMatchObject({ name: 'n'.repeat(200), choices: null })
  })

  it('refuses a name another field of the same object type has, ignoring case', async () => {
    const org = await ctx.createOrg('Unique names')
    await create(org, 'lead', { name: 'Deal size', type: 'number' })
    const before = await fields(org, 'lead')
    const res = await call(ctx.app, org.admin.key, 'POST', '/custom_field/lead/', {
      body: { name: ' DEAL SIZE ', type: 'text' },
    })
    expect(res.statusCode).toBe(400)
    expect(res.json()).toEqual({ errors: [], 'field-errors': { name: expect.stringContaining('already exists') } })
    expect(await fields(org, 'lead')).toEqual(before)
  })

  it('allows a name used on another object type or in another organization', async () => {
    const org = await ctx.createOrg('Shared names')
    await create(org, 'lead', { name: 'Source', type: 'text' })
    await create(org, 'contact', { name: 'Source', type: 'text' })
    await create(org, 'opportunity', { name: 'source', type: 'text' })
    await create(ctx.other, 'lead', { name: 'Source', type: 'text' })
  })

  it('lets only one of simultaneous creates with the same name through', async () => {
    const org = await ctx.createOrg('Race')
    const responses = await Promise.all(
      ['Twin', 'twin', 'TWIN'].map((name) =>
        call(ctx.app, org.admin.key, 'POST', '/custom_field/lead/', { body: { name, type: 'text' } }),
      ),
    )
    expect(responses.map((r) => r.statusCode).sort()).toEqual([200, 400, 400])
    expect(await fields(org, 'lead')).toHaveLength(1)
  })
})

describe('listing custom fields', () => {
  it('pages with _skip and _limit, in creation order until someone reorders', async () => {
    const org = await ctx.createOrg('Paging')
    for (const name of ['One', 'Two', 'Three']) await create(org, 'contact', { name, type: 'text' })
    const first = (await call(ctx.app, org.member.key, 'GET', '/custom_field/contact/?_limit=2')).json()
    expect(first.has_more).toBe(true)
    expect(first.data.map((f: FieldBody) => f.name)).toEqual(['One', 'Two'])
    const rest = (await call(ctx.app, org.member.key, 'GET', '/custom_field/contact/?_skip=2&_limit=2')).json()
    expect(rest).toEqual({ has_more: false, data: [expect.objectContaining({ name: 'Three' })] })
  })

  it('refuses a _limit above 100', async () => {
    const res = await call(ctx.app, ctx.org.member.key, 'GET', '/custom_field/lead/?_limit=101')
    expect(res.statusCode).toBe(400)
    expect(res.json()['field-errors']).toEqual({ _limit: 'Ensure this value is less than or equal to 100.' })
  })

  it('lists only the caller’s organization’s fields', async () => {
    await create(ctx.other, 'lead', { name: 'Globex only', type: 'text' })
    const ours = await fields(ctx.org, 'lead')
    expect(ours.map((f) => f.name)).not.toContain('Globex only')
    expect(ours.every((f) => f.organization_id === ctx.org.id)).toBe(true)
  })

  it('keeps only the _fields asked for', async () => {
    const org = await ctx.createOrg('Fields param')
    const field = await create(org, 'lead', { name: 'Only', type: 'date' })
    const list = (await call(ctx.app, org.member.key, 'GET', '/custom_field/lead/?_fields=name,type')).json()
    expect(list.data).toEqual([{ name: 'Only', type: 'date' }])
    const one = await call(ctx.app, org.member.key, 'GET', `/custom_field/lead/${field.id}/?_fields=id`)
    expect(one.json()).toEqual({ id: field.id })
  })

  it('answers the older /custom_fields/ path too', async () => {
    const org = await ctx.createOrg('Old path')
    const field = await create(org, 'lead', { name: 'Listing Reference', type: 'choices', choices: ['bar', 'baz'] })
    const one = await call(ctx.app, org.member.key, 'GET', `/custom_fields/lead/${field.id}/`)
    expect(one.statusCode).toBe(200)
    expect(one.json()).toEqual(field)
    const unknown = await call(ctx.app, org.member.key, 'GET', '/custom_fields/lead/quux/')
    expect(unknown.statusCode).toBe(404)
    expect(unknown.json()).toEqual({ error: expect.any(String) })
  })
})

describe('updating custom fields', () => {
  it('changes only the fields sent, ignores read-only ones and records who and when', async () => {
    const org = await ctx.createOrg('Update')
    const field = await create(org, 'lead', { name: 'Region', description: 'Where', type: 'text' })
    const res = await call(ctx.app, org.admin.key, 'PUT', `/custom_field/lead/${field.id}/`, {
      body: { name: ' Territory ', id: 'cf_other', organization_id: ctx.other.id, created_by: 'user_x' },
    })
    expect(res.statusCode).toBe(200)
    const updated = res.json()
    expect(updated).toEqual({ ...field, name: 'Territory', date_updated: expect.stringMatching(TIMESTAMP) })
    expect(updated.date_updated > field.date_updated).toBe(true)
    expect(await fetchField(org, 'lead', field.id)).toEqual(updated)
  })

  it('clears the description with null or blank text', async () => {
    const field = await create(ctx.org, 'lead', { name: 'Described', description: 'Something', type: 'text' })
    for (const description of [null, '  ']) {
      await call(ctx.app, ctx.org.admin.key, 'PUT', `/custom_field/lead/${field.id}/`, {
        body: { description: 'Again' },
      })
      const res = await call(ctx.app, ctx.org.admin.key, 'PUT', `/custom_field/lead/${field.id}/`, {
        body: { description },
      })
      expect(res.json().description).toBeNull()
    }
  })

  it('leaves the field alone on an empty body, and lets it change the case of its own name', async () => {
    const field = await create(ctx.org, 'lead', { name: 'cased', type: 'text' })
    const untouched = await call(ctx.app, ctx.org.admin.key, 'PUT', `/custom_field/lead/${field.id}/`, { body: {} })
    expect(untouched.statusCode).toBe(200)
    expect(untouched.json()).toEqual(field)
    const recased = await call(ctx.app, ctx.org.admin.key, 'PUT', `/custom_field/lead/${field.id}/`, {
      body: { name: 'CASED' },
    })
    expect(recased.statusCode).toBe(200)
    expect(recased.json().name).toBe('CASED')
  })

  it('changes the type of a field without values, keeping choices only for choices fields', async () => {
    const field = await create(ctx.org, 'lead', { name: 'Shifty', type: 'text' })
    const toChoices = await call(ctx.app, ctx.org.admin.key, 'PUT', `/custom_field/lead/${field.id}/`, {
      body: { type: 'choices', choices: ['a', 'b'] },
    })
    expect(toChoices.statusCode).toBe(200)
    expect(toChoices.json()).toMatchObject({ type: 'choices', choices: ['a', 'b'] })
    const newChoices = await call(ctx.app, ctx.org.admin.key, 'PUT', `/custom_field/lead/${field.id}/`, {
      body: { choices: ['c', 'b', 'a'] },
    })
    expect(newChoices.json()).toMatchObject({ type: 'choices', choices: ['c', 'b', 'a'] })
    const toNumber = await call(ctx.app, ctx.org.admin.key, 'PUT', `/custom_field/lead/${field.id}/`, {
      body: { type: 'number' },
    })
    expect(toNumber.statusCode).toBe(200)
    expect(toNumber.json()).toMatchObject({ type: 'number', choices: null })
    expect(await fetchField(ctx.org, 'lead', field.id)).toMatchObject({ type: 'number', choices: null })
  })

  it('refuses to change the type of a field that holds values, and says why', async () => {
    const org = await ctx.createOrg('Typed values')
    const field = await create(org, 'lead', { name: 'Budget', type: 'text' })
    await insertValues(org, field.id, ['lots'])
    const res = await call(ctx.app, org.admin.key, 'PUT', `/custom_field/lead/${field.id}/`, {
      body: { type: 'number', name: 'Budget (number)' },
    })
    expect(res.statusCode).toBe(400)
    expect(res.json()).toEqual({
      errors: [],
      'field-errors': { type: expect.stringMatching(/cannot change while the field holds values \(1 now\)/) },
    })
    expect(await fetchField(org, 'lead', field.id)).toEqual(field)
    // The same type is not a change; other fields still change.
    const same = await call(ctx.app, org.admin.key, 'PUT', `/custom_field/lead/${field.id}/`, {
      body: { type: 'text', name: 'Budget words' },
    })
    expect(same.statusCode).toBe(200)
    expect(same.json()).toMatchObject({ type: 'text', name: 'Budget words' })
  })

  it('refuses to make a field single-valued while an object holds several of its values', async () => {
    const org = await ctx.createOrg('Multiple values')
    const field = await create(org, 'lead', {
      name: 'Tags',
      type: 'choices',
      choices: ['a', 'b'],
      accepts_multiple_values: true,
    })
    const leadId = await insertValues(org, field.id, ['a', 'b'])
    const res = await call(ctx.app, org.admin.key, 'PUT', `/custom_field/lead/${field.id}/`, {
      body: { accepts_multiple_values: false },
    })
    expect(res.statusCode).toBe(400)
    expect(Object.keys(res.json()['field-errors'])).toEqual(['accepts_multiple_values'])
    expect((await fetchField(org, 'lead', field.id)).accepts_multiple_values).toBe(true)

    await ctx.database.db.deleteFrom('custom_value').where('object_id', '=', leadId).where('position', '=', 1).execute()
    const ok = await call(ctx.app, org.admin.key, 'PUT', `/custom_field/lead/${field.id}/`, {
      body: { accepts_multiple_values: false },
    })
    expect(ok.statusCode).toBe(200)
    expect(ok.json().accepts_multiple_values).toBe(false)
  })

  it.each([
    [{ name: 'Existing' }, 'name'],
    [{ name: 'existing ' }, 'name'],
    [{ name: '  ' }, 'name'],
    [{ name: null }, 'name'],
    [{ type: 'checkbox' }, 'type'],
    [{ type: 'choices' }, 'choices'],
    [{ choices: ['x'] }, 'choices'],
    [{ accepts_multiple_values: null }, 'accepts_multiple_values'],
  ])('refuses an update to %j with a field error and changes nothing', async (body, field) => {
    const org = await ctx.createOrg(`Bad update ${field}`)
    await create(org, 'contact', { name: 'Existing', type: 'text' })
    const target = await create(org, 'contact', { name: 'Target', type: 'text' })
    const res = await call(ctx.app, org.admin.key, 'PUT', `/custom_field/contact/${target.id}/`, { body })
    expect(res.statusCode).toBe(400)
    expect(Object.keys(res.json()['field-errors'])).toEqual([field])
    expect(await fetchField(org, 'contact', target.id)).toEqual(target)
  })

  it('refuses to empty the choices of a choices field', async () => {
    const field = await create(ctx.org, 'lead', { name: 'Emptied', type: 'choices', choices: ['x'] })
    for (const choices of [[], null]) {
      const res = await call(ctx.app, ctx.org.admin.key, 'PUT', `/custom_field/lead/${field.id}/`, {
        body: { choices },
      })
      expect(res.statusCode).toBe(400)
      expect(Object.keys(res.json()['field-errors'])).toEqual(['choices'])
    }
    expect(await fetchField(ctx.org, 'lead', field.id)).toEqual(field)
  })
})

describe('deleting custom fields', () => {
  it('answers 200 {}, and the field and its values are gone; other fields keep theirs', async () => {
    const org = await ctx.createOrg('Delete')
    const doomed = await create(org, 'lead', { name: 'Doomed', type: 'text' })
    const kept = await create(org, 'lead', { name: 'Kept', type: 'text' })
    await insertValues(org, doomed.id, ['x', 'y'])
    await insertValues(org, kept.id, ['z'])
    expect(await valueCount(doomed.id)).toBe(2)
    const res = await call(ctx.app, org.admin.key, 'DELETE', `/custom_field/lead/${doomed.id}/`)
    expect(res.statusCode).toBe(200)
    expect(res.json()).toEqual({})
    expect((await call(ctx.app, org.admin.key, 'GET', `/custom_field/lead/${doomed.id}/`)).statusCode).toBe(404)
    expect(await fields(org, 'lead')).toEqual([kept])
    expect(await valueCount(doomed.id)).toBe(0)
    expect(await valueCount(kept.id)).toBe(1)
  })
})

describe('who may change custom fields', () => {
  it.each([
    ['POST', '/custom_field/lead/', { name: 'By a rep', type: 'text' }],
    ['PUT', '/custom_field/lead/{id}/', { name: 'By a rep' }],
    ['DELETE', '/custom_field/lead/{id}/', undefined],
  ] as const)('refuses %s %s to a non-admin with 403 and changes nothing', async (method, template, body) => {
    const org = await ctx.createOrg(`Rep ${method}`)
    const field = await create(org, 'lead', { name: 'Admin made', type: 'text' })
    const res = await call(ctx.app, org.member.key, method, template.replace('{id}', field.id), { body })
    expect(res.statusCode).toBe(403)
    expect(res.json()).toEqual({ error: expect.any(String) })
    expect(await fields(org, 'lead')).toEqual([field])
  })

  it('lets a non-admin read the fields', async () => {
    const field = await create(ctx.org, 'opportunity', { name: 'Readable', type: 'text' })
    const one = await call(ctx.app, ctx.org.member.key, 'GET', `/custom_field/opportunity/${field.id}/`)
    expect(one.statusCode).toBe(200)
    const list = await call(ctx.app, ctx.org.member.key, 'GET', '/custom_field/opportunity/')
    expect(list.json().data).toContainEqual(field)
  })

  it.each([['GET'], ['PUT'], ['DELETE']] as const)(
    'answers %s of another organization’s field with 404, to admins and users alike',
    async (method) => {
      const theirs = await create(ctx.other, 'lead', { name: `Theirs ${method}`, type: 'text' })
      const body = method === 'PUT' ? { name: 'Hijacked' } : undefined
      for (const key of [ctx.org.admin.key, ctx.org.member.key]) {
        const res = await call(ctx.app, key, method, `/custom_field/lead/${theirs.id}/`, { body })
        expect(res.statusCode).toBe(404)
        expect(res.json()).toEqual({ error: 'Lead custom field not found.' })
      }
      expect(await fetchField(ctx.other, 'lead', theirs.id)).toEqual(theirs)
    },
  )

  it.each([['GET'], ['PUT'], ['DELETE']] as const)(
    'answers %s of a field under another object type’s path with 404',
    async (method) => {
      const contactField = await create(ctx.org, 'contact', { name: `Contact only ${method}`, type: 'text' })
      const body = method === 'PUT' ? { name: 'Moved' } : undefined
      for (const objectType of ['lead', 'opportunity']) {
        const res = await call(ctx.app, ctx.org.admin.key, method, `/custom_field/${objectType}/${contactField.id}/`, {
          body,
        })
        expect(res.statusCode).toBe(404)
        expect(res.json()).toEqual({ error: expect.stringMatching(/custom field not found/) })
      }
      expect(await fetchField(ctx.org, 'contact', contactField.id)).toEqual(contactField)
    },
  )

  it('answers 404 for an id that does not exist', async () => {
    for (const objectType of ['lead', 'contact', 'opportunity']) {
      const res = await call(ctx.app, ctx.org.admin.key, 'GET', `/custom_field/${objectType}/cf_nope/`)
      expect(res.statusCode).toBe(404)
    }
  })

  it('answers 405 for a method the path does not have', async () => {
    const res = await call(ctx.app, ctx.org.admin.key, 'PATCH', '/custom_field/lead/')
    expect(res.statusCode).toBe(405)
  })

  it('answers 404 for an object type that has no custom fields', async () => {
    const res = await call(ctx.app, ctx.org.admin.key, 'GET', '/custom_field/task/')
    expect(res.statusCode).toBe(404)
  })
})

describe('a number value anyone can send', () => {
  it('is refused at once when it is a long run of digits that is no number, while other requests are answered', async () => {
    const field = await create(ctx.org, 'lead', { name: 'Seats (long input)', type: 'number' })
    const { response, longestMeMs } = await answeredWhileOthersWait(ctx.app, ctx.org.member.key, () =>
      call(ctx.app, ctx.org.member.key, 'POST', '/lead/', {
        body: { name: 'Digits', [`custom.${field.id}`]: `${'1'.repeat(900_000)}x` },
      }),
    )
    expect(response.statusCode).toBe(400)
    expect(response.json()).toMatchObject({ 'field-errors': { [`custom.${field.id}`]: 'A valid number is required.' } })
    expect(longestMeMs).toBeLessThan(1_000)
  })
})
