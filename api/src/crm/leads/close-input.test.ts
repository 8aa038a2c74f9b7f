import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { call, createTestContext, type TestContext } from '../../tooling/test-support/test-app.js'

// Input that Close accepts and scripts written against it send, on the database LEADLINE_TEST_DB names: taken, not
// refused; and what Close refuses is still refused.

let ctx: TestContext
beforeAll(async () => {
  ctx = await createTestContext()
})
afterAll(async () => {
  await ctx.close()
})

const rep = () => ctx.org.member.key

async function newLead(body: Record<string, unknown>) {
  return call(ctx.app, rep(), 'POST', '/lead/', { body })
}

describe('a contact’s blank email or phone entry', () => {
  it('is dropped, and the rest of the lead is made', async () => {
    const res = await newLead({
      name: 'Blank entries',
      contacts: [
        {
          name: 'Tess',
          emails: [{ email: '' }, { email: 'tess@client.example', type: 'office' }, { email: '   ' }],
          phones: [{ phone: '' }, { phone: '+14155550123', type: 'mobile' }],
        },
      ],
    })
    expect(res.statusCode).toBe(200)
    const [contact] = res.json().contacts
    expect(contact.emails.map((e: { email: string; type: string }) => [e.email, e.type])).toEqual([
      ['tess@client.example', 'office'],
    ])
    expect(contact.phones.map((p: { phone: string }) => p.phone)).toEqual(['+14155550123'])
  })

  it('is dropped on a contact of its own too, and its errors still name the entry sent', async () => {
    const lead = (await newLead({ name: 'Contact entries' })).json()
    const ok = await call(ctx.app, rep(), 'POST', '/contact/', {
      body: { lead_id: lead.id, name: 'Only blanks', emails: [{ email: '' }], phones: [{ phone: '' }] },
    })
    expect(ok.statusCode).toBe(200)
    expect(ok.json()).toMatchObject({ emails: [], phones: [] })
    const bad = await call(ctx.app, rep(), 'POST', '/contact/', {
      body: { lead_id: lead.id, emails: [{ email: '' }, { email: 'not an address' }] },
    })
    expect(bad.statusCode).toBe(400)
    expect(bad.json()['field-errors']).toEqual({ 'emails.1.email': 'Enter a valid email address.' })
  })
})

describe('an opportunity’s confidence and date_won as Close scripts send them', () => {
  it('takes confidence null as not given', async () => {
    const lead = (await newLead({ name: 'Confidence' })).json()
    const made = await call(ctx.app, rep(), 'POST', '/opportunity/', {
      body: { lead_id: lead.id, confidence: null, value: 500 },
    })
    expect(made.statusCode).toBe(200)
    expect(made.json().confidence).toBe(0)
    const set = await call(ctx.app, rep(), 'PUT', `/opportunity/${String(made.json().id)}/`, {
      body: { confidence: 40 },
    })
    expect(set.json().confidence).toBe(40)
    const unchanged = await call(ctx.app, rep(), 'PUT', `/opportunity/${String(made.json().id)}/`, {
      body: { confidence: null, note: 'kept' },
    })
    expect(unchanged.statusCode).toBe(200)
    expect(unchanged.json()).toMatchObject({ confidence: 40, note: 'kept' })
  })

  it.each(['2025-01-15 00:00:00', '2025-01-15T00:00:00', '2025-01-15T00:00:00.000Z', '2025-01-15 00:00:00+00:00'])(
    'takes date_won %j as the date 2025-01-15',
    async (sent) => {
      const lead = (await newLead({ name: `Won ${sent}` })).json()
      const made = await call(ctx.app, rep(), 'POST', '/opportunity/', { body: { lead_id: lead.id, date_won: sent } })
      expect(made.statusCode).toBe(200)
      expect(made.json().date_won).toBe('2025-01-15')
    },
  )

  it.each(['2025-01-15 13:30:00', '2025-02-30 00:00:00', '15/01/2025', '2025-01-15 00:00:00 extra'])(
    'still refuses date_won %j with a field error, and makes nothing',
    async (sent) => {
      const lead = (await newLead({ name: `Refused ${sent}` })).json()
      const res = await call(ctx.app, rep(), 'POST', '/opportunity/', { body: { lead_id: lead.id, date_won: sent } })
      expect(res.statusCode).toBe(400)
      expect(res.json()['field-errors']).toEqual({ date_won: 'Enter a date as YYYY-MM-DD.' })
      const listed = await call(ctx.app, rep(), 'GET', `/opportunity/?lead_id=${String(lead.id)}`)
      expect(listed.json().data).toEqual([])
    },
  )

  it('still refuses a confidence out of 0–100', async () => {
    const lead = (await newLead({ name: 'Too sure' })).json()
    const res = await call(ctx.app, rep(), 'POST', '/opportunity/', { body: { lead_id: lead.id, confidence: 101 } })
    expect(res.statusCode).toBe(400)
  })
})

describe('the contacts of a lead', () => {
  it('are listed oldest first, and those made together in the order they were sent', async () => {
    const names = ['Ada', 'Bea', 'Cy', 'Dee', 'Eve', 'Flo', 'Gus', 'Hal']
    const made = (await newLead({ name: 'Ordered', contacts: names.map((name) => ({ name })) })).json()
    expect(made.contacts.map((c: { name: string }) => c.name)).toEqual(names)
    const later = await call(ctx.app, rep(), 'POST', '/contact/', { body: { lead_id: made.id, name: 'Ivy' } })
    expect(later.statusCode).toBe(200)
    const read = (await call(ctx.app, rep(), 'GET', `/lead/${String(made.id)}/`)).json()
    expect(read.contacts.map((c: { name: string }) => c.name)).toEqual([...names, 'Ivy'])
  })
})
