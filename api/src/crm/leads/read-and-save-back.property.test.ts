import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { withoutUpdate } from '../../tooling/test-support/sent-back.js'
import { call, createTestContext, type TestContext } from '../../tooling/test-support/test-app.js'

// Scripts written against Close read a lead or a contact, change a field and send the whole object back. Whatever a
// lead was made with, sending back what the API answered must change nothing but the update's date and author: every
// stored value has to read back in a form the writes take as the same value (a phone, a URL, a custom field's date).

let ctx: TestContext
const fields: Record<string, string> = {}

beforeAll(async () => {
  ctx = await createTestContext()
  const made = async (name: string, body: Record<string, unknown>) => {
    const res = await call(ctx.app, ctx.org.admin.key, 'POST', '/custom_field/lead/', { body: { name, ...body } })
    expect(res.statusCode).toBe(200)
    fields[name] = res.json<{ id: string }>().id
  }
  await made('Notes', { type: 'text' })
  await made('Seats', { type: 'number' })
  await made('Renewal', { type: 'date' })
  await made('Kickoff', { type: 'datetime' })
  await made('Tier', { type: 'choices', choices: ['Gold', 'Silver', 'Bronze'] })
  await made('Regions', { type: 'choices', choices: ['EMEA', 'APAC', 'AMER'], accepts_multiple_values: true })
  await made('Champion', { type: 'user' })
  const dealField = await call(ctx.app, ctx.org.admin.key, 'POST', '/custom_field/opportunity/', {
    body: { name: 'Deal size', type: 'number' },
  })
  expect(dealField.statusCode).toBe(200)
  fields['Deal size'] = dealField.json<{ id: string }>().id
})
afterAll(async () => {
  await ctx.close()
})

const rep = () => ctx.org.member.key

const text = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.constantFrom('  padded  ', 'Café Ünïcode', '名前', 'tab\there', 'line\nbreak', '😀 smile', ''),
)
const emails = fc.constantFrom('ann@example.com', ' Ann@Example.COM ', 'x+tag@sub.example.org', '')
// A calling code, then perhaps a national prefix (a zero or one that a parse may or may not drop), then digits.
const phones = fc.oneof(
  fc.constantFrom('+1 (415) 555-0100', '415.555.0100', '+44 20 7946 0958', '0044 20 7946 0958', '+61 0 2 8916 0083'),
  fc
    .tuple(
      fc.constantFrom('+', '+1', '+44', '+61', '+7', '', '0', '00'),
      fc.constantFrom('', '0', '00', '1', '11', ' 0'),
      fc.stringMatching(/^[0-9][0-9 -]{0,11}$/),
    )
    .map((parts) => parts.join('')),
)
const urls = fc.constantFrom(
  'acme.com',
  'http://acme.com/',
  'https://www.acme.com/path?q=1',
  'HTTP://Acme.COM',
  ' acme.com ',
)
const infoType = fc.constantFrom('office', 'mobile', 'home', 'direct', 'fax', 'url', 'other', undefined)
const contact = fc.record(
  {
    name: fc.option(text, { nil: null }),
    title: fc.option(text, { nil: null }),
    emails: fc.array(fc.record({ email: emails, type: infoType }, { requiredKeys: ['email'] }), { maxLength: 2 }),
    phones: fc.array(fc.record({ phone: phones, type: infoType }, { requiredKeys: ['phone'] }), { maxLength: 2 }),
    urls: fc.array(fc.record({ url: urls, type: infoType }, { requiredKeys: ['url'] }), { maxLength: 1 }),
  },
  { requiredKeys: [] },
)
const address = fc.record(
  {
    label: fc.constantFrom('business', 'mailing', 'other'),
    address_1: fc.option(text, { nil: null }),
    city: fc.option(text, { nil: null }),
    zipcode: fc.option(fc.constantFrom('94107', ' 10 001 ', 'SW1A 1AA'), { nil: null }),
    country: fc.option(fc.constantFrom('us', 'GB', 'De'), { nil: null }),
  },
  { requiredKeys: [] },
)
const custom = fc.record(
  {
    Notes: text,
    Seats: fc.oneof(fc.integer({ min: -1000, max: 100_000 }), fc.double({ min: -1e6, max: 1e6, noNaN: true })),
    Renewal: fc.constantFrom('2026-03-01', '2024-02-29', '1999-12-31'),
    Kickoff: fc.constantFrom('2026-03-01T10:00:00Z', '2026-03-01T10:00:00+02:00', '2026-03-01T10:00:00.123456Z'),
    Tier: fc.constantFrom('Gold', 'Silver', 'Bronze'),
    Regions: fc.subarray(['EMEA', 'APAC', 'AMER']),
    Champion: fc.constant('member'),
  },
  { requiredKeys: [] },
)
const lead = fc.record(
  {
    name: fc.option(text, { nil: null }),
    description: fc.option(text, { nil: null }),
    url: fc.option(urls, { nil: null }),
    contacts: fc.array(contact, { maxLength: 2 }),
    addresses: fc.array(address, { maxLength: 2 }),
    custom,
  },
  { requiredKeys: ['custom'] },
)

/** The generated lead as a body: its custom values under their fields' keys, a user field naming the rep. */
function leadBody(generated: { custom: Record<string, unknown> }) {
  const { custom: values, ...rest } = generated
  const body: Record<string, unknown> = { ...rest }
  for (const [name, value] of Object.entries(values)) {
    body[`custom.${fields[name] ?? name}`] = value === 'member' ? ctx.org.member.id : value
  }
  return body
}

async function readBack(path: string): Promise<Record<string, unknown>> {
  const res = await call(ctx.app, rep(), 'GET', path)
  expect(res.statusCode, res.body).toBe(200)
  return res.json<Record<string, unknown>>()
}

describe('a lead or contact read and sent back as it was read', () => {
  it('keeps every value as it was, whatever the lead was made with', async () => {
    await fc.assert(
      fc.asyncProperty(lead, async (generated) => {
        // The test clock stands still: a minute a lead keeps the rate limit's window from filling.
        ctx.clock.advance(60_000)
        const made = await call(ctx.app, rep(), 'POST', '/lead/', { body: leadBody(generated) })
        // A body the API refuses is another test's matter: nothing was stored to read back.
        if (made.statusCode === 400) return
        expect(made.statusCode).toBe(200)
        const id = made.json<{ id: string }>().id
        const read = await readBack(`/lead/${id}/`)
        const saved = await call(ctx.app, rep(), 'PUT', `/lead/${id}/`, { body: read })
        expect(saved.statusCode, saved.body).toBe(200)
        const again = await readBack(`/lead/${id}/`)
        expect(withoutUpdate(again)).toEqual(withoutUpdate(read))

        for (const { id: contactId } of read.contacts as { id: string }[]) {
          const before = await readBack(`/contact/${contactId}/`)
          const put = await call(ctx.app, rep(), 'PUT', `/contact/${contactId}/`, { body: before })
          expect(put.statusCode, put.body).toBe(200)
          const after = await readBack(`/contact/${contactId}/`)
          expect(withoutUpdate(after)).toEqual(withoutUpdate(before))
        }
      }),
      { numRuns: 60 },
    )
  })

  it('keeps an opportunity and a task as they were, whatever they were made with', async () => {
    const home = await call(ctx.app, rep(), 'POST', '/lead/', { body: { name: 'Deals', contacts: [{ name: 'Dee' }] } })
    const leadId = home.json<{ id: string }>().id
    const contactId = home.json<{ contacts: { id: string }[] }>().contacts[0]?.id
    const opportunity = fc.record(
      {
        value: fc.option(fc.integer({ min: 0, max: 10_000_000 }), { nil: null }),
        value_period: fc.constantFrom('one_time', 'monthly', 'annual'),
        confidence: fc.option(fc.integer({ min: 0, max: 100 }), { nil: null }),
        status: fc.constantFrom('Active', 'Won', 'Lost'),
        date_won: fc.option(fc.constantFrom('2026-02-28', '2026-02-28T00:00:00', '2024-02-29'), { nil: null }),
        note: fc.option(text, { nil: null }),
        contact_id: fc.constantFrom(contactId, null),
        deal: fc.oneof(fc.integer({ min: -50, max: 5000 }), fc.double({ min: 0, max: 1e4, noNaN: true })),
      },
      { requiredKeys: [] },
    )
    const task = fc.record(
      {
        text: text.filter((t) => t.trim() !== ''),
        date: fc.option(
          fc.constantFrom('2026-03-02', '2026-03-02T09:30:00Z', '2026-03-02T09:30:00-08:00', '2026-03-02T09:30:00.5Z'),
          { nil: null },
        ),
        is_complete: fc.boolean(),
        contact_id: fc.constantFrom(contactId, null),
      },
      { requiredKeys: ['text'] },
    )
    const sentBack = async (path: string, body: Record<string, unknown>) => {
      ctx.clock.advance(60_000)
      const made = await call(ctx.app, rep(), 'POST', path, { body })
      if (made.statusCode === 400) return
      expect(made.statusCode, made.body).toBe(200)
      const id = made.json<{ id: string }>().id
      const read = await readBack(`${path}${id}/`)
      const saved = await call(ctx.app, rep(), 'PUT', `${path}${id}/`, { body: read })
      expect(saved.statusCode, saved.body).toBe(200)
      expect(withoutUpdate(await readBack(`${path}${id}/`))).toEqual(withoutUpdate(read))
    }
    await fc.assert(
      fc.asyncProperty(opportunity, task, async ({ deal, ...rest }, todo) => {
        const dealKey = `custom.${fields['Deal size'] ?? ''}`
        await sentBack('/opportunity/', {
          lead_id: leadId,
          ...rest,
          ...(deal === undefined ? {} : { [dealKey]: deal }),
        })
        await sentBack('/task/', { lead_id: leadId, ...todo })
      }),
      { numRuns: 40 },
    )
  })
})
