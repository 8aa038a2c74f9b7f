import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { EmailTemplate } from '@leadline/shared/email-template-schema'
import { provisionMember } from '../../crm/organizations/provision.js'
import { call, createTestContext, type TestContext } from '../../tooling/test-support/test-app.js'

let ctx: TestContext
/** A second plain user of the organization. */
let other: { id: string; key: string }

beforeAll(async () => {
  ctx = await createTestContext()
  const member = await provisionMember(ctx.database.db, ctx.clock, {
    organizationId: ctx.org.id,
    email: 'second-rep@example.com',
    role: 'user',
    firstName: 'Sky',
    lastName: 'Second',
  })
  other = { id: member.user_id, key: member.api_key }
})
afterAll(async () => {
  await ctx.close()
})

const admin = () => ctx.org.admin.key
const rep = () => ctx.org.member.key

async function create(body: Record<string, unknown>, key = rep()): Promise<EmailTemplate> {
  const res = await call(ctx.app, key, 'POST', '/email_template/', { body })
  expect(res.statusCode, res.body).toBe(200)
  return res.json()
}

async function stored(): Promise<number> {
  const rows = await ctx.database.db.selectFrom('email_template').select('id').execute()
  return rows.length
}

describe('email templates', () => {
  it('a user creates one of their own (200), with defaults, ignoring read-only fields', async () => {
    const created = await create({
      name: '  Intro ',
      subject: 'Hi {{ contact.first_name }}',
      body: '<p>Hello {{ contact.first_name | default: "there" }}</p>',
      id: 'tmpl_mine',
      organization_id: ctx.other.id,
      created_by: ctx.org.admin.id,
    })
    expect(created).toEqual({
      id: expect.stringMatching(/^tmpl_[0-9A-Za-z]{43}$/),
      organization_id: ctx.org.id,
      name: 'Intro',
      subject: 'Hi {{ contact.first_name }}',
      body: '<p>Hello {{ contact.first_name | default: "there" }}</p>',
      is_shared: false,
      is_archived: false,
      attachments: [],
      created_by: ctx.org.member.id,
      updated_by: ctx.org.member.id,
      date_created: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}\+00:00$/),
      date_updated: created.date_created,
    })
    const read = await call(ctx.app, rep(), 'GET', `/email_template/${created.id}/`)
    expect(read.json()).toEqual(created)
    const bare = await create({ name: 'Bare' })
    expect([bare.subject, bare.body]).toEqual(['', ''])
  })

  it('shows each user the shared templates and their own, never another user’s', async () => {
    const context = await createTestContext()
    try {
      const post = async (key: string, body: Record<string, unknown>) => {
        const res = await call(context.app, key, 'POST', '/email_template/', { body })
        expect(res.statusCode, res.body).toBe(200)
        return res.json<EmailTemplate>()
      }
      const names = async (key: string) => {
        const res = await call(context.app, key, 'GET', '/email_template/')
        return res.json<{ data: EmailTemplate[] }>().data.map((t) => t.name)
      }
      const shared = await post(context.org.admin.key, { name: 'b shared', is_shared: true })
      const adminOwn = await post(context.org.admin.key, { name: 'c admin own' })
      const repOwn = await post(context.org.member.key, { name: 'a rep own' })
      expect(await names(context.org.member.key)).toEqual(['a rep own', 'b shared'])
      expect(await names(context.org.admin.key)).toEqual(['b shared', 'c admin own'])
      expect(await names(context.other.admin.key)).toEqual([])
      const get = (key: string, id: string) => call(context.app, key, 'GET', `/email_template/${id}/`)
      expect((await get(context.org.member.key, shared.id)).statusCode).toBe(200)
      for (const [key, id] of [
        [context.org.member.key, adminOwn.id],
        [context.org.admin.key, repOwn.id],
        [context.other.admin.key, shared.id],
        [context.other.admin.key, repOwn.id],
      ] as const) {
        const res = await get(key, id)
        expect(res.statusCode).toBe(404)
        expect(res.json()).toEqual({ error: 'Email template not found.' })
      }
    } finally {
      await context.close()
    }
  })

  it('lets a user change and delete their own unshared template; to another user it does not exist', async () => {
    const mine = await create({ name: 'Mine', subject: 'One', body: 'One' })
    ctx.clock.advance(1000)
    const changed = await call(ctx.app, rep(), 'PUT', `/email_template/${mine.id}/`, {
      body: { name: ' Mine, better ', body: '<p>Two</p>', is_archived: true },
    })
    expect(changed.statusCode, changed.body).toBe(200)
    expect(changed.json()).toEqual({
      ...mine,
      name: 'Mine, better',
      body: '<p>Two</p>',
      is_archived: true,
      date_updated: expect.not.stringMatching(mine.date_updated),
    })
    for (const key of [other.key, admin()]) {
      for (const method of ['GET', 'PUT', 'DELETE'] as const) {
        const res = await call(ctx.app, key, method, `/email_template/${mine.id}/`, {
          ...(method === 'PUT' ? { body: { name: 'Taken' } } : {}),
        })
        expect(res.statusCode, `${method} ${res.body}`).toBe(404)
      }
    }
    const deleted = await call(ctx.app, rep(), 'DELETE', `/email_template/${mine.id}/`)
    expect(deleted.statusCode).toBe(200)
    expect(deleted.json()).toEqual({})
    expect((await call(ctx.app, rep(), 'GET', `/email_template/${mine.id}/`)).statusCode).toBe(404)
  })

  it('keeps shared templates an admin’s to create, change and delete (403 for anyone else)', async () => {
    const before = await stored()
    const refused = await call(ctx.app, rep(), 'POST', '/email_template/', { body: { name: 'Team', is_shared: true } })
    expect(refused.statusCode).toBe(403)
    expect(refused.json()).toEqual({
      error: 'Only an admin of the organization can create, change or delete a shared template.',
    })
    expect(await stored()).toBe(before)

    const shared = await create({ name: 'Team', subject: 'Hi', is_shared: true }, admin())
    const put = (key: string, body: Record<string, unknown>) =>
      call(ctx.app, key, 'PUT', `/email_template/${shared.id}/`, { body })
    expect((await put(rep(), { name: 'Mine now' })).statusCode).toBe(403)
    expect((await put(rep(), { is_shared: false })).statusCode).toBe(403)
    expect((await call(ctx.app, rep(), 'DELETE', `/email_template/${shared.id}/`)).statusCode).toBe(403)
    expect((await call(ctx.app, rep(), 'GET', `/email_template/${shared.id}/`)).json().name).toBe('Team')

    // Nor may a user share their own.
    const own = await create({ name: 'Own' })
    const share = await call(ctx.app, rep(), 'PUT', `/email_template/${own.id}/`, { body: { is_shared: true } })
    expect(share.statusCode).toBe(403)
    expect((await call(ctx.app, rep(), 'GET', `/email_template/${own.id}/`)).json().is_shared).toBe(false)

    const renamed = await put(ctx.org.admin.key, { name: 'Team intro', attachments: [] })
    expect(renamed.statusCode, renamed.body).toBe(200)
    expect(renamed.json()).toMatchObject({ name: 'Team intro', subject: 'Hi', is_shared: true })
    const deleted = await call(ctx.app, admin(), 'DELETE', `/email_template/${shared.id}/`)
    expect(deleted.statusCode).toBe(200)
    expect((await call(ctx.app, rep(), 'GET', `/email_template/${shared.id}/`)).statusCode).toBe(404)
  })

  it('keeps attachments, on https only', async () => {
    const file = {
      url: 'https://files.example/price-list.pdf',
      filename: 'price-list.pdf',
      content_type: 'application/pdf',
    }
    const created = await create({ name: 'With a file', attachments: [file, { ...file, size: 2048 }] })
    expect(created.attachments).toEqual([
      { ...file, size: null },
      { ...file, size: 2048 },
    ])
    const plain = await call(ctx.app, rep(), 'PUT', `/email_template/${created.id}/`, {
      body: { attachments: [{ ...file, url: 'http://files.example/x.pdf' }] },
    })
    expect(plain.statusCode).toBe(400)
    expect(plain.json()).toEqual({ errors: [], 'field-errors': { 'attachments.0.url': 'Must be an https:// URL.' } })
    const cleared = await call(ctx.app, rep(), 'PUT', `/email_template/${created.id}/`, { body: { attachments: [] } })
    expect(cleared.json().attachments).toEqual([])
  })

  it.each([
    ['name', 'This field is required.', {}],
    ['name', 'This field may not be blank.', { name: '   ' }],
    ['name', 'Ensure this field has no more than 255 characters.', { name: 'x'.repeat(256) }],
    ['subject', 'Ensure this field has no more than 998 characters.', { name: 'Odd', subject: 's'.repeat(999) }],
    ['body', 'Ensure this field has no more than 100000 characters.', { name: 'Odd', body: 'b'.repeat(100_001) }],
    ['subject', 'not closed', { name: 'Odd', subject: 'Hi {{ contact.first_name' }],
    ['body', 'invalid value expression', { name: 'Odd', body: '<p>{% if %}</p>' }],
    ['body', 'not closed', { name: 'Odd', body: '{% if contact.name %}open' }],
    ['body', 'undefined filter: shout', { name: 'Odd', body: '{{ contact.name | shout }}' }],
    ['body', 'undefined filter: raw', { name: 'Odd', body: '{{ contact.name | raw }}' }],
    ['body', 'tag "include" not found', { name: 'Odd', body: '{% include "secrets.txt" %}' }],
    ['body', 'tag "render" not found', { name: 'Odd', body: '{% render "/etc/passwd" %}' }],
    ['body', 'tag "for" not found', { name: 'Odd', body: '{% for i in (1..9) %}x{% endfor %}' }],
    ['is_shared', 'Must be true or false.', { name: 'Odd', is_shared: 'yes' }],
    [
      'attachments.0.content_type',
      'Enter a valid value.',
      { name: 'Odd', attachments: [{ url: 'https://x.example/a', filename: 'a', content_type: 'pdf' }] },
    ],
  ])('refuses a bad %s (case %#), storing nothing', async (field, message, body) => {
    const before = await stored()
    const res = await call(ctx.app, rep(), 'POST', '/email_template/', { body })
    expect(res.statusCode, res.body).toBe(400)
    const errors = res.json<{ errors: string[]; 'field-errors': Record<string, string> }>()
    expect(errors.errors).toEqual([])
    expect(Object.keys(errors['field-errors'])).toEqual([field])
    expect(errors['field-errors'][field]).toContain(message)
    expect(await stored()).toBe(before)
  })

  it('names the syntax error and where it is; a PUT is checked the same and changes nothing', async () => {
    const created = await create({ name: 'Good', body: '<p>Hi</p>' })
    const res = await call(ctx.app, rep(), 'PUT', `/email_template/${created.id}/`, {
      body: { name: '', subject: '{{ }}', body: '<p>\n{% if contact.name %}Hi</p>' },
    })
    expect(res.statusCode).toBe(400)
    expect(res.json()).toEqual({
      errors: [],
      'field-errors': {
        name: 'This field may not be blank.',
        subject: 'Not a valid template: invalid value expression: "", line:1, col:4.',
        body: 'Not a valid template: tag {% if contact.name %} not closed, line:2, col:1.',
      },
    })
    expect((await call(ctx.app, rep(), 'GET', `/email_template/${created.id}/`)).json()).toEqual(created)
  })

  it('lists by name with is_archived and is_shared filters and pages', async () => {
    const context = await createTestContext()
    try {
      const post = (key: string, body: Record<string, unknown>) =>
        call(context.app, key, 'POST', '/email_template/', { body })
      await post(context.org.admin.key, { name: 'Follow-up', is_shared: true })
      await post(context.org.admin.key, { name: 'Old intro', is_shared: true, is_archived: true })
      await post(context.org.member.key, { name: 'Meeting recap' })
      await post(context.org.member.key, { name: 'Ancient', is_archived: true })
      const names = async (query: Record<string, string>) => {
        const res = await call(context.app, context.org.member.key, 'GET', '/email_template/', { query })
        expect(res.statusCode, res.body).toBe(200)
        const page = res.json<{ has_more: boolean; data: EmailTemplate[] }>()
        return [page.has_more, page.data.map((t) => t.name)]
      }
      expect(await names({})).toEqual([false, ['Ancient', 'Follow-up', 'Meeting recap', 'Old intro']])
      expect(await names({ is_archived: 'false' })).toEqual([false, ['Follow-up', 'Meeting recap']])
      expect(await names({ is_archived: 'true' })).toEqual([false, ['Ancient', 'Old intro']])
      expect(await names({ is_shared: 'true', is_archived: 'false' })).toEqual([false, ['Follow-up']])
      expect(await names({ is_shared: 'false' })).toEqual([false, ['Ancient', 'Meeting recap']])
      expect(await names({ _limit: '2' })).toEqual([true, ['Ancient', 'Follow-up']])
      expect(await names({ _limit: '2', _skip: '2' })).toEqual([false, ['Meeting recap', 'Old intro']])
      for (const [query, field] of [
        [{ is_archived: 'maybe' }, 'is_archived'],
        [{ _limit: '101' }, '_limit'],
      ] as const) {
        const res = await call(context.app, context.org.member.key, 'GET', '/email_template/', { query })
        expect(res.statusCode).toBe(400)
        expect(Object.keys(res.json()['field-errors'])).toEqual([field])
      }
    } finally {
      await context.close()
    }
  })

  it('is a 404 to another organization, shared or not', async () => {
    const shared = await create({ name: 'Ours', is_shared: true }, admin())
    for (const method of ['GET', 'PUT', 'DELETE'] as const) {
      const res = await call(ctx.app, ctx.other.admin.key, method, `/email_template/${shared.id}/`, {
        ...(method === 'PUT' ? { body: { name: 'Theirs' } } : {}),
      })
      expect(res.statusCode).toBe(404)
    }
    expect((await call(ctx.app, rep(), 'GET', `/email_template/${shared.id}/`)).json().name).toBe('Ours')
  })
})

describe('changes to templates in the event log', () => {
  it('records created, updated and deleted with whose it is, never a personal template’s text', async () => {
    const template = await create({ name: 'Private pitch', subject: 'Secret subject', body: 'Secret body text' })
    const changed = await call(ctx.app, rep(), 'PUT', `/email_template/${template.id}/`, {
      body: { body: 'Another secret body' },
    })
    expect(changed.statusCode, changed.body).toBe(200)
    expect((await call(ctx.app, rep(), 'DELETE', `/email_template/${template.id}/`)).statusCode).toBe(200)

    // Another rep reads the log: they learn a template changed, not what it says.
    const res = await call(ctx.app, other.key, 'GET', '/event/', { query: { object_id: template.id } })
    expect(res.statusCode, res.body).toBe(200)
    const events = res.json<{
      data: {
        object_type: string
        action: string
        changed_fields: string[]
        data: { is_shared: boolean } | null
        previous_data: { is_shared?: boolean }
      }[]
    }>().data
    expect(events.map((e) => [e.object_type, e.action])).toEqual([
      ['email_template', 'deleted'],
      ['email_template', 'updated'],
      ['email_template', 'created'],
    ])
    // A deletion's last state is its previous_data (data null, as Close's).
    expect(events[0]?.data).toBeNull()
    expect(events.every((e) => (e.data ?? e.previous_data).is_shared === false)).toBe(true)
    expect(events[1]?.changed_fields).toContain('version')
    for (const hidden of ['Private pitch', 'Secret subject', 'Secret body', 'Another secret']) {
      expect(res.body).not.toContain(hidden)
    }
  })
})
