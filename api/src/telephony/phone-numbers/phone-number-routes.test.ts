import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { isIdOf } from '@leadline/shared/ids'
import { requestEvents } from '../../tooling/test-support/request-events.js'
import { call, createTestContext, type TestContext, type TestOrg } from '../../tooling/test-support/test-app.js'
import { findInternalPhoneNumber } from './phone-number-repo.js'

let ctx: TestContext
beforeAll(async () => {
  ctx = await createTestContext()
})
afterAll(async () => {
  await ctx.close()
})

interface PhoneNumberBody {
  id: string
  number: string
  label: string | null
  type: string
  user_id: string | null
}

async function addNumber(org: TestOrg, body: Record<string, unknown>): Promise<PhoneNumberBody> {
  const res = await call(ctx.app, org.admin.key, 'POST', '/phone_number/', { body })
  expect(res.statusCode).toBe(200)
  return res.json()
}

async function listNumbers(org: TestOrg, query = ''): Promise<PhoneNumberBody[]> {
  const res = await call(ctx.app, org.member.key, 'GET', `/phone_number/${query}`)
  expect(res.statusCode).toBe(200)
  return res.json().data
}

describe('POST /phone_number/', () => {
  it('stores a number dialled in the organization’s country (US) in E.164 and answers 200', async () => {
    const org = await ctx.createOrg('Phones')
    const res = await call(ctx.app, org.admin.key, 'POST', '/phone_number/', { body: { number: '(415) 555-0100' } })
    expect(res.statusCode).toBe(200)
    const phone = res.json()
    expect(phone).toEqual({
      id: expect.any(String),
      organization_id: org.id,
      number: '+14155550100',
      number_formatted: '+1 415 555 0100',
      label: null,
      type: 'internal',
      user_id: null,
      is_group_number: false,
      sms_enabled: true,
      date_created: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}\+00:00$/),
      date_updated: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}\+00:00$/),
    })
    expect(isIdOf('phoneNumber', phone.id)).toBe(true)
    const one = await call(ctx.app, org.member.key, 'GET', `/phone_number/${phone.id}/`)
    expect(one.statusCode).toBe(200)
    expect(one.json()).toEqual(phone)
  })

  it('reads national numbers in the organization’s own country', async () => {
    const org = await ctx.createOrg('London office')
    const put = await call(ctx.app, org.admin.key, 'PUT', `/organization/${org.id}/`, { body: { country: 'GB' } })
    expect(put.statusCode).toBe(200)
    const phone = await addNumber(org, { number: '020 3974 2049' })
    expect(phone).toMatchObject({ number: '+442039742049', number_formatted: '+44 20 3974 2049' })
  })

  it('keeps an international number as dialled, whatever the country', async () => {
    const phone = await addNumber(ctx.org, { number: '+44 20 3974 2050', label: 'London', type: 'virtual' })
    expect(phone).toMatchObject({
      number: '+442039742050',
      number_formatted: '+44 20 3974 2050',
      label: 'London',
      type: 'virtual',
      sms_enabled: false,
      is_group_number: false,
    })
  })

  it('assigns the number to a user of the organization', async () => {
    const phone = await addNumber(ctx.org, { number: '+1 415 555 0110', user_id: ctx.org.member.id, type: 'external' })
    expect(phone).toMatchObject({ user_id: ctx.org.member.id, type: 'external', sms_enabled: false })
  })

  it('ignores read-only fields in the body', async () => {
    const phone = await addNumber(ctx.org, {
      number: '+1 415 555 0111',
      id: 'phon_mine',
      organization_id: ctx.other.id,
      date_created: '2001-01-01T00:00:00.000000+00:00',
      is_group_number: true,
      sms_enabled: false,
    })
    expect(phone).toMatchObject({ organization_id: ctx.org.id, is_group_number: false, sms_enabled: true })
    expect(phone.id).not.toBe('phon_mine')
    expect(await listNumbers(ctx.other)).not.toContainEqual(expect.objectContaining({ id: phone.id }))
  })

  it.each([
    [{ number: 'not a phone number' }, 'number'],
    [{ number: '555-0100' }, 'number'],
    [{ number: '+1 415 555 01' }, 'number'],
    [{ number: '' }, 'number'],
    [{ number: 4155550100 }, 'number'],
    [{ label: 'No number' }, 'number'],
    [{ number: '+1 415 555 0190', type: 'landline' }, 'type'],
    [{ number: '+1 415 555 0191', user_id: 'user_nobody' }, 'user_id'],
  ])('refuses %j with a field error and stores nothing', async (body, field) => {
    const before = await listNumbers(ctx.org)
    const res = await call(ctx.app, ctx.org.admin.key, 'POST', '/phone_number/', { body })
    expect(res.statusCode).toBe(400)
    expect(res.json()).toEqual({ errors: [], 'field-errors': { [field]: expect.any(String) } })
    expect(await listNumbers(ctx.org)).toEqual(before)
  })

  it('refuses a user of another organization', async () => {
    const res = await call(ctx.app, ctx.org.admin.key, 'POST', '/phone_number/', {
      body: { number: '+1 415 555 0192', user_id: ctx.other.admin.id },
    })
    expect(res.statusCode).toBe(400)
    expect(Object.keys(res.json()['field-errors'])).toEqual(['user_id'])
    expect(await listNumbers(ctx.org, '?number=%2B14155550192')).toEqual([])
  })

  it('refuses a number the organization already has, however it is written', async () => {
    const org = await ctx.createOrg('Duplicates')
    await addNumber(org, { number: '(415) 555-0120' })
    for (const number of ['+1 415-555-0120', '4155550120', '+14155550120']) {
      const res = await call(ctx.app, org.admin.key, 'POST', '/phone_number/', { body: { number, type: 'external' } })
      expect(res.statusCode).toBe(400)
      expect(res.json()).toEqual({ errors: [], 'field-errors': { number: expect.any(String) } })
    }
    expect(await listNumbers(org)).toHaveLength(1)
  })

  it('allows a number another organization has', async () => {
    await addNumber(ctx.other, { number: '+1 415 555 0130' })
    const ours = await addNumber(ctx.org, { number: '+1 415 555 0130' })
    expect(ours.number).toBe('+14155550130')
  })
})

describe('GET /phone_number/', () => {
  let org: TestOrg
  let desk: PhoneNumberBody
  let mobile: PhoneNumberBody
  let fax: PhoneNumberBody
  beforeAll(async () => {
    org = await ctx.createOrg('Phone book')
    desk = await addNumber(org, { number: '(415) 555-0140', label: 'Desk' })
    mobile = await addNumber(org, { number: '+44 20 3974 2049', user_id: org.member.id, type: 'virtual' })
    fax = await addNumber(org, { number: '(415) 555-0141', type: 'external', user_id: org.member.id })
  })

  it('lists the organization’s numbers, oldest first, to any member', async () => {
    const numbers = await listNumbers(org)
    expect(numbers.map((p) => p.id)).toEqual([desk.id, mobile.id, fax.id])
  })

  it('finds a number written any way, normalized like a stored one', async () => {
    for (const query of ['?number=415-555-0140', '?number=(415)%20555%200140', '?number=%2B14155550140']) {
      expect((await listNumbers(org, query)).map((p) => p.id)).toEqual([desk.id])
    }
  })

  it('reads an unencoded + in the query string as a +', async () => {
    // `?number=+442039742049` as real Close clients send it: the `+` decodes to a space.
    expect((await listNumbers(org, '?number=+442039742049')).map((p) => p.id)).toEqual([mobile.id])
  })

  it('answers an empty list for a number nobody has or that is not a number', async () => {
    for (const query of ['?number=thisshouldneverexist', '?number=%2B14155550199']) {
      const res = await call(ctx.app, org.member.key, 'GET', `/phone_number/${query}`)
      expect(res.statusCode).toBe(200)
      expect(res.json()).toEqual({ has_more: false, data: [] })
    }
  })

  it('filters by user_id and by type', async () => {
    expect((await listNumbers(org, `?user_id=${org.member.id}`)).map((p) => p.id)).toEqual([mobile.id, fax.id])
    expect((await listNumbers(org, '?type=external')).map((p) => p.id)).toEqual([fax.id])
    expect((await listNumbers(org, `?type=virtual&user_id=${org.member.id}`)).map((p) => p.id)).toEqual([mobile.id])
    const bad = await call(ctx.app, org.member.key, 'GET', '/phone_number/?type=landline')
    expect(bad.statusCode).toBe(400)
    expect(Object.keys(bad.json()['field-errors'])).toEqual(['type'])
  })

  it('pages with _skip and _limit', async () => {
    const first = (await call(ctx.app, org.member.key, 'GET', '/phone_number/?_limit=2')).json()
    const rest = (await call(ctx.app, org.member.key, 'GET', '/phone_number/?_limit=2&_skip=2')).json()
    expect(first.has_more).toBe(true)
    expect(first.data.map((p: PhoneNumberBody) => p.id)).toEqual([desk.id, mobile.id])
    expect(rest.has_more).toBe(false)
    expect(rest.data.map((p: PhoneNumberBody) => p.id)).toEqual([fax.id])
  })

  it('keeps only the _fields asked for, on the list and on one number', async () => {
    const list = (await call(ctx.app, org.member.key, 'GET', '/phone_number/?_fields=number,label')).json()
    expect(list.data[0]).toEqual({ number: '+14155550140', label: 'Desk' })
    const one = await call(ctx.app, org.member.key, 'GET', `/phone_number/${desk.id}/?_fields=id,number_formatted`)
    expect(one.json()).toEqual({ id: desk.id, number_formatted: '+1 415 555 0140' })
  })

  it('shows none of another organization’s numbers', async () => {
    expect(await listNumbers(ctx.other, '?number=(415)%20555-0140')).toEqual([])
  })
})

describe('PUT /phone_number/{id}/', () => {
  it('changes label, type and user; the number and read-only fields are ignored', async () => {
    const org = await ctx.createOrg('Relabel')
    const phone = await addNumber(org, { number: '(415) 555-0150', label: 'Old' })
    const res = await call(ctx.app, org.admin.key, 'PUT', `/phone_number/${phone.id}/`, {
      body: {
        label: ' Support line ',
        type: 'external',
        user_id: org.member.id,
        number: '+1 415 555 0151',
        organization_id: ctx.other.id,
      },
    })
    expect(res.statusCode).toBe(200)
    const expected = {
      id: phone.id,
      organization_id: org.id,
      number: '+14155550150',
      label: 'Support line',
      type: 'external',
      user_id: org.member.id,
      sms_enabled: false,
    }
    expect(res.json()).toMatchObject(expected)
    expect((await call(ctx.app, org.member.key, 'GET', `/phone_number/${phone.id}/`)).json()).toMatchObject(expected)
  })

  it('clears the label and the user with null', async () => {
    const phone = await addNumber(ctx.org, { number: '(415) 555-0152', label: 'Temp', user_id: ctx.org.admin.id })
    const res = await call(ctx.app, ctx.org.admin.key, 'PUT', `/phone_number/${phone.id}/`, {
      body: { label: null, user_id: null },
    })
    expect(res.statusCode).toBe(200)
    expect(res.json()).toMatchObject({ label: null, user_id: null, number: '+14155550152' })
  })

  it.each([
    [{ type: 'landline' }, 'type', '+1 415 555 0160'],
    [{ user_id: 'user_nobody' }, 'user_id', '+1 415 555 0161'],
    [{ label: 42 }, 'label', '+1 415 555 0162'],
  ])('refuses %j with a field error and changes nothing', async (body, field, number) => {
    const phone = await addNumber(ctx.org, { number })
    const res = await call(ctx.app, ctx.org.admin.key, 'PUT', `/phone_number/${phone.id}/`, { body })
    expect(res.statusCode).toBe(400)
    expect(Object.keys(res.json()['field-errors'])).toEqual([field])
    expect((await call(ctx.app, ctx.org.admin.key, 'GET', `/phone_number/${phone.id}/`)).json()).toEqual(phone)
  })

  it('refuses a user of another organization', async () => {
    const phone = await addNumber(ctx.org, { number: '(415) 555-0170' })
    const res = await call(ctx.app, ctx.org.admin.key, 'PUT', `/phone_number/${phone.id}/`, {
      body: { user_id: ctx.other.member.id },
    })
    expect(res.statusCode).toBe(400)
    expect(Object.keys(res.json()['field-errors'])).toEqual(['user_id'])
    expect((await call(ctx.app, ctx.org.admin.key, 'GET', `/phone_number/${phone.id}/`)).json().user_id).toBeNull()
  })
})

describe('DELETE /phone_number/{id}/', () => {
  it('answers 200 {} and the number is gone', async () => {
    const phone = await addNumber(ctx.org, { number: '(415) 555-0180' })
    const res = await call(ctx.app, ctx.org.admin.key, 'DELETE', `/phone_number/${phone.id}/`)
    expect(res.statusCode).toBe(200)
    expect(res.json()).toEqual({})
    expect((await call(ctx.app, ctx.org.admin.key, 'GET', `/phone_number/${phone.id}/`)).statusCode).toBe(404)
    expect(await listNumbers(ctx.org, '?number=4155550180')).toEqual([])
  })
})

describe('phone number events', () => {
  it('records created, updated and deleted, organization-wide, so that other admins’ screens refresh', async () => {
    const org = await ctx.createOrg('Phone events')
    const created = await call(ctx.app, org.admin.key, 'POST', '/phone_number/', {
      body: { number: '+14155550188', label: 'Front desk' },
    })
    expect(created.statusCode, created.body).toBe(200)
    const phone = created.json<PhoneNumberBody>()
    const [born] = await requestEvents(ctx.app, org.admin.key, created)
    expect(born).toMatchObject({ object_type: 'phone_number', object_id: phone.id, action: 'created', lead_id: null })
    expect(born?.data).toEqual(phone)

    ctx.clock.advance(60_000)
    const changed = await call(ctx.app, org.admin.key, 'PUT', `/phone_number/${phone.id}/`, {
      body: { label: 'Sales line', type: 'virtual' },
    })
    expect(changed.statusCode, changed.body).toBe(200)
    const [updated] = await requestEvents(ctx.app, org.admin.key, changed)
    expect(updated).toMatchObject({ object_type: 'phone_number', action: 'updated' })
    expect(updated?.changed_fields).toEqual(['date_updated', 'label', 'sms_enabled', 'type'])
    expect(updated?.previous_data).toMatchObject({ label: 'Front desk', type: 'internal' })

    const deleted = await call(ctx.app, org.admin.key, 'DELETE', `/phone_number/${phone.id}/`)
    expect(deleted.statusCode).toBe(200)
    const [gone] = await requestEvents(ctx.app, org.admin.key, deleted)
    expect(gone).toMatchObject({ object_type: 'phone_number', object_id: phone.id, action: 'deleted' })
    expect(gone?.data).toBeNull()
    expect(gone?.previous_data).toEqual(changed.json())

    // A refused add records nothing.
    const again = await call(ctx.app, org.admin.key, 'POST', '/phone_number/', { body: { number: 'nope' } })
    expect(again.statusCode).toBe(400)
    expect(await requestEvents(ctx.app, org.admin.key, again)).toEqual([])
  })
})

describe('who may change phone numbers', () => {
  it.each([
    ['POST', false, { number: '(415) 555-0181' }, '(415) 555-0184'],
    ['PUT', true, { label: 'By a rep' }, '(415) 555-0185'],
    ['DELETE', true, undefined, '(415) 555-0186'],
  ] as const)('refuses %s to a non-admin with 403 and changes nothing', async (method, withId, body, number) => {
    const target = await addNumber(ctx.org, { number, label: 'Admin’s' })
    const before = await listNumbers(ctx.org)
    const path = withId ? `/phone_number/${target.id}/` : '/phone_number/'
    const res = await call(ctx.app, ctx.org.member.key, method, path, { body })
    expect(res.statusCode).toBe(403)
    expect(res.json()).toEqual({ error: expect.any(String) })
    expect(await listNumbers(ctx.org)).toEqual(before)
  })

  it.each([
    ['GET', '(415) 555-0193'],
    ['PUT', '(415) 555-0194'],
    ['DELETE', '(415) 555-0195'],
  ] as const)('answers %s of another organization’s number with 404', async (method, number) => {
    const theirs = await addNumber(ctx.other, { number })
    const body = method === 'PUT' ? { label: 'Hijacked' } : undefined
    for (const key of [ctx.org.admin.key, ctx.org.member.key]) {
      const res = await call(ctx.app, key, method, `/phone_number/${theirs.id}/`, { body })
      expect(res.statusCode).toBe(404)
      expect(res.json()).toEqual({ error: expect.any(String) })
    }
    expect((await call(ctx.app, ctx.other.admin.key, 'GET', `/phone_number/${theirs.id}/`)).json()).toEqual(theirs)
  })
})

describe('findInternalPhoneNumber', () => {
  it('finds only the organization’s internal numbers', async () => {
    const org = await ctx.createOrg('SMS senders')
    const internal = await addNumber(org, { number: '(415) 555-0200' })
    await addNumber(org, { number: '(415) 555-0201', type: 'external' })
    await addNumber(ctx.other, { number: '(415) 555-0202' })
    const db = ctx.database.db
    expect((await findInternalPhoneNumber(db, org.id, '+14155550200'))?.id).toBe(internal.id)
    expect(await findInternalPhoneNumber(db, org.id, '+14155550201')).toBeUndefined()
    expect(await findInternalPhoneNumber(db, org.id, '+14155550202')).toBeUndefined()
  })
})
