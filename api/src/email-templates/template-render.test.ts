import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { call, createTestContext, type TestContext, type TestOrg } from '../test-support/test-app.js'
import { DEMO_EMAIL_TEMPLATES } from '../demo/demo-email-templates.js'
import { parsedTemplate, renderEmailTemplate } from './template-render.js'

let ctx: TestContext
let lead: { id: string; status_label: string; contacts: { id: string }[] }
let emptyLead: { id: string; contacts: { id: string }[] }

interface Rendered {
  subject: string
  body: string
  body_html: string
  body_text: string
  warnings: string[]
}

async function createLead(org: TestOrg, body: Record<string, unknown>) {
  const res = await call(ctx.app, org.member.key, 'POST', '/lead/', { body })
  expect(res.statusCode, res.body).toBe(200)
  return res.json<{ id: string; status_label: string; contacts: { id: string }[] }>()
}

async function createTemplate(body: Record<string, unknown>, key = ctx.org.member.key): Promise<{ id: string }> {
  const res = await call(ctx.app, key, 'POST', '/email_template/', { body: { name: 'T', ...body } })
  expect(res.statusCode, res.body).toBe(200)
  return res.json()
}

function render(id: string, query: Record<string, string>, key = ctx.org.member.key) {
  return call(ctx.app, key, 'GET', `/email_template/${id}/render/`, { query })
}

async function rendered(body: Record<string, unknown>, contact = 0): Promise<Rendered> {
  const template = await createTemplate(body)
  const res = await render(template.id, { lead_id: lead.id, contact_id: lead.contacts[contact]?.id ?? '' })
  expect(res.statusCode, res.body).toBe(200)
  return res.json()
}

beforeAll(async () => {
  ctx = await createTestContext()
  const field = await call(ctx.app, ctx.org.admin.key, 'POST', '/custom_field/lead/', {
    body: { name: 'Plan', type: 'text' },
  })
  expect(field.statusCode, field.body).toBe(200)
  await call(ctx.app, ctx.org.admin.key, 'POST', '/custom_field/lead/', { body: { name: 'Seats', type: 'number' } })
  lead = await createLead(ctx.org, {
    name: 'Wayne Enterprises',
    url: 'https://wayne.example',
    description: 'Gotham’s biggest',
    custom: { Plan: 'Pro' },
    contacts: [
      {
        name: 'Bruce Thomas Wayne',
        title: 'CEO',
        emails: [
          { type: 'office', email: 'bruce@wayne.example' },
          { type: 'home', email: 'b@home.example' },
        ],
        phones: [{ type: 'mobile', phone: '+14155550100' }],
      },
    ],
  })
  // Added one by one, so the lead's contacts are in this order.
  for (const contact of [
    { name: '<b>Tom & "Jerry"</b>' },
    { emails: [{ type: 'office', email: 'nameless@wayne.example' }] },
  ]) {
    const res = await call(ctx.app, ctx.org.member.key, 'POST', '/contact/', { body: { lead_id: lead.id, ...contact } })
    expect(res.statusCode, res.body).toBe(200)
    lead.contacts.push(res.json<{ id: string }>())
  }
  emptyLead = await createLead(ctx.org, { name: 'Quiet Co' })
})
afterAll(async () => {
  await ctx.close()
})

describe('GET /email_template/{id}/render/', () => {
  it('fills placeholders from the contact, the lead, the caller and the organization', async () => {
    const out = await rendered({
      subject: '{{ lead.display_name }} × {{ organization.name }}',
      body:
        '<p>Hi {{ contact.first_name }} {{ contact.last_name }} ({{ contact.name }}, {{ contact.title }}),</p>' +
        '<p>{{ contact.email }} / {{ contact.phone }}</p>' +
        '<p>{{ lead.name }}: {{ lead.description }}, {{ lead.url }}, {{ lead.status_label }}, plan {{ lead.custom.Plan }}, seats {{ lead.custom["Seats"] | default: "?" }}</p>' +
        '<p>{{ user.first_name }} {{ user.last_name }} = {{ user.full_name }} &lt;{{ user.email }}&gt;</p>',
    })
    expect(out.subject).toBe('Wayne Enterprises × Acme Inc')
    const html =
      '<p>Hi Bruce Thomas Wayne (Bruce Thomas Wayne, CEO),</p>' +
      '<p>bruce@wayne.example / +14155550100</p>' +
      `<p>Wayne Enterprises: Gotham’s biggest, https://wayne.example, ${lead.status_label}, plan Pro, seats ?</p>` +
      `<p>Rey Rep = Rey Rep &lt;rep-`
    expect(out.body_html.startsWith(html)).toBe(true)
    expect(out.body).toBe(out.body_html)
    expect(out.body_text).toMatch(
      new RegExp(
        '^Hi Bruce Thomas Wayne \\(Bruce Thomas Wayne, CEO\\),\\n\\nbruce@wayne\\.example / \\+14155550100\\n\\n' +
          `Wayne Enterprises: Gotham’s biggest, https://wayne\\.example, ${lead.status_label}, plan Pro, seats \\?\\n\\n` +
          'Rey Rep = Rey Rep <rep-[a-z0-9]+@example\\.com>$',
      ),
    )
    expect(out.warnings).toEqual([])
  })

  it('escapes every value in the HTML body, and only there', async () => {
    const out = await rendered(
      { subject: 'For {{ contact.name }}', body: '<p>Dear {{ contact.first_name }} {{ contact.name }}</p>' },
      1,
    )
    expect(out.subject).toBe('For <b>Tom & "Jerry"</b>')
    expect(out.body_html).toBe('<p>Dear &lt;b&gt;Tom &lt;b&gt;Tom &amp; &#34;Jerry&#34;&lt;/b&gt;</p>')
    expect(out.body_text).toBe('Dear <b>Tom <b>Tom & "Jerry"</b>')
  })

  it('renders a placeholder that names nothing empty and warns of it, once', async () => {
    const out = await rendered({
      subject: 'Hi {{ contact.nickname }}',
      body: '<p>{{ contact.nickname }}{{ lead.custom.Budget }}{{ deal.value }}{{ contact.first_name.size }}{{ contact.constructor }}</p>',
    })
    expect(out.subject).toBe('Hi')
    expect(out.body_html).toBe('<p>5</p>')
    expect(out.warnings).toEqual([
      'Unknown placeholder {{ contact.nickname }}: rendered empty.',
      'Unknown placeholder {{ lead.custom.Budget }}: rendered empty.',
      'Unknown placeholder {{ deal.value }}: rendered empty.',
      'Unknown placeholder {{ contact.constructor }}: rendered empty.',
    ])
  })

  it('runs filters, and a known placeholder without a value is no warning', async () => {
    const out = await rendered(
      {
        subject: '{{ contact.first_name | default: "there" | upcase }}',
        body: '<p>Hi {{ contact.first_name | default: "there" }}, {{ contact.email | split: "@" | last }}</p>',
      },
      2,
    )
    expect(out.subject).toBe('THERE')
    expect(out.body_html).toBe('<p>Hi there, wayne.example</p>')
    expect(out.warnings).toEqual([])
  })

  it('renders the demo’s templates with every placeholder known', async () => {
    for (const demo of DEMO_EMAIL_TEMPLATES) {
      const out = await rendered({ name: demo.name, subject: demo.subject, body: demo.body })
      expect(out.warnings, demo.name).toEqual([])
      expect(out.body_text.startsWith('Hi Bruce,\n\n'), out.body_text).toBe(true)
      expect(out.body_text).toContain('Wayne Enterprises')
    }
  })

  it('stops a template that makes too much, with a 400', async () => {
    const doubling = '{% assign s = s | append: s %}'.repeat(24)
    const template = await createTemplate({ body: `{% assign s = "xxxxxxxxxx" %}${doubling}{{ s.size }}` })
    const res = await render(template.id, { lead_id: lead.id, contact_id: lead.contacts[0]?.id ?? '' })
    expect(res.statusCode).toBe(400)
    expect(res.json()).toEqual({
      errors: [expect.stringMatching(/^The body could not be rendered: memory alloc limit exceeded/)],
      'field-errors': {},
    })
  })

  it('needs a lead of the organization and one of its contacts', async () => {
    const template = await createTemplate({ body: 'Hi' })
    const otherLead = await createLead(ctx.other, { name: 'Elsewhere', contacts: [{ name: 'Eve' }] })
    const contact = lead.contacts[0]?.id ?? ''
    const cases: [Record<string, string>, Record<string, string>][] = [
      [{ contact_id: contact }, { lead_id: 'This field is required.' }],
      [{ lead_id: lead.id }, { contact_id: 'This field is required.' }],
      [
        { lead_id: otherLead.id, contact_id: contact },
        { lead_id: 'Object does not exist.', contact_id: 'Not a contact of this lead.' },
      ],
      [
        { lead_id: lead.id, contact_id: otherLead.contacts[0]?.id ?? '' },
        { contact_id: 'Not a contact of this lead.' },
      ],
      [{ lead_id: emptyLead.id, contact_id: contact }, { contact_id: 'Not a contact of this lead.' }],
    ]
    for (const [query, fieldErrors] of cases) {
      const res = await render(template.id, query)
      expect(res.statusCode, JSON.stringify(query)).toBe(400)
      expect(res.json()).toEqual({ errors: [], 'field-errors': fieldErrors })
    }
  })

  it('is a 404 for another organization’s template and for another user’s own one', async () => {
    const query = { lead_id: lead.id, contact_id: lead.contacts[0]?.id ?? '' }
    const theirs = await createTemplate({ body: 'x' }, ctx.org.admin.key)
    expect((await render(theirs.id, query)).statusCode).toBe(404)
    expect((await render(theirs.id, query, ctx.org.admin.key)).statusCode).toBe(200)
    const res = await call(ctx.app, ctx.other.admin.key, 'POST', '/email_template/', {
      body: { name: 'Other', body: 'x', is_shared: true },
    })
    const elsewhere = res.json<{ id: string }>()
    expect((await render(elsewhere.id, query, ctx.org.admin.key)).json()).toEqual({
      error: 'Email template not found.',
    })
  })
})

describe('renderEmailTemplate', () => {
  const scope = () => ({ organizationId: ctx.org.id, userId: ctx.org.member.id })

  it('renders for the lead’s first contact when given none, with the template’s name', async () => {
    const template = await createTemplate({
      name: 'Intro',
      subject: 'Hi {{ contact.first_name }}',
      body: '<p>Hello</p>',
    })
    const out = await renderEmailTemplate(ctx.database.db, {
      ...scope(),
      templateId: template.id,
      leadId: lead.id,
      contactId: null,
    })
    expect(out).toEqual({
      templateName: 'Intro',
      subject: 'Hi Bruce',
      bodyText: 'Hello',
      bodyHtml: '<p>Hello</p>',
      warnings: [],
      attachments: [],
    })
  })

  it('renders inside the caller’s transaction, as an email being created does', async () => {
    const template = await createTemplate({
      subject: 'For {{ lead.display_name }}',
      body: '<p>{{ contact.email }}</p>',
    })
    const out = await ctx.database.db.transaction().execute((tx) =>
      renderEmailTemplate(tx, {
        ...scope(),
        templateId: template.id,
        leadId: lead.id,
        contactId: lead.contacts[0]?.id ?? null,
      }),
    )
    expect(out).toMatchObject({ subject: 'For Wayne Enterprises', bodyText: 'bruce@wayne.example' })
  })

  it('renders a lead without contacts with empty contact fields', async () => {
    const template = await createTemplate({
      subject: 'Hi {{ contact.first_name | default: "there" }}',
      body: '{{ lead.display_name }}',
    })
    const out = await renderEmailTemplate(ctx.database.db, {
      ...scope(),
      templateId: template.id,
      leadId: emptyLead.id,
      contactId: null,
    })
    expect(out).toMatchObject({ subject: 'Hi there', bodyHtml: 'Quiet Co', warnings: [] })
  })

  it('is undefined for a template the user may not use, and throws a ValidationError for a bad lead', async () => {
    const theirs = await createTemplate({ body: 'x' }, ctx.org.admin.key)
    const input = { ...scope(), templateId: theirs.id, leadId: lead.id, contactId: null }
    expect(await renderEmailTemplate(ctx.database.db, input)).toBeUndefined()
    expect(await renderEmailTemplate(ctx.database.db, { ...input, templateId: 'tmpl_missing' })).toBeUndefined()
    const mine = await createTemplate({ body: 'x' })
    await expect(
      renderEmailTemplate(ctx.database.db, { ...input, templateId: mine.id, leadId: 'lead_missing' }),
    ).rejects.toMatchObject({ name: 'ValidationError', fieldErrors: { lead_id: 'Object does not exist.' } })
  })

  it('parses a template once per version', async () => {
    const template = await createTemplate({ subject: 'One', body: 'One' })
    const row = await ctx.database.db
      .selectFrom('email_template')
      .selectAll()
      .where('id', '=', template.id)
      .executeTakeFirstOrThrow()
    const first = parsedTemplate(row)
    expect(parsedTemplate({ ...row })).toBe(first)
    const res = await call(ctx.app, ctx.org.member.key, 'PUT', `/email_template/${template.id}/`, {
      body: { body: 'Two' },
    })
    const changed = await renderEmailTemplate(ctx.database.db, {
      ...scope(),
      templateId: template.id,
      leadId: lead.id,
      contactId: null,
    })
    expect(res.statusCode).toBe(200)
    expect(changed?.bodyHtml).toBe('Two')
    expect(parsedTemplate(row)).not.toBe(first)
  })
})
