import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { call, createTestContext, type TestContext } from '../../tooling/test-support/test-app.js'

let ctx: TestContext
beforeAll(async () => {
  ctx = await createTestContext()
})
afterAll(async () => {
  await ctx.close()
})

const admin = () => ctx.org.admin.key
const rep = () => ctx.org.member.key

async function createLead(body: Record<string, unknown>, key = rep()) {
  const res = await call(ctx.app, key, 'POST', '/lead/', { body })
  expect(res.statusCode, res.body).toBe(200)
  return res.json()
}

async function leadCount(key = rep()) {
  return (await call(ctx.app, key, 'GET', '/lead/?_limit=0')).json().total_results
}

describe('POST /lead/', () => {
  it('creates a lead with contacts and addresses, and answers the whole lead', async () => {
    const lead = await createLead({
      name: 'Wayne Enterprises',
      url: 'https://wayne.example.com',
      description: 'Defense contractor',
      status: 'qualified',
      contacts: [
        {
          name: 'Bruce Wayne',
          title: 'CEO',
          emails: [{ type: 'office', email: 'Bruce@WayneEnterprises.com' }],
          phones: [{ type: 'mobile', phone: '(415) 555-0100' }],
          urls: [{ url: 'https://bruce.example.com' }],
        },
      ],
      addresses: [
        {
          label: 'business',
          address_1: '1007 Mountain Drive',
          city: 'Gotham',
          state: 'NJ',
          zipcode: '07001',
          country: 'us',
        },
      ],
    })
    expect(lead.id).toMatch(/^lead_[0-9A-Za-z]{43}$/)
    expect(lead).toMatchObject({
      name: 'Wayne Enterprises',
      display_name: 'Wayne Enterprises',
      status_label: 'Qualified',
      organization_id: ctx.org.id,
      html_url: `${ctx.config.appUrl}/leads/${lead.id}`,
      opportunities: [],
      tasks: [],
      created_by: ctx.org.member.id,
      created_by_name: 'Rey Rep',
      custom: {},
    })
    expect(lead.addresses).toEqual([
      {
        label: 'business',
        address_1: '1007 Mountain Drive',
        address_2: null,
        city: 'Gotham',
        state: 'NJ',
        zipcode: '07001',
        country: 'US',
      },
    ])
    expect(lead.contacts).toHaveLength(1)
    expect(lead.contacts[0]).toMatchObject({
      lead_id: lead.id,
      name: 'Bruce Wayne',
      title: 'CEO',
      emails: [{ type: 'office', email: 'Bruce@WayneEnterprises.com', email_lower: 'bruce@wayneenterprises.com' }],
      phones: [{ type: 'mobile', phone: '+14155550100', phone_formatted: '+1 415 555 0100', country: 'US' }],
      urls: [{ type: 'url', url: 'https://bruce.example.com' }],
    })
    expect(lead).not.toHaveProperty('activities')
  })

  it('gives a lead without a status the first lead status, and records a Created activity', async () => {
    const lead = await createLead({ name: 'Plain Co' })
    expect(lead.status_label).toBe('Potential')
    const activities = (await call(ctx.app, rep(), 'GET', `/activity/?lead_id=${lead.id}`)).json().data
    expect(activities).toEqual([
      expect.objectContaining({ _type: 'Created', lead_id: lead.id, source: 'api', import_id: null }),
    ])
  })

  it('takes the source of a Created activity from the caller', async () => {
    const lead = await createLead({ name: 'Imported Co' }, rep())
    const viaImport = await call(ctx.app, rep(), 'POST', '/lead/?source=import', { body: { name: 'Imported Too' } })
    const created = (await call(ctx.app, rep(), 'GET', `/activity/created/?lead_id=${viaImport.json().id}`)).json().data
    expect(created[0].source).toBe('import')
    expect(lead.id).not.toBe(viaImport.json().id)
  })

  it.each([
    [{ name: 'X', status_id: 'stat_nope' }, 'status'],
    [{ name: 'X', status: 'Nonexistent' }, 'status'],
    [{ name: 'X', status: 'Potential', status_id: 'stat_x' }, 'status'],
    [{ name: 'X', url: 'not a url' }, 'url'],
    [{ name: 'X', contacts: [{ name: 'A', emails: [{ email: '' }, { email: '@x' }] }] }, 'contacts.0.emails.1.email'],
    [{ name: 'X', contacts: [{ name: 'A' }, { name: 'B', emails: [{ email: 'nope' }] }] }, 'contacts.1.emails.0.email'],
    [{ name: 'X', contacts: [{ name: 'A', phones: [{ phone: 'no digits' }] }] }, 'contacts.0.phones.0.phone'],
    [
      { name: 'X', contacts: [{ name: 'A', emails: [{ type: 'pager', email: 'a@b.co' }] }] },
      'contacts.0.emails.0.type',
    ],
    [{ name: 'X', addresses: [{ label: 'home' }] }, 'addresses.0.label'],
    [{ name: 42 }, 'name'],
  ])('refuses %j with a field error on %s and stores nothing', async (body, field) => {
    const before = await leadCount()
    const res = await call(ctx.app, rep(), 'POST', '/lead/', { body })
    expect(res.statusCode).toBe(400)
    expect(Object.keys(res.json()['field-errors'])).toContain(field)
    expect(await leadCount()).toBe(before)
  })

  it('ignores read-only and nested fields it does not create', async () => {
    const lead = await createLead({
      name: 'Ignored Fields Co',
      id: 'lead_forged',
      organization_id: ctx.other.id,
      date_created: '2001-01-01T00:00:00.000000+00:00',
      opportunities: [{ value: 100 }],
      tasks: [{ text: 'x' }],
    })
    expect(lead.id).not.toBe('lead_forged')
    expect(lead.organization_id).toBe(ctx.org.id)
    expect(lead.opportunities).toEqual([])
  })
})

describe('GET /lead/{id}/', () => {
  it('answers 404 for an unknown id and for another organization’s lead', async () => {
    const theirs = (
      await call(ctx.app, ctx.other.member.key, 'POST', '/lead/', { body: { name: 'Globex Secret' } })
    ).json()
    expect((await call(ctx.app, rep(), 'GET', `/lead/${theirs.id}/`)).statusCode).toBe(404)
    expect((await call(ctx.app, rep(), 'PUT', `/lead/${theirs.id}/`, { body: { name: 'Mine' } })).statusCode).toBe(404)
    expect((await call(ctx.app, rep(), 'DELETE', `/lead/${theirs.id}/`)).statusCode).toBe(404)
    expect((await call(ctx.app, rep(), 'GET', '/lead/wibble/')).statusCode).toBe(404)
    expect((await call(ctx.app, ctx.other.member.key, 'GET', `/lead/${theirs.id}/`)).json().name).toBe('Globex Secret')
  })

  it('keeps only _fields', async () => {
    const lead = await createLead({ name: 'Fields Co' })
    const res = await call(ctx.app, rep(), 'GET', `/lead/${lead.id}/?_fields=id,display_name`)
    expect(res.json()).toEqual({ id: lead.id, display_name: 'Fields Co' })
  })
})

describe('PUT /lead/{id}/', () => {
  it('patches only the fields sent', async () => {
    const lead = await createLead({ name: 'Patch Co', description: 'Keep me', url: 'patch.example.com' })
    ctx.clock.advance(1000)
    const res = await call(ctx.app, admin(), 'PUT', `/lead/${lead.id}/`, { body: { name: 'Patched Co' } })
    expect(res.statusCode).toBe(200)
    expect(res.json()).toMatchObject({
      name: 'Patched Co',
      description: 'Keep me',
      url: 'patch.example.com',
      updated_by: ctx.org.admin.id,
    })
    expect(res.json().date_updated > lead.date_updated).toBe(true)
  })

  it('records a LeadStatusChange activity when the status changes, and none when it does not', async () => {
    const lead = await createLead({ name: 'Status Co' })
    await call(ctx.app, rep(), 'PUT', `/lead/${lead.id}/`, { body: { status: 'Customer' } })
    await call(ctx.app, rep(), 'PUT', `/lead/${lead.id}/`, { body: { status: 'Customer' } })
    const changes = (await call(ctx.app, rep(), 'GET', `/activity/status_change/lead/?lead_id=${lead.id}`)).json().data
    expect(changes).toEqual([
      expect.objectContaining({
        _type: 'LeadStatusChange',
        old_status_label: 'Potential',
        new_status_label: 'Customer',
        user_id: ctx.org.member.id,
        user_name: 'Rey Rep',
      }),
    ])
    const one = await call(ctx.app, rep(), 'GET', `/activity/status_change/lead/${changes[0].id}/`)
    expect(one.json().id).toBe(changes[0].id)
  })

  it('refuses an invalid change and keeps the lead as it was', async () => {
    const lead = await createLead({ name: 'Valid Co' })
    const res = await call(ctx.app, rep(), 'PUT', `/lead/${lead.id}/`, { body: { name: 'Changed', status: 'Nope' } })
    expect(res.statusCode).toBe(400)
    expect((await call(ctx.app, rep(), 'GET', `/lead/${lead.id}/`)).json().name).toBe('Valid Co')
  })

  it('accepts the lead it answered, sent back whole', async () => {
    const lead = await createLead({ name: 'Round Trip Co', contacts: [{ name: 'Ann' }] })
    const res = await call(ctx.app, rep(), 'PUT', `/lead/${lead.id}/`, { body: { ...lead, description: 'Edited' } })
    expect(res.statusCode).toBe(200)
    expect(res.json().description).toBe('Edited')
    expect(res.json().contacts).toHaveLength(1)
  })
})

describe('DELETE /lead/{id}/', () => {
  it('deletes the lead with its contacts and activities', async () => {
    const lead = await createLead({ name: 'Doomed Co', contacts: [{ name: 'Gone Soon' }] })
    const contactId = lead.contacts[0].id
    const res = await call(ctx.app, rep(), 'DELETE', `/lead/${lead.id}/`)
    expect(res.statusCode).toBe(200)
    expect(res.json()).toEqual({})
    expect((await call(ctx.app, rep(), 'GET', `/lead/${lead.id}/`)).statusCode).toBe(404)
    expect((await call(ctx.app, rep(), 'GET', `/contact/${contactId}/`)).statusCode).toBe(404)
    expect((await call(ctx.app, rep(), 'GET', `/activity/?lead_id=${lead.id}`)).json().data).toEqual([])
  })
})

describe('POST /lead/merge/', () => {
  it('moves contacts and activities, fills empty fields, and deletes the source', async () => {
    const source = await createLead({
      name: 'Source Co',
      url: 'source.example.com',
      description: 'From source',
      contacts: [{ name: 'Sam Source' }],
    })
    const destination = await createLead({ name: 'Destination Co', contacts: [{ name: 'Dana Dest' }] })
    await call(ctx.app, rep(), 'POST', '/activity/note/', { body: { lead_id: source.id, note: 'Met at the fair' } })
    const res = await call(ctx.app, rep(), 'POST', '/lead/merge/', {
      body: { source: source.id, destination: destination.id },
    })
    expect(res.statusCode).toBe(200)
    expect(res.json()).toEqual({})
    expect((await call(ctx.app, rep(), 'GET', `/lead/${source.id}/`)).statusCode).toBe(404)
    const merged = (await call(ctx.app, rep(), 'GET', `/lead/${destination.id}/`)).json()
    expect(merged).toMatchObject({ name: 'Destination Co', url: 'source.example.com', description: 'From source' })
    expect(merged.contacts.map((c: { name: string }) => c.name).sort()).toEqual(['Dana Dest', 'Sam Source'])
    const notes = (await call(ctx.app, rep(), 'GET', `/activity/note/?lead_id=${destination.id}`)).json().data
    expect(notes.map((n: { note: string }) => n.note)).toEqual(['Met at the fair'])
  })

  it('moves emails with their threads, calls and texts with their sends, so threads answer and replies join', async () => {
    const phone = await call(ctx.app, admin(), 'POST', '/phone_number/', {
      body: { number: '+14155550100', type: 'internal' },
    })
    expect(phone.statusCode, phone.body).toBe(200)
    const source = await createLead({ name: 'Threaded Source', contacts: [{ name: 'Tess Thread' }] })
    const destination = await createLead({ name: 'Threaded Destination' })
    const post = async (path: string, body: Record<string, unknown>) => {
      const res = await call(ctx.app, rep(), 'POST', path, { body: { lead_id: source.id, ...body } })
      expect(res.statusCode, res.body).toBe(200)
      return res.json<{ id: string; thread_id?: string }>()
    }
    const asked = await post('/activity/email/', {
      status: 'inbox',
      subject: 'Pricing',
      body_text: 'How much?',
      sender: 'tess@client.example',
      to: ['rep@acme.example'],
    })
    const answered = await post('/activity/email/', {
      status: 'sent',
      subject: 'Re: Pricing',
      body_text: 'Not much.',
      to: ['tess@client.example'],
      in_reply_to_id: asked.id,
    })
    expect(answered.thread_id).toBe(asked.thread_id)
    const threadId = asked.thread_id ?? ''
    const called = await post('/activity/call/', { direction: 'outbound', duration: 60, phone: '+14155550123' })
    const texted = await post('/activity/sms/', {
      status: 'inbox',
      text: 'Hi',
      remote_phone: '+14155550123',
      local_phone: '+14155550100',
    })
    const dateScheduled = new Date(ctx.clock.now().getTime() + 86_400_000).toISOString()
    const scheduled = await post('/activity/sms/', {
      status: 'scheduled',
      text: 'Tomorrow',
      remote_phone: '+14155550123',
      local_phone: '+14155550100',
      date_scheduled: dateScheduled,
    })

    const res = await call(ctx.app, rep(), 'POST', '/lead/merge/', {
      body: { source: source.id, destination: destination.id },
    })
    expect(res.statusCode, res.body).toBe(200)

    for (const [path, id] of [
      ['email', asked.id],
      ['email', answered.id],
      ['call', called.id],
      ['sms', texted.id],
      ['sms', scheduled.id],
      ['emailthread', threadId],
    ] as const) {
      const read = await call(ctx.app, rep(), 'GET', `/activity/${path}/${id}/`)
      expect(read.statusCode, `${path} ${read.body}`).toBe(200)
      expect(read.json().lead_id, path).toBe(destination.id)
    }
    const thread = (await call(ctx.app, rep(), 'GET', `/activity/emailthread/${threadId}/`)).json()
    expect(thread.n_emails).toBe(2)
    const threads = await call(ctx.app, rep(), 'GET', '/activity/emailthread/', { query: { lead_id: destination.id } })
    expect(threads.json().data.map((t: { id: string }) => t.id)).toEqual([threadId])
    const texts = await call(ctx.app, rep(), 'GET', '/activity/sms/', { query: { lead_id: destination.id } })
    expect(
      texts
        .json()
        .data.map((t: { id: string }) => t.id)
        .sort(),
    ).toEqual([texted.id, scheduled.id].sort())
    expect((await call(ctx.app, rep(), 'GET', `/activity/sms/${scheduled.id}/`)).json().status).toBe('scheduled')
    const sends = await ctx.database.db
      .selectFrom('outbox')
      .select('status')
      .where('ordering_key', '=', `sms:${scheduled.id}`)
      .execute()
    expect(sends).toEqual([{ status: 'pending' }])

    const reply = await call(ctx.app, rep(), 'POST', '/activity/email/', {
      body: {
        lead_id: destination.id,
        status: 'inbox',
        subject: 'Re: Pricing',
        body_text: 'Deal.',
        sender: 'tess@client.example',
        to: ['rep@acme.example'],
        in_reply_to_id: answered.id,
      },
    })
    expect(reply.statusCode, reply.body).toBe(200)
    expect(reply.json().thread_id).toBe(threadId)
    expect((await call(ctx.app, rep(), 'GET', `/activity/emailthread/${threadId}/`)).json().n_emails).toBe(3)
  })

  it('answers clear errors for unknown, foreign and identical ids', async () => {
    const lead = await createLead({ name: 'Lonely Co' })
    const theirs = (await call(ctx.app, ctx.other.member.key, 'POST', '/lead/', { body: { name: 'Theirs' } })).json()
    const unknown = await call(ctx.app, rep(), 'POST', '/lead/merge/', {
      body: { source: 'lead_nope', destination: lead.id },
    })
    expect(unknown.statusCode).toBe(404)
    expect(unknown.json().error).toMatch(/source/i)
    const foreign = await call(ctx.app, rep(), 'POST', '/lead/merge/', {
      body: { source: lead.id, destination: theirs.id },
    })
    expect(foreign.statusCode).toBe(404)
    expect(foreign.json().error).toMatch(/destination/i)
    const same = await call(ctx.app, rep(), 'POST', '/lead/merge/', { body: { source: lead.id, destination: lead.id } })
    expect(same.statusCode).toBe(400)
    expect((await call(ctx.app, rep(), 'GET', `/lead/${lead.id}/`)).statusCode).toBe(200)
  })
})

describe('lead statuses in use', () => {
  it('cannot be deleted while a lead has them', async () => {
    const status = (await call(ctx.app, admin(), 'POST', '/status/lead/', { body: { label: 'In Use' } })).json()
    const lead = await createLead({ name: 'User Of Status', status_id: status.id })
    expect((await call(ctx.app, admin(), 'DELETE', `/status/lead/${status.id}/`)).statusCode).toBe(400)
    await call(ctx.app, rep(), 'DELETE', `/lead/${lead.id}/`)
    expect((await call(ctx.app, admin(), 'DELETE', `/status/lead/${status.id}/`)).statusCode).toBe(200)
  })
})

describe('custom fields on leads', () => {
  it('stores, shows in both forms, selects with _fields=custom, unsets with null, and validates', async () => {
    const industry = (
      await call(ctx.app, admin(), 'POST', '/custom_field/lead/', {
        body: { name: 'Industry', type: 'choices', choices: ['Retail', 'Software'] },
      })
    ).json()
    const seats = (
      await call(ctx.app, admin(), 'POST', '/custom_field/lead/', { body: { name: 'Seats', type: 'number' } })
    ).json()
    const lead = await createLead({ name: 'Custom Co', [`custom.${industry.id}`]: 'software', 'custom.Seats': '12' })
    expect(lead[`custom.${industry.id}`]).toBe('Software')
    expect(lead[`custom.${seats.id}`]).toBe(12)
    expect(lead.custom).toEqual({ Industry: 'Software', Seats: 12 })

    const selected = (await call(ctx.app, rep(), 'GET', `/lead/${lead.id}/?_fields=custom`)).json()
    expect(selected).toEqual({
      [`custom.${industry.id}`]: 'Software',
      [`custom.${seats.id}`]: 12,
      custom: { Industry: 'Software', Seats: 12 },
    })

    const unset = await call(ctx.app, rep(), 'PUT', `/lead/${lead.id}/`, { body: { [`custom.${seats.id}`]: null } })
    expect(unset.statusCode).toBe(200)
    expect(unset.json()).not.toHaveProperty(`custom.${seats.id}`)
    expect(unset.json().custom).toEqual({ Industry: 'Software' })

    const before = await leadCount()
    const bad = await call(ctx.app, rep(), 'POST', '/lead/', {
      body: { name: 'Bad Custom', 'custom.Seats': 'abc', [`custom.${industry.id}`]: 'Mining' },
    })
    expect(bad.statusCode).toBe(400)
    expect(Object.keys(bad.json()['field-errors']).sort()).toEqual([`custom.${industry.id}`, 'custom.Seats'].sort())
    expect(await leadCount()).toBe(before)

    const badUpdate = await call(ctx.app, rep(), 'PUT', `/lead/${lead.id}/`, {
      body: { name: 'Renamed', 'custom.Seats': 'many' },
    })
    expect(badUpdate.statusCode).toBe(400)
    const after = (await call(ctx.app, rep(), 'GET', `/lead/${lead.id}/`)).json()
    expect(after.name).toBe('Custom Co')
  })

  it('keeps contact custom fields on nested contacts', async () => {
    const birthday = (
      await call(ctx.app, admin(), 'POST', '/custom_field/contact/', { body: { name: 'Birthday', type: 'date' } })
    ).json()
    const lead = await createLead({
      name: 'Birthday Co',
      contacts: [{ name: 'Bea', [`custom.${birthday.id}`]: '1990-02-28' }],
    })
    expect(lead.contacts[0][`custom.${birthday.id}`]).toBe('1990-02-28')
    const bad = await call(ctx.app, rep(), 'POST', '/lead/', {
      body: { name: 'Bad Birthday', contacts: [{ name: 'Bo', [`custom.${birthday.id}`]: '1990-02-30' }] },
    })
    expect(bad.statusCode).toBe(400)
    expect(Object.keys(bad.json()['field-errors'])).toEqual([`contacts.0.custom.${birthday.id}`])
  })
})

describe('what Close answers', () => {
  it('refuses an unknown status_id under `status`, naming it (create_lead_error.json)', async () => {
    const before = await leadCount()
    const res = await call(ctx.app, rep(), 'POST', '/lead/', { body: { status_id: 'foo' } })
    expect(res.statusCode).toBe(400)
    expect(res.json()).toEqual({
      errors: [],
      'field-errors': { status: expect.stringMatching(/^Not a valid choice\..*"foo"/) },
    })
    expect(await leadCount()).toBe(before)
  })

  it('refuses another organization’s status_id the same way, on create and update', async () => {
    const theirs = (await call(ctx.app, ctx.other.admin.key, 'GET', '/status/lead/')).json().data[0].id
    const created = await call(ctx.app, rep(), 'POST', '/lead/', { body: { name: 'Borrowed', status_id: theirs } })
    expect(created.statusCode).toBe(400)
    expect(created.json()['field-errors']).toEqual({ status: expect.stringContaining(`"${theirs}"`) })
    const lead = await createLead({ name: 'Own Status Co' })
    const updated = await call(ctx.app, rep(), 'PUT', `/lead/${lead.id}/`, { body: { status_id: theirs } })
    expect(updated.statusCode).toBe(400)
    expect(Object.keys(updated.json()['field-errors'])).toEqual(['status'])
    expect((await call(ctx.app, rep(), 'GET', `/lead/${lead.id}/`)).json().status_id).toBe(lead.status_id)
  })

  it('keeps a phone with digits that is not a valid number, as Close does', async () => {
    const lead = await createLead({ name: 'Short Number Co', contacts: [{ name: 'A', phones: [{ phone: '12' }] }] })
    expect(lead.contacts[0].phones).toEqual([
      { type: 'office', phone: '+112', phone_formatted: '+1 12', country: null },
    ])
  })

  it('sends every field of get_lead.json, and on contacts those of get_contact.json', async () => {
    const lead = await createLead({ name: 'Wire Co', contacts: [{ name: 'No Title' }] })
    const leadKeys = [
      'addresses',
      'contacts',
      'created_by',
      'created_by_name',
      'custom',
      'date_created',
      'date_updated',
      'description',
      'display_name',
      'html_url',
      'id',
      'integration_links',
      'name',
      'opportunities',
      'organization_id',
      'status_id',
      'status_label',
      'tasks',
      'updated_by',
      'updated_by_name',
      'url',
    ]
    expect(Object.keys(lead)).toEqual(expect.arrayContaining(leadKeys))
    const contactKeys = [
      'created_by',
      'date_created',
      'date_updated',
      'display_name',
      'emails',
      'id',
      'integration_links',
      'lead_id',
      'name',
      'organization_id',
      'phones',
      'title',
      'updated_by',
      'urls',
    ]
    expect(Object.keys(lead.contacts[0])).toEqual(expect.arrayContaining(contactKeys))
    expect(lead.contacts[0]).toMatchObject({ title: '', integration_links: [] })
  })
})

describe('the source of a Created activity', () => {
  it('is ui for the web app, which says so in X-Leadline-Client', async () => {
    const res = await call(ctx.app, rep(), 'POST', '/lead/', {
      body: { name: 'Typed In Co' },
      headers: { 'x-leadline-client': 'web' },
    })
    const created = (await call(ctx.app, rep(), 'GET', `/activity/created/?lead_id=${res.json().id}`)).json().data
    expect(created.map((a: { source: string }) => a.source)).toEqual(['ui'])
  })
})

describe('concurrent status changes', () => {
  it('each record the status the one before set', async () => {
    const statuses = (await call(ctx.app, admin(), 'GET', '/status/lead/')).json().data as {
      id: string
      label: string
    }[]
    const lead = await createLead({ name: 'Contested Co', status_id: statuses[0]?.id })
    const wanted = [1, 2, 3, 1, 2, 3].map((i) => statuses[i % statuses.length]?.id)
    const answers = await Promise.all(
      wanted.map((id) => call(ctx.app, rep(), 'PUT', `/lead/${lead.id}/`, { body: { status_id: id } })),
    )
    expect(answers.map((a) => a.statusCode)).toEqual(wanted.map(() => 200))
    const changes = (await call(ctx.app, rep(), 'GET', `/activity/status_change/lead/?lead_id=${lead.id}`))
      .json()
      .data.reverse() as { old_status_id: string; new_status_id: string }[]
    expect(changes.length).toBeGreaterThan(1)
    expect(changes[0]?.old_status_id).toBe(statuses[0]?.id)
    for (let i = 1; i < changes.length; i++) {
      expect(changes[i]?.old_status_id, `change ${i}`).toBe(changes[i - 1]?.new_status_id)
    }
    const final = (await call(ctx.app, rep(), 'GET', `/lead/${lead.id}/`)).json()
    expect(final.status_id).toBe(changes.at(-1)?.new_status_id)
  })
})

describe('PUT /lead/{id}/ with addresses', () => {
  it('replaces the addresses; leaving them out keeps them', async () => {
    const lead = await createLead({
      name: 'Moving Co',
      addresses: [
        { label: 'business', city: 'Paris', country: 'FR' },
        { label: 'mailing', city: 'Lyon', country: 'FR' },
      ],
    })
    const moved = await call(ctx.app, rep(), 'PUT', `/lead/${lead.id}/`, {
      body: { addresses: [{ label: 'business', address_1: '1 Main St', city: 'Boston', state: 'MA', country: 'us' }] },
    })
    expect(moved.statusCode, moved.body).toBe(200)
    expect(moved.json().addresses).toEqual([
      {
        label: 'business',
        address_1: '1 Main St',
        address_2: null,
        city: 'Boston',
        state: 'MA',
        zipcode: null,
        country: 'US',
      },
    ])
    const renamed = await call(ctx.app, rep(), 'PUT', `/lead/${lead.id}/`, { body: { name: 'Moved Co' } })
    expect(renamed.json().addresses).toEqual(moved.json().addresses)
    const search = await call(ctx.app, rep(), 'GET', '/lead/', { query: { query: 'city:lyon' } })
    expect(search.json().data).toEqual([])
    const cleared = await call(ctx.app, rep(), 'PUT', `/lead/${lead.id}/`, { body: { addresses: [] } })
    expect(cleared.json().addresses).toEqual([])
  })
})

describe('merging custom values and addresses', () => {
  it('fills the destination’s empty custom values and appends the source’s addresses', async () => {
    const tier = (
      await call(ctx.app, admin(), 'POST', '/custom_field/lead/', { body: { name: 'Tier', type: 'text' } })
    ).json()
    const region = (
      await call(ctx.app, admin(), 'POST', '/custom_field/lead/', { body: { name: 'Region', type: 'text' } })
    ).json()
    const source = await createLead({
      name: 'Merge Source',
      [`custom.${tier.id}`]: 'Gold',
      [`custom.${region.id}`]: 'EMEA',
      addresses: [
        { label: 'business', city: 'Gotham' },
        { label: 'mailing', city: 'Metropolis' },
      ],
    })
    const destination = await createLead({
      name: 'Merge Destination',
      [`custom.${tier.id}`]: 'Silver',
      addresses: [{ label: 'business', city: 'Gotham' }],
    })
    const res = await call(ctx.app, rep(), 'POST', '/lead/merge/', {
      body: { source: source.id, destination: destination.id },
    })
    expect(res.statusCode, res.body).toBe(200)
    const merged = (await call(ctx.app, rep(), 'GET', `/lead/${destination.id}/`)).json()
    expect(merged[`custom.${tier.id}`]).toBe('Silver')
    expect(merged[`custom.${region.id}`]).toBe('EMEA')
    expect(merged.addresses.map((a: { city: string }) => a.city)).toEqual(['Gotham', 'Metropolis'])
    const found = await call(ctx.app, rep(), 'GET', '/lead/', { query: { query: 'city:metropolis' } })
    expect(found.json().data.map((l: { id: string }) => l.id)).toEqual([destination.id])
  })
})

describe('contact and user custom fields on leads', () => {
  it('refuse what is not in the organization, and store nothing', async () => {
    const champion = (
      await call(ctx.app, admin(), 'POST', '/custom_field/lead/', { body: { name: 'Champion', type: 'contact' } })
    ).json()
    const rep2 = (
      await call(ctx.app, admin(), 'POST', '/custom_field/lead/', { body: { name: 'Account rep', type: 'user' } })
    ).json()
    const buddy = (
      await call(ctx.app, admin(), 'POST', '/custom_field/contact/', { body: { name: 'Buddy', type: 'contact' } })
    ).json()
    const theirs = (
      await call(ctx.app, ctx.other.member.key, 'POST', '/lead/', {
        body: { name: 'Far Co', contacts: [{ name: 'Far' }] },
      })
    ).json()
    const theirContact = theirs.contacts[0].id
    const mine = await createLead({ name: 'Near Co', contacts: [{ name: 'Near' }] })
    const before = await leadCount()
    for (const [body, field] of [
      [{ [`custom.${champion.id}`]: theirContact }, `custom.${champion.id}`],
      [{ 'custom.Champion': 'cont_doesNotExist' }, 'custom.Champion'],
      [{ [`custom.${rep2.id}`]: ctx.other.admin.id }, `custom.${rep2.id}`],
      [{ contacts: [{ name: 'N', [`custom.${buddy.id}`]: theirContact }] }, `contacts.0.custom.${buddy.id}`],
    ] as const) {
      const res = await call(ctx.app, rep(), 'POST', '/lead/', { body: { name: 'Leak Co', ...body } })
      expect(res.statusCode, field).toBe(400)
      expect(Object.keys(res.json()['field-errors']), field).toEqual([field])
    }
    expect(await leadCount()).toBe(before)
    const update = await call(ctx.app, rep(), 'PUT', `/lead/${mine.id}/`, {
      body: { [`custom.${champion.id}`]: theirContact },
    })
    expect(update.statusCode).toBe(400)
    const ok = await call(ctx.app, rep(), 'PUT', `/lead/${mine.id}/`, {
      body: { [`custom.${champion.id}`]: mine.contacts[0].id, [`custom.${rep2.id}`]: ctx.org.member.id },
    })
    expect(ok.statusCode, ok.body).toBe(200)
    expect(ok.json()[`custom.${champion.id}`]).toBe(mine.contacts[0].id)
  })
})
