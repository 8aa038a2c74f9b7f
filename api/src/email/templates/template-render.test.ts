import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { answeredWhileOthersWait } from '../../tooling/test-support/responsive.js'
import { call, createTestContext, type TestContext, type TestOrg } from '../../tooling/test-support/test-app.js'
import { DEMO_EMAIL_TEMPLATES } from '../../tooling/demo/demo-email-templates.js'
import { TEMPLATE_BODY_MAX } from './email-template-routes.js'
import { NESTING_MAX, TAG_CHARS_MAX, TAGS_MAX } from './template-engine.js'
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

  it('stops a template that makes too much, with a 400 naming the field', async () => {
    const doubling = '{% assign s = s | append: s %}'.repeat(24)
    const template = await createTemplate({ body: `{% assign s = "xxxxxxxxxx" %}${doubling}{{ s.size }}` })
    const res = await render(template.id, { lead_id: lead.id, contact_id: lead.contacts[0]?.id ?? '' })
    expect(res.statusCode).toBe(400)
    expect(res.json()).toEqual({
      errors: [],
      'field-errors': {
        body: expect.stringMatching(/^The template could not be rendered: memory alloc limit exceeded/),
      },
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

describe('templates too large or too complex', () => {
  const member = () => ctx.org.member.key
  const contactId = () => lead.contacts[0]?.id ?? ''
  // Each of these took liquidjs (its parser, and our static analysis through it) seconds to minutes, holding every
  // other request meanwhile.
  const hostile: [string, string][] = [
    ['increment × 20,000', '{% increment x %}'.repeat(20_000)],
    ['an output × 10,000', '{{ contact.first_name }}'.repeat(10_000)],
    ['assign × 20,000', '{% assign a = 1 %}'.repeat(20_000)],
    ['capture × 20,000', '{% capture a %}x{% endcapture %}'.repeat(10_000)],
    ['outputs on lines × 10,000', '{{ a }}\n'.repeat(10_000)],
    ['a body over the limit', 'x'.repeat(TEMPLATE_BODY_MAX + 1)],
    ['a liquid tag of 20,000 lines', `{% liquid\n${'assign a = 1\n'.repeat(20_000)}%}`],
    ['one long output', `{{ a${' | append: "x"'.repeat(TAG_CHARS_MAX / 10)} }}`],
    ['deep blocks', '{% if a %}'.repeat(NESTING_MAX + 1) + '{% endif %}'.repeat(NESTING_MAX + 1)],
  ]

  it.each(hostile)(
    'refuses %s at once, with a 400 naming the body, while other requests are answered',
    async (_name, body) => {
      const { response, ms, longestMeMs } = await answeredWhileOthersWait(ctx.app, member(), () =>
        call(ctx.app, member(), 'POST', '/email_template/', { body: { name: 'Hostile', body } }),
      )
      expect(response.statusCode, response.body.slice(0, 300)).toBe(400)
      // Over the body's length, the schema refuses it before the engine sees it.
      expect(response.json()).toEqual({
        errors: [],
        'field-errors': {
          body: expect.stringMatching(
            /^(Too large or too complex a template: |Ensure this field has no more than 100000 )/,
          ),
        },
      })
      expect(ms).toBeLessThan(5_000)
      expect(longestMeMs).toBeLessThan(1_000)
    },
  )

  it('saves, renders and makes an email of the largest template it takes, while other requests are answered', async () => {
    const unit = '<p>{{ contact.first_name | default: "there" }} {% increment n %}</p>\n'
    const tags = '{% if lead.name %}' + unit.repeat(TAGS_MAX / 2 - 1) + '{% endif %}'
    const body = tags + 'x'.repeat(TEMPLATE_BODY_MAX - tags.length)
    const saved = await answeredWhileOthersWait(ctx.app, member(), () =>
      call(ctx.app, member(), 'POST', '/email_template/', { body: { name: 'Largest', body } }),
    )
    expect(saved.response.statusCode, saved.response.body.slice(0, 300)).toBe(200)
    expect(saved.longestMeMs).toBeLessThan(1_000)
    const id = saved.response.json<{ id: string }>().id
    const shown = await answeredWhileOthersWait(ctx.app, member(), () =>
      render(id, { lead_id: lead.id, contact_id: contactId() }),
    )
    expect(shown.response.statusCode, shown.response.body.slice(0, 300)).toBe(200)
    expect(shown.response.json<Rendered>().body_html).toContain(`<p>Bruce ${String(TAGS_MAX / 2 - 2)}</p>`)
    expect(shown.longestMeMs).toBeLessThan(1_000)
    const email = await answeredWhileOthersWait(ctx.app, member(), () =>
      call(ctx.app, member(), 'POST', '/activity/email/', {
        body: { lead_id: lead.id, contact_id: contactId(), status: 'draft', template_id: id },
      }),
    )
    expect(email.response.statusCode, email.response.body.slice(0, 300)).toBe(200)
    expect(email.longestMeMs).toBeLessThan(1_000)
  })

  it('refuses to render, or make an email of, a template stored before these limits', async () => {
    const template = await createTemplate({ body: 'Hi' })
    await ctx.database.db
      .updateTable('email_template')
      .set({ body: '{% increment x %}'.repeat(TAGS_MAX + 1), date_updated: '2030-01-01T00:00:00.000000' })
      .where('id', '=', template.id)
      .execute()
    const shown = await render(template.id, { lead_id: lead.id, contact_id: contactId() })
    expect(shown.statusCode).toBe(400)
    expect(shown.json()).toEqual({
      errors: [],
      'field-errors': {
        body: expect.stringMatching(/^Too large or too complex a template: it has more than 300 tags/),
      },
    })
    const email = await call(ctx.app, member(), 'POST', '/activity/email/', {
      body: { lead_id: lead.id, status: 'draft', template_id: template.id },
    })
    expect(email.statusCode).toBe(400)
    expect(email.json()).toMatchObject({
      'field-errors': { body_html: expect.stringMatching(/^Too large or too complex/) },
    })
  })
})

describe('the date filter', () => {
  const at = '{{ "2024-01-15T23:30:00Z" | date: "%Y-%m-%d %H:%M" }}'

  it("shows dates in the caller's X-TZ-Offset, unless the template names a zone", async () => {
    const template = await createTemplate({
      subject: at,
      body: `<p>${at}</p><p>{{ "2024-01-15T23:30:00Z" | date: "%H:%M", "America/New_York" }}</p>`,
    })
    const shown = async (offset?: string) => {
      const res = await call(ctx.app, ctx.org.member.key, 'GET', `/email_template/${template.id}/render/`, {
        query: { lead_id: lead.id, contact_id: lead.contacts[0]?.id ?? '' },
        ...(offset === undefined ? {} : { headers: { 'x-tz-offset': offset } }),
      })
      expect(res.statusCode, res.body).toBe(200)
      const out = res.json<Rendered>()
      return [out.subject, out.body_text]
    }
    expect(await shown()).toEqual(['2024-01-15 23:30', '2024-01-15 23:30\n\n18:30'])
    expect(await shown('5.5')).toEqual(['2024-01-16 05:00', '2024-01-16 05:00\n\n18:30'])
    expect(await shown('-4')).toEqual(['2024-01-15 19:30', '2024-01-15 19:30\n\n18:30'])
  })

  it("fills an email made from a template in the caller's zone", async () => {
    const template = await createTemplate({ subject: at, body: `<p>${at}</p>` })
    const res = await call(ctx.app, ctx.org.member.key, 'POST', '/activity/email/', {
      body: { lead_id: lead.id, status: 'draft', template_id: template.id },
      headers: { 'x-tz-offset': '-8' },
    })
    expect(res.statusCode, res.body).toBe(200)
    expect(res.json()).toMatchObject({ subject: '2024-01-15 15:30', body_html: '<p>2024-01-15 15:30</p>' })
  })
})
