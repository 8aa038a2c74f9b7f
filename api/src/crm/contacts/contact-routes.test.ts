import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { call, createTestContext, type TestContext } from '../../tooling/test-support/test-app.js'

let ctx: TestContext
let leadId = ''
beforeAll(async () => {
  ctx = await createTestContext()
  leadId = (await call(ctx.app, ctx.org.member.key, 'POST', '/lead/', { body: { name: 'Contact Host Co' } })).json().id
})
afterAll(async () => {
  await ctx.close()
})

const rep = () => ctx.org.member.key

async function contactCount() {
  return (await call(ctx.app, rep(), 'GET', `/contact/?lead_id=${leadId}`)).json().data.length
}

describe('POST /contact/', () => {
  it('adds a contact to a lead, normalizing phones and lower-casing emails', async () => {
    const res = await call(ctx.app, rep(), 'POST', '/contact/', {
      body: {
        lead_id: leadId,
        name: '  Ada Lovelace ',
        title: 'Analyst',
        emails: [
          { type: 'office', email: 'Ada@Example.com' },
          { email: 'ada.home@example.com', type: 'home' },
        ],
        phones: [{ phone: '415-555-0123' }, { type: 'mobile', phone: '+44 20 7946 0958' }],
        urls: [{ url: 'ada.example.com' }],
      },
    })
    expect(res.statusCode, res.body).toBe(200)
    const contact = res.json()
    expect(contact.id).toMatch(/^cont_[0-9A-Za-z]{43}$/)
    expect(contact).toMatchObject({
      lead_id: leadId,
      name: 'Ada Lovelace',
      display_name: 'Ada Lovelace',
      title: 'Analyst',
      organization_id: ctx.org.id,
    })
    expect(contact.emails).toEqual([
      { type: 'office', email: 'Ada@Example.com', email_lower: 'ada@example.com' },
      { type: 'home', email: 'ada.home@example.com', email_lower: 'ada.home@example.com' },
    ])
    expect(contact.phones).toEqual([
      { type: 'office', phone: '+14155550123', phone_formatted: '+1 415 555 0123', country: 'US' },
      { type: 'mobile', phone: '+442079460958', phone_formatted: '+44 20 7946 0958', country: 'GB' },
    ])
    expect(contact.urls).toEqual([{ type: 'url', url: 'ada.example.com' }])
    const lead = (await call(ctx.app, rep(), 'GET', `/lead/${leadId}/`)).json()
    expect(lead.contacts.map((c: { id: string }) => c.id)).toContain(contact.id)
  })

  it.each([
    [{ lead_id: undefined, name: 'No Lead' }, 'lead_id'],
    [{ lead_id: 'lead_nope', name: 'Ghost' }, 'lead_id'],
    [{ lead_id: '', name: 'Blank lead' }, 'lead_id'],
    [{ name: 'Bad Email', emails: [{ email: 'not-an-email' }] }, 'emails.0.email'],
    [{ name: 'Email after a blank', emails: [{ email: '' }, { email: 'at@' }] }, 'emails.1.email'],
    [{ name: 'Bad Phone', phones: [{ phone: 'call me' }] }, 'phones.0.phone'],
    [{ name: 'Phone after a blank', phones: [{ phone: ' ' }, { phone: 'call me' }] }, 'phones.1.phone'],
    [{ name: 'Bad Type', phones: [{ phone: '4155550100', type: 'satellite' }] }, 'phones.0.type'],
    [{ name: 'Bad Url', urls: [{ url: 'ftp://files.example.com' }] }, 'urls.0.url'],
  ])('refuses %j with a field error on %s and stores nothing', async (body, field) => {
    const before = await contactCount()
    const payload = 'lead_id' in body ? body : { lead_id: leadId, ...body }
    const res = await call(ctx.app, rep(), 'POST', '/contact/', { body: payload })
    expect(res.statusCode).toBe(400)
    expect(Object.keys(res.json()['field-errors'])).toContain(field)
    expect(await contactCount()).toBe(before)
  })

  it('refuses a lead of another organization as if it did not exist', async () => {
    const theirs = (await call(ctx.app, ctx.other.member.key, 'POST', '/lead/', { body: { name: 'Theirs' } })).json()
    const res = await call(ctx.app, rep(), 'POST', '/contact/', { body: { lead_id: theirs.id, name: 'Intruder' } })
    expect(res.statusCode).toBe(400)
    expect(res.json()['field-errors']).toEqual({ lead_id: 'Object does not exist.' })
  })
})

describe('PUT /contact/{id}/', () => {
  it('patches fields and replaces only the lists that are sent', async () => {
    const created = (
      await call(ctx.app, rep(), 'POST', '/contact/', {
        body: {
          lead_id: leadId,
          name: 'Grace',
          emails: [{ email: 'grace@example.com' }],
          phones: [{ phone: '4155550111' }],
        },
      })
    ).json()
    const res = await call(ctx.app, rep(), 'PUT', `/contact/${created.id}/`, {
      body: { title: 'Admiral', phones: [{ phone: '4155550111' }, { phone: '4155550112', type: 'mobile' }] },
    })
    expect(res.statusCode).toBe(200)
    const contact = res.json()
    expect(contact).toMatchObject({ name: 'Grace', title: 'Admiral' })
    expect(contact.emails.map((e: { email: string }) => e.email)).toEqual(['grace@example.com'])
    expect(contact.phones.map((p: { phone: string }) => p.phone)).toEqual(['+14155550111', '+14155550112'])
    const cleared = await call(ctx.app, rep(), 'PUT', `/contact/${created.id}/`, { body: { emails: [] } })
    expect(cleared.json().emails).toEqual([])
  })

  it('keeps the contact unchanged when the update is invalid', async () => {
    const created = (
      await call(ctx.app, rep(), 'POST', '/contact/', {
        body: { lead_id: leadId, name: 'Stable', emails: [{ email: 'stable@example.com' }] },
      })
    ).json()
    const res = await call(ctx.app, rep(), 'PUT', `/contact/${created.id}/`, {
      body: { name: 'Changed', emails: [{ email: 'broken' }] },
    })
    expect(res.statusCode).toBe(400)
    const after = (await call(ctx.app, rep(), 'GET', `/contact/${created.id}/`)).json()
    expect(after.name).toBe('Stable')
    expect(after.emails.map((e: { email: string }) => e.email)).toEqual(['stable@example.com'])
  })

  it('makes the lead findable by the new email', async () => {
    const created = (
      await call(ctx.app, rep(), 'POST', '/contact/', { body: { lead_id: leadId, name: 'Searchable' } })
    ).json()
    await call(ctx.app, rep(), 'PUT', `/contact/${created.id}/`, {
      body: { emails: [{ email: 'unique-zebra@example.com' }] },
    })
    const found = (await call(ctx.app, rep(), 'GET', '/lead/', { query: { query: 'unique-zebra' } })).json()
    expect(found.data.map((l: { id: string }) => l.id)).toEqual([leadId])
  })
})

describe('GET and DELETE /contact/{id}/', () => {
  it('lists with _limit and _fields, and deletes', async () => {
    const list = await call(ctx.app, rep(), 'GET', `/contact/?lead_id=${leadId}&_limit=1&_fields=id,name`)
    expect(list.json().has_more).toBe(true)
    expect(Object.keys(list.json().data[0]).sort()).toEqual(['id', 'name'])
    const id = list.json().data[0].id
    const del = await call(ctx.app, rep(), 'DELETE', `/contact/${id}/`)
    expect(del.statusCode).toBe(200)
    expect(del.json()).toEqual({})
    expect((await call(ctx.app, rep(), 'GET', `/contact/${id}/`)).statusCode).toBe(404)
  })

  it('answers 404 for another organization’s contact', async () => {
    const theirLead = (
      await call(ctx.app, ctx.other.member.key, 'POST', '/lead/', {
        body: { name: 'Other', contacts: [{ name: 'Hidden' }] },
      })
    ).json()
    const contactId = theirLead.contacts[0].id
    for (const method of ['GET', 'PUT', 'DELETE'] as const) {
      const res = await call(
        ctx.app,
        rep(),
        method,
        `/contact/${contactId}/`,
        method === 'PUT' ? { body: { name: 'x' } } : {},
      )
      expect(res.statusCode, method).toBe(404)
    }
    expect((await call(ctx.app, rep(), 'GET', `/contact/?lead_id=${theirLead.id}`)).json().data).toEqual([])
  })

  it('refuses _limit above 200', async () => {
    expect((await call(ctx.app, rep(), 'GET', '/contact/?_limit=201')).statusCode).toBe(400)
  })
})

describe('phones Close keeps although they are not valid numbers', () => {
  // A GB organization posts "1234" (create_contact.json); Close answers 200 with it under the GB calling code.
  it('replays create_contact.json in a GB organization', async () => {
    const gb = await ctx.createOrg('Sesame Ltd')
    const country = await call(ctx.app, gb.admin.key, 'PUT', `/organization/${gb.id}/`, { body: { country: 'GB' } })
    expect(country.statusCode, country.body).toBe(200)
    const lead = (await call(ctx.app, gb.member.key, 'POST', '/lead/', { body: { name: 'Sesame Street' } })).json()
    const res = await call(ctx.app, gb.member.key, 'POST', '/contact/', {
      body: {
        emails: [{ email: 'bigbird@example.com', type: 'office' }],
        lead_id: lead.id,
        name: 'Big Bird',
        phones: [{ phone: '1234', type: 'office' }],
      },
    })
    expect(res.statusCode, res.body).toBe(200)
    expect(res.json()).toMatchObject({
      display_name: 'Big Bird',
      name: 'Big Bird',
      title: '',
      phones: [{ phone: '+441234', phone_formatted: '+44 1234', type: 'office', country: null }],
      emails: [{ type: 'office', email: 'bigbird@example.com' }],
      urls: [],
      integration_links: [],
      lead_id: lead.id,
      organization_id: gb.id,
    })
    const fetched = (await call(ctx.app, gb.member.key, 'GET', `/contact/${res.json().id}/`)).json()
    expect(fetched).toMatchObject({ title: '', integration_links: [], phones: res.json().phones })
    // A valid number is still read as dialled in the organization's country.
    const valid = await call(ctx.app, gb.member.key, 'PUT', `/contact/${res.json().id}/`, {
      body: { phones: [{ phone: '020 7946 0958' }] },
    })
    expect(valid.json().phones).toEqual([
      { type: 'office', phone: '+442079460958', phone_formatted: '+44 20 7946 0958', country: 'GB' },
    ])
  })

  it.each([
    ['12', '+112', '+1 12'],
    ['+44 1234', '+441234', '+44 1234'],
    ['(0)55-5', '+10555', '+1 0555'],
  ])('keeps %j as %j', async (phone, e164, formatted) => {
    const res = await call(ctx.app, rep(), 'POST', '/contact/', {
      body: { lead_id: leadId, name: 'Odd Number', phones: [{ phone }] },
    })
    expect(res.statusCode, res.body).toBe(200)
    expect(res.json().phones).toEqual([{ type: 'office', phone: e164, phone_formatted: formatted, country: null }])
  })
})

describe('contact and user custom fields', () => {
  it('refuse contacts and users outside the organization, and store nothing', async () => {
    const referee = (
      await call(ctx.app, ctx.org.admin.key, 'POST', '/custom_field/contact/', {
        body: { name: 'Referee', type: 'contact' },
      })
    ).json()
    const owner = (
      await call(ctx.app, ctx.org.admin.key, 'POST', '/custom_field/contact/', {
        body: { name: 'Owner', type: 'user' },
      })
    ).json()
    const theirs = (
      await call(ctx.app, ctx.other.member.key, 'POST', '/lead/', {
        body: { name: 'Elsewhere', contacts: [{ name: 'Theirs' }] },
      })
    ).json()
    const mine = (await call(ctx.app, rep(), 'POST', '/contact/', { body: { lead_id: leadId, name: 'Mine' } })).json()
    const before = await contactCount()
    for (const [key, value] of [
      [`custom.${referee.id}`, theirs.contacts[0].id],
      [`custom.${referee.id}`, 'cont_madeUp0000000000000000000000000000000000000'],
      [`custom.${owner.id}`, ctx.other.member.id],
    ]) {
      const res = await call(ctx.app, rep(), 'POST', '/contact/', {
        body: { lead_id: leadId, name: 'Leaky', [key]: value },
      })
      expect(res.statusCode, `${key}=${value}`).toBe(400)
      expect(Object.keys(res.json()['field-errors'])).toEqual([key])
      const update = await call(ctx.app, rep(), 'PUT', `/contact/${mine.id}/`, { body: { [key]: value } })
      expect(update.statusCode, `${key}=${value}`).toBe(400)
    }
    expect(await contactCount()).toBe(before)
    expect((await call(ctx.app, rep(), 'GET', `/contact/${mine.id}/`)).json().custom).toEqual({})
    const ok = await call(ctx.app, rep(), 'PUT', `/contact/${mine.id}/`, {
      body: { [`custom.${referee.id}`]: mine.id, [`custom.${owner.id}`]: ctx.org.admin.id },
    })
    expect(ok.statusCode, ok.body).toBe(200)
    expect(ok.json().custom).toEqual({ Referee: mine.id, Owner: ctx.org.admin.id })
  })
})

describe('the OpenAPI document', () => {
  it('describes a contact as the API sends it', async () => {
    const doc = (await ctx.app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).json()
    const schema = doc.paths['/api/v1/contact/{id}/'].get.responses['200'].content['application/json'].schema
    expect(Object.keys(schema.properties)).toEqual(expect.arrayContaining(['title', 'integration_links', 'phones']))
  })
})
