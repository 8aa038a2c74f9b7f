import { randomBytes } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { isIdOf } from '@leadline/shared/ids'
import type { EmailAccountView } from '@leadline/shared/email-account-schema'
import { buildApp } from '../../app/app.js'
import { SecretBox } from '../../platform/security/secret-box.js'
import { call, createTestContext, type TestContext, type TestOrg } from '../../tooling/test-support/test-app.js'
import { EmailAccountSecretError, findEmailAccount } from './email-account-repo.js'

let ctx: TestContext
beforeAll(async () => {
  ctx = await createTestContext()
})
afterAll(async () => {
  await ctx.close()
})

const TIMESTAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}\+00:00$/

function body(email: string, extra: Record<string, unknown> = {}, smtp: Record<string, unknown> = {}) {
  return { email, ...extra, smtp: { host: 'smtp.example.com', port: 465, ...smtp } }
}

async function create(key: string, payload: Record<string, unknown>): Promise<EmailAccountView> {
  const res = await call(ctx.app, key, 'POST', '/email_account/', { body: payload })
  expect(res.statusCode, res.body).toBe(200)
  return res.json()
}

async function fieldErrors(key: string, method: 'POST' | 'PUT', path: string, payload: unknown) {
  const res = await call(ctx.app, key, method, path, { body: payload })
  expect(res.statusCode, res.body).toBe(400)
  const json = res.json()
  expect(json.errors).toEqual([])
  return json['field-errors']
}

async function storedPassword(id: string): Promise<string | null> {
  const row = await ctx.database.db
    .selectFrom('email_account')
    .select('smtp_password')
    .where('id', '=', id)
    .executeTakeFirstOrThrow()
  return row.smtp_password
}

describe('POST /email_account/', () => {
  it('adds an account for a member (admin), answers 200 with the view, and stores the password encrypted', async () => {
    const org = await ctx.createOrg('Mail')
    const account = await create(org.admin.key, {
      user_id: org.member.id,
      email: ' Rey@Mail.Example ',
      identities: [{ name: 'Mail Sales', email: 'Sales@Mail.Example' }],
      smtp: { host: 'SMTP.Mail.Example', port: 587, username: 'rey', password: 'p4ss word', use_ssl: false },
    })
    expect(account).toEqual({
      id: expect.any(String),
      organization_id: org.id,
      user_id: org.member.id,
      email: 'rey@mail.example',
      // The own address an admin sets is trusted; the identity waits for its link.
      identities: [
        { name: 'Rey Rep', email: 'rey@mail.example', verified: true },
        { name: 'Mail Sales', email: 'sales@mail.example', verified: false },
      ],
      default_identity: { name: 'Rey Rep', email: 'rey@mail.example', verified: true },
      smtp: { host: 'smtp.mail.example', port: 587, username: 'rey', use_ssl: false, has_password: true },
      last_error: null,
      created_by: org.admin.id,
      updated_by: org.admin.id,
      date_created: expect.stringMatching(TIMESTAMP),
      date_updated: expect.stringMatching(TIMESTAMP),
    })
    expect(isIdOf('emailAccount', account.id)).toBe(true)
    const sealed = await storedPassword(account.id)
    expect(sealed).toMatch(/^v1:[A-Za-z0-9+/=]+:[A-Za-z0-9+/=]+$/)
    expect(sealed).not.toContain('p4ss')
    expect(ctx.config.secretBox?.open(sealed ?? '', account.id)).toBe('p4ss word')
    const one = await call(ctx.app, org.member.key, 'GET', `/email_account/${account.id}/`)
    expect(one.statusCode).toBe(200)
    expect(one.json()).toEqual(account)
    expect(one.body).not.toContain('p4ss')
  })

  it('adds one for the caller by default, SSL on, without login or password; an identity listed first is the default', async () => {
    const org = await ctx.createOrg('Mine')
    const account = await create(org.member.key, {
      email: 'rey@mine.example',
      identities: [
        { email: 'team@mine.example' },
        { name: 'Me', email: 'REY@mine.example' },
        { name: 'Again', email: 'team@mine.example' },
      ],
      smtp: { host: '192.0.2.10', port: 465 },
    })
    expect(account.user_id).toBe(org.member.id)
    expect(account.created_by).toBe(org.member.id)
    expect(account.smtp).toEqual({ host: '192.0.2.10', port: 465, username: null, use_ssl: true, has_password: false })
    // A user's own address is not trusted: every address waits for its link.
    expect(account.identities).toEqual([
      { name: '', email: 'team@mine.example', verified: false },
      { name: 'Me', email: 'rey@mine.example', verified: false },
    ])
    expect(account.default_identity).toEqual({ name: '', email: 'team@mine.example', verified: false })
    expect(await storedPassword(account.id)).toBeNull()
    // Blank login and password are none.
    const blank = await create(org.member.key, body('blank@mine.example', {}, { username: ' ', password: '' }))
    expect(blank.smtp).toMatchObject({ username: null, has_password: false })
  })

  it('lets a user add an account only for themselves (403), and only for a member of the organization (400)', async () => {
    const org = await ctx.createOrg('Roles')
    const forAdmin = await call(ctx.app, org.member.key, 'POST', '/email_account/', {
      body: body('ada@roles.example', { user_id: org.admin.id }),
    })
    expect(forAdmin.statusCode).toBe(403)
    expect(forAdmin.json()).toEqual({ error: 'Only an admin can manage the email accounts of other users.' })
    expect(
      await fieldErrors(
        org.admin.key,
        'POST',
        '/email_account/',
        body('x@roles.example', { user_id: ctx.org.member.id }),
      ),
    ).toEqual({ user_id: 'Not a user of your organization.' })
    expect(
      await fieldErrors(org.admin.key, 'POST', '/email_account/', body('x@roles.example', { user_id: 'user_nobody' })),
    ).toEqual({ user_id: 'Not a user of your organization.' })
    const listed = await call(ctx.app, org.admin.key, 'GET', '/email_account/')
    expect(listed.json().data).toEqual([])
  })

  it('refuses a bad address, port, host or identity, naming every field', async () => {
    const org = await ctx.createOrg('Checks')
    expect(
      await fieldErrors(org.admin.key, 'POST', '/email_account/', {
        email: 'not an address',
        identities: [
          { name: 'Good', email: 'good@checks.example' },
          { email: 'bad@' },
          { name: 'x'.repeat(201), email: 'n@checks.example' },
        ],
        smtp: { host: 'smtp://mail.checks.example', port: 0, username: 'u'.repeat(321) },
      }),
    ).toEqual({
      email: 'Enter a valid email address.',
      'identities.1.email': 'Enter a valid email address.',
      'identities.2.name': 'Ensure this field has no more than 200 characters.',
      'smtp.host': 'Enter a host name or an IP address, without a scheme or port.',
      'smtp.port': 'Enter a port from 1 to 65535.',
      'smtp.username': 'Ensure this field has no more than 320 characters.',
    })
    for (const host of [
      'mail.checks.example:25',
      'mail.checks.example/path',
      '-bad.example',
      'a..b',
      ' ',
      'ex ample.com',
    ]) {
      const errors = await fieldErrors(org.admin.key, 'POST', '/email_account/', body('a@checks.example', {}, { host }))
      expect(Object.keys(errors), host).toEqual(['smtp.host'])
    }
    for (const port of [65536, -1]) {
      expect(
        await fieldErrors(org.admin.key, 'POST', '/email_account/', body('a@checks.example', {}, { port })),
      ).toEqual({
        'smtp.port': 'Enter a port from 1 to 65535.',
      })
    }
    expect(
      await fieldErrors(org.admin.key, 'POST', '/email_account/', body('a@checks.example', {}, { port: 25.5 })),
    ).toEqual({
      'smtp.port': 'A valid integer is required.',
    })
    expect(await fieldErrors(org.admin.key, 'POST', '/email_account/', { email: 'a@checks.example' })).toEqual({
      smtp: 'This field is required.',
    })
    expect(
      await fieldErrors(org.admin.key, 'POST', '/email_account/', { email: 'a@checks.example', smtp: { port: 25 } }),
    ).toEqual({ 'smtp.host': 'This field is required.' })
    const ipv6 = await create(org.admin.key, body('v6@checks.example', {}, { host: '2001:db8::25', port: 25 }))
    expect(ipv6.smtp.host).toBe('2001:db8::25')
    const listed = await call(ctx.app, org.admin.key, 'GET', '/email_account/')
    expect(listed.json().data).toHaveLength(1)
  })

  it('refuses an address the organization already has an account for, ignoring case', async () => {
    const org = await ctx.createOrg('Twice')
    await create(org.admin.key, body('shared@twice.example'))
    expect(await fieldErrors(org.member.key, 'POST', '/email_account/', body('Shared@Twice.example'))).toEqual({
      email: 'Your organization already has an email account for this address.',
    })
  })

  it('ignores read-only fields in the body', async () => {
    const org = await ctx.createOrg('Read only')
    const account = await create(org.admin.key, {
      ...body('ro@ro.example'),
      id: 'emailacct_mine',
      organization_id: ctx.org.id,
      created_by: 'user_someone',
      default_identity: { name: 'X', email: 'x@ro.example' },
    })
    expect(account.id).not.toBe('emailacct_mine')
    expect(account.organization_id).toBe(org.id)
    expect(account.created_by).toBe(org.admin.id)
    expect(account.identities).toEqual([{ name: 'Ada Admin', email: 'ro@ro.example', verified: true }])
  })
})

describe('GET /email_account/', () => {
  let org: TestOrg
  let adminAccount: EmailAccountView
  let repAccounts: EmailAccountView[]

  beforeAll(async () => {
    org = await ctx.createOrg('Listing')
    adminAccount = await create(org.admin.key, body('ada@listing.example'))
    repAccounts = [
      await create(org.member.key, body('rey@listing.example', {}, { password: 'secret-one' })),
      await create(org.admin.key, body('rey2@listing.example', { user_id: org.member.id })),
    ]
    await create(ctx.other.admin.key, body('ada@other-listing.example'))
  })

  const list = async (key: string, query = '') => {
    const res = await call(ctx.app, key, 'GET', `/email_account/${query}`)
    expect(res.statusCode).toBe(200)
    expect(res.body).not.toContain('secret-one')
    return res.json<{ has_more: boolean; data: EmailAccountView[] }>()
  }
  const ids = (accounts: EmailAccountView[]) => accounts.map((account) => account.id)

  it("gives an admin the organization's accounts, oldest first, by user with ?user_id=, paged", async () => {
    expect(ids((await list(org.admin.key)).data)).toEqual([adminAccount.id, ...ids(repAccounts)])
    expect(ids((await list(org.admin.key, `?user_id=${org.member.id}`)).data)).toEqual(ids(repAccounts))
    expect(await list(org.admin.key, '?_limit=1&_skip=1')).toEqual({ has_more: true, data: [repAccounts[0]] })
    expect((await list(org.admin.key, '?user_id=user_nobody')).data).toEqual([])
  })

  it('gives a user their own accounts only, whatever user_id asks for', async () => {
    expect(ids((await list(org.member.key)).data)).toEqual(ids(repAccounts))
    expect(ids((await list(org.member.key, `?user_id=${org.member.id}`)).data)).toEqual(ids(repAccounts))
    expect((await list(org.member.key, `?user_id=${org.admin.id}`)).data).toEqual([])
  })

  it("answers 403 to a user asking for a colleague's account, 404 for another organization's or none", async () => {
    const mine = await call(ctx.app, org.member.key, 'GET', `/email_account/${repAccounts[1]?.id ?? ''}/`)
    expect(mine.statusCode).toBe(200)
    const colleague = await call(ctx.app, org.member.key, 'GET', `/email_account/${adminAccount.id}/`)
    expect(colleague.statusCode).toBe(403)
    for (const key of [ctx.other.admin.key, ctx.other.member.key]) {
      const res = await call(ctx.app, key, 'GET', `/email_account/${adminAccount.id}/`)
      expect(res.statusCode).toBe(404)
      expect(res.json()).toEqual({ error: 'Email account not found.' })
    }
    expect((await call(ctx.app, org.admin.key, 'GET', '/email_account/emailacct_none/')).statusCode).toBe(404)
    expect((await call(ctx.app, undefined, 'GET', '/email_account/')).statusCode).toBe(401)
  })
})

describe('PUT /email_account/{id}/', () => {
  it('changes only what is sent; a password not sent is kept, null removes it', async () => {
    const org = await ctx.createOrg('Edits')
    const account = await create(org.member.key, body('rey@edits.example', {}, { password: 'first', username: 'rey' }))
    const sealed = await storedPassword(account.id)
    const res = await call(ctx.app, org.member.key, 'PUT', `/email_account/${account.id}/`, {
      body: { smtp: { port: 2525, use_ssl: false } },
    })
    expect(res.statusCode, res.body).toBe(200)
    const changed: EmailAccountView = res.json()
    expect(changed).toEqual({
      ...account,
      smtp: { ...account.smtp, port: 2525, use_ssl: false },
      date_updated: expect.stringMatching(TIMESTAMP),
    })
    expect(changed.date_updated > account.date_updated).toBe(true)
    expect(await storedPassword(account.id)).toBe(sealed)

    const replaced = await call(ctx.app, org.admin.key, 'PUT', `/email_account/${account.id}/`, {
      body: { smtp: { password: 'second' } },
    })
    expect(replaced.json()).toMatchObject({ updated_by: org.admin.id, smtp: { has_password: true } })
    expect(ctx.config.secretBox?.open((await storedPassword(account.id)) ?? '', account.id)).toBe('second')

    const removed = await call(ctx.app, org.member.key, 'PUT', `/email_account/${account.id}/`, {
      body: { smtp: { password: null, username: null } },
    })
    expect(removed.json().smtp).toEqual({
      host: 'smtp.example.com',
      port: 2525,
      username: null,
      use_ssl: false,
      has_password: false,
    })
    expect(await storedPassword(account.id)).toBeNull()
  })

  it('moves the own identity with a new address, keeping its name; identities sent replace the old', async () => {
    const org = await ctx.createOrg('Renames')
    const account = await create(org.member.key, {
      ...body('old@renames.example'),
      identities: [
        { name: 'Rey at work', email: 'old@renames.example' },
        { name: 'Team', email: 'team@renames.example' },
      ],
    })
    const renamed = await call(ctx.app, org.member.key, 'PUT', `/email_account/${account.id}/`, {
      body: { email: 'New@Renames.example' },
    })
    expect(renamed.json()).toMatchObject({
      email: 'new@renames.example',
      identities: [
        { name: 'Rey at work', email: 'new@renames.example', verified: false },
        { name: 'Team', email: 'team@renames.example', verified: false },
      ],
    })
    const replaced = await call(ctx.app, org.member.key, 'PUT', `/email_account/${account.id}/`, {
      body: { identities: [{ name: 'Support', email: 'support@renames.example' }] },
    })
    expect(replaced.json().identities).toEqual([
      { name: 'Rey Rep', email: 'new@renames.example', verified: false },
      { name: 'Support', email: 'support@renames.example', verified: false },
    ])
  })

  it('checks like a create: bad fields, a taken address, a non-member; nothing is half-changed', async () => {
    const org = await ctx.createOrg('Edit checks')
    const account = await create(org.admin.key, body('one@checks2.example'))
    await create(org.admin.key, body('two@checks2.example'))
    const path = `/email_account/${account.id}/`
    expect(await fieldErrors(org.admin.key, 'PUT', path, { email: 'TWO@checks2.example' })).toEqual({
      email: 'Your organization already has an email account for this address.',
    })
    expect(
      await fieldErrors(org.admin.key, 'PUT', path, { email: 'nope', smtp: { port: 70000, host: 'a b' } }),
    ).toEqual({
      email: 'Enter a valid email address.',
      'smtp.port': 'Enter a port from 1 to 65535.',
      'smtp.host': 'Enter a host name or an IP address, without a scheme or port.',
    })
    expect(await fieldErrors(org.admin.key, 'PUT', path, { identities: [{ email: 'x' }] })).toEqual({
      'identities.0.email': 'Enter a valid email address.',
    })
    expect(await fieldErrors(org.admin.key, 'PUT', path, { user_id: ctx.other.admin.id })).toEqual({
      user_id: 'Not a user of your organization.',
    })
    const unchanged = await call(ctx.app, org.admin.key, 'GET', path)
    expect(unchanged.json()).toEqual(account)
  })

  it('lets an admin move an account to another member; a user may change only their own, and keep it (403)', async () => {
    const org = await ctx.createOrg('Owners')
    const account = await create(org.admin.key, body('box@owners.example'))
    const path = `/email_account/${account.id}/`
    expect((await call(ctx.app, org.member.key, 'PUT', path, { body: { smtp: { port: 25 } } })).statusCode).toBe(403)
    const moved = await call(ctx.app, org.admin.key, 'PUT', path, { body: { user_id: org.member.id } })
    expect(moved.json().user_id).toBe(org.member.id)
    const own = await call(ctx.app, org.member.key, 'PUT', path, { body: { smtp: { port: 25 } } })
    expect(own.statusCode).toBe(200)
    const giveAway = await call(ctx.app, org.member.key, 'PUT', path, { body: { user_id: org.admin.id } })
    expect(giveAway.statusCode).toBe(403)
    const other = await call(ctx.app, ctx.other.admin.key, 'PUT', path, { body: { smtp: { port: 26 } } })
    expect(other.statusCode).toBe(404)
    expect((await call(ctx.app, org.admin.key, 'GET', path)).json()).toMatchObject({
      user_id: org.member.id,
      smtp: { port: 25 },
    })
  })
})

describe('DELETE /email_account/{id}/', () => {
  it('removes an account (200 {}) for its user or an admin; 403 for a colleague, 404 elsewhere', async () => {
    const org = await ctx.createOrg('Deletes')
    const admins = await create(org.admin.key, body('ada@deletes.example'))
    const reps = await create(org.member.key, body('rey@deletes.example'))
    expect((await call(ctx.app, org.member.key, 'DELETE', `/email_account/${admins.id}/`)).statusCode).toBe(403)
    expect((await call(ctx.app, ctx.other.admin.key, 'DELETE', `/email_account/${reps.id}/`)).statusCode).toBe(404)
    const own = await call(ctx.app, org.member.key, 'DELETE', `/email_account/${reps.id}/`)
    expect(own.statusCode).toBe(200)
    expect(own.json()).toEqual({})
    const byAdmin = await call(ctx.app, org.admin.key, 'DELETE', `/email_account/${admins.id}/`)
    expect(byAdmin.json()).toEqual({})
    expect((await call(ctx.app, org.admin.key, 'DELETE', `/email_account/${admins.id}/`)).statusCode).toBe(404)
    expect((await call(ctx.app, org.admin.key, 'GET', '/email_account/')).json().data).toEqual([])
    // Its address is free again, and no longer routes incoming mail.
    await create(org.admin.key, body('rey@deletes.example'))
    const addresses = await ctx.database.db
      .selectFrom('email_account_address')
      .select('email_account_id')
      .where('organization_id', '=', org.id)
      .execute()
    expect(addresses.map((a) => a.email_account_id)).not.toContain(reps.id)
  })
})

describe('/me/ email_accounts', () => {
  it("lists the caller's accounts as the API shows them, and follows every change despite the cache", async () => {
    const org = await ctx.createOrg('Me')
    const me = async (key: string) => {
      const res = await call(ctx.app, key, 'GET', '/me/')
      expect(res.statusCode).toBe(200)
      return res.json().email_accounts as EmailAccountView[]
    }
    expect(await me(org.member.key)).toEqual([])
    const account = await create(org.admin.key, {
      ...body('rey@me.example', { user_id: org.member.id }, { password: 'never-shown' }),
    })
    await create(org.admin.key, body('ada@me.example'))
    expect(await me(org.member.key)).toEqual([account])
    const res = await call(ctx.app, org.member.key, 'GET', '/me/')
    expect(res.body).not.toContain('never-shown')
    expect(res.body).not.toContain((await storedPassword(account.id)) ?? 'v1:')

    const changed = await call(ctx.app, org.member.key, 'PUT', `/email_account/${account.id}/`, {
      body: { smtp: { host: 'mail.me.example' } },
    })
    expect(await me(org.member.key)).toEqual([changed.json()])
    await call(ctx.app, org.member.key, 'DELETE', `/email_account/${account.id}/`)
    expect(await me(org.member.key)).toEqual([])
    expect((await me(org.admin.key)).map((a) => a.email)).toEqual(['ada@me.example'])
  })
})

describe('without LEADLINE_SECRET_KEY, or with another one', () => {
  it('refuses to store a password on a server without a key, and stores the rest', async () => {
    const keyless = await createTestContext({ env: { LEADLINE_SECRET_KEY: '' } })
    try {
      expect(keyless.config.secretBox).toBeNull()
      const org = keyless.org
      const refused = await call(keyless.app, org.admin.key, 'POST', '/email_account/', {
        body: body('ada@keyless.example', {}, { password: 'hunter2' }),
      })
      expect(refused.statusCode).toBe(400)
      expect(refused.json()['field-errors']).toEqual({
        'smtp.password': expect.stringContaining('no LEADLINE_SECRET_KEY'),
      })
      expect((await call(keyless.app, org.admin.key, 'GET', '/email_account/')).json().data).toEqual([])
      const stored = await call(keyless.app, org.admin.key, 'POST', '/email_account/', {
        body: body('ada@keyless.example', {}, { password: null }),
      })
      expect(stored.statusCode).toBe(200)
      const id: string = stored.json().id
      const later = await call(keyless.app, org.admin.key, 'PUT', `/email_account/${id}/`, {
        body: { smtp: { password: 'hunter2' } },
      })
      expect(later.json()['field-errors']).toEqual({ 'smtp.password': expect.stringContaining('LEADLINE_SECRET_KEY') })
    } finally {
      await keyless.close()
    }
  })

  it('still shows and edits an account whose password no longer decrypts; sending gets a clear error until it is entered again', async () => {
    const org = await ctx.createOrg('Rotated')
    const account = await create(org.member.key, body('rey@rotated.example', {}, { password: 'old-key-secret' }))
    const newKey = { ...ctx.config, secretBox: new SecretBox(randomBytes(32)) }
    const app = await buildApp({ database: ctx.database, config: newKey, clock: ctx.clock, logger: false })
    try {
      const shown = await call(app, org.member.key, 'GET', `/email_account/${account.id}/`)
      expect(shown.statusCode).toBe(200)
      expect(shown.json().smtp.has_password).toBe(true)
      expect((await call(app, org.member.key, 'GET', '/me/')).statusCode).toBe(200)
      await expect(findEmailAccount(ctx.database.db, newKey.secretBox, org.id, account.id)).rejects.toThrow(
        EmailAccountSecretError,
      )
      const edited = await call(app, org.member.key, 'PUT', `/email_account/${account.id}/`, {
        body: { smtp: { port: 587 } },
      })
      expect(edited.statusCode).toBe(200)
      await expect(findEmailAccount(ctx.database.db, newKey.secretBox, org.id, account.id)).rejects.toThrow(
        /key changed/,
      )
      const fixed = await call(app, org.member.key, 'PUT', `/email_account/${account.id}/`, {
        body: { smtp: { password: 'new-key-secret' } },
      })
      expect(fixed.statusCode).toBe(200)
      expect((await findEmailAccount(ctx.database.db, newKey.secretBox, org.id, account.id))?.smtp.password).toBe(
        'new-key-secret',
      )
      // Each app keeps its own key: the first app, still running, seals and opens with the old one.
      const meanwhile = await create(org.member.key, body('ada@rotated.example', {}, { password: 'old-key-again' }))
      const opened = await findEmailAccount(ctx.database.db, ctx.config.secretBox, org.id, meanwhile.id)
      expect(opened?.smtp.password).toBe('old-key-again')
    } finally {
      await app.close()
    }
  })
})

describe('OpenAPI', () => {
  it('documents every route, and the password as write-only', async () => {
    const doc = (await ctx.app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).json()
    expect(Object.keys(doc.paths['/api/v1/email_account/'])).toEqual(expect.arrayContaining(['get', 'post']))
    expect(Object.keys(doc.paths['/api/v1/email_account/{id}/'])).toEqual(
      expect.arrayContaining(['get', 'put', 'delete']),
    )
    const create = doc.paths['/api/v1/email_account/'].post
    const smtp = create.requestBody.content['application/json'].schema.properties.smtp
    expect(smtp.properties.password.description).toContain('Write-only')
    expect(Object.keys(create.responses['200'].content['application/json'].schema.properties.smtp.properties)).toEqual([
      'host',
      'port',
      'username',
      'use_ssl',
      'has_password',
    ])
  })
})

describe('changes to email accounts in the event log', () => {
  it('records created, updated and deleted with the owner, never the addresses or the server', async () => {
    const org = await ctx.createOrg('Account Events')
    const account = await create(org.admin.key, body('hidden.sender@events.test', { user_id: org.member.id }))
    const changed = await call(ctx.app, org.admin.key, 'PUT', `/email_account/${account.id}/`, {
      body: { smtp: { host: 'relay.secret-host.test', password: 'never-shown-password' } },
    })
    expect(changed.statusCode, changed.body).toBe(200)
    expect((await call(ctx.app, org.admin.key, 'DELETE', `/email_account/${account.id}/`)).statusCode).toBe(200)

    const res = await call(ctx.app, org.member.key, 'GET', '/event/', { query: { object_id: account.id } })
    expect(res.statusCode, res.body).toBe(200)
    const events = res.json<{
      data: {
        object_type: string
        action: string
        changed_fields: string[]
        data: { user_id: string } | null
        previous_data: { user_id?: string }
      }[]
    }>().data
    expect(events.map((e) => [e.object_type, e.action])).toEqual([
      ['email_account', 'deleted'],
      ['email_account', 'updated'],
      ['email_account', 'created'],
    ])
    // A deletion's last state is its previous_data (data null, as Close's).
    expect(events[0]?.data).toBeNull()
    expect(events.every((e) => (e.data ?? e.previous_data).user_id === org.member.id)).toBe(true)
    expect(events[1]?.changed_fields).toContain('version')
    for (const hidden of ['hidden.sender', 'smtp.example.com', 'secret-host', 'never-shown-password']) {
      expect(res.body).not.toContain(hidden)
    }
  })

  it('records nothing for a change that was refused', async () => {
    const org = await ctx.createOrg('Account Events Refused')
    const account = await create(org.admin.key, body('kept@events.test'))
    await fieldErrors(org.admin.key, 'PUT', `/email_account/${account.id}/`, { smtp: { port: 0 } })
    const res = await call(ctx.app, org.admin.key, 'GET', '/event/', { query: { object_id: account.id } })
    expect(res.json<{ data: { action: string }[] }>().data.map((e) => e.action)).toEqual(['created'])
  })
})
