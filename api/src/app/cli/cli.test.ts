import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { Agent, request } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { buildApp } from '../app.js'
import { loadConfig } from '../../platform/config.js'
import { openDatabase, type DatabaseHandle } from '../../platform/data/database.js'
import { AUTH_CACHE_SECONDS } from '../../platform/security/auth-cache.js'
import { SEARCH_DOCUMENT_VERSION } from '../../crm/leads/lead-search-index.js'
import { cliPath, runCli } from '../../tooling/test-support/api-process.js'
import { API_NODE_FLAGS } from '../../tooling/bench/bench-bff.js'
import {
  basicAuth,
  call,
  createTestDatabase,
  TestClock,
  type TestDatabase,
} from '../../tooling/test-support/test-app.js'

// Every test here runs the real CLI in a process or two (Node's start, a migration, Argon2 hashing) and waits for
// it: on a machine busy with the other suites that takes longer than an in-process test is allowed.
vi.setConfig({ testTimeout: 60_000 })

interface Result {
  code: number | null
  stdout: string
  stderr: string
}

// The child never inherits DATABASE_URL: every call names its database with --db.
function childEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, LOG_LEVEL: 'info' }
  delete env.DATABASE_URL
  return env
}

function leadline(args: string[], env: NodeJS.ProcessEnv = {}): Promise<Result> {
  return runCli(args, { LOG_LEVEL: 'info', DATABASE_URL: undefined, ...env })
}

/** Runs a `--json` command that must succeed and print exactly one JSON object and nothing else. */
async function leadlineJson(args: string[]) {
  const result = await leadline([...args, '--json'])
  expect(result, result.stderr).toMatchObject({ code: 0 })
  expect(result.stdout.endsWith('\n')).toBe(true)
  expect(result.stdout.trimEnd().split('\n')).toHaveLength(1)
  const parsed = JSON.parse(result.stdout)
  expect(parsed).toBeTypeOf('object')
  return parsed
}

let testDb: TestDatabase
let database: DatabaseHandle
let app: FastifyInstance
let db: string[]
// The api process's clock: a key it has verified is trusted for AUTH_CACHE_SECONDS before it asks again.
const clock = new TestClock()

async function me(key: string) {
  return call(app, key, 'GET', '/me/')
}

async function rowCounts(): Promise<Record<string, number>> {
  const counts: Record<string, number> = {}
  for (const table of ['organization', 'user', 'membership', 'api_key'] as const) {
    const row = await database.db
      .selectFrom(table)
      .select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirstOrThrow()
    counts[table] = Number(row.n)
  }
  return counts
}

beforeAll(async () => {
  if (!existsSync(cliPath)) {
    throw new Error(`${cliPath} does not exist: build the api first (corepack pnpm --filter @leadline/api exec tsc -b)`)
  }
  testDb = await createTestDatabase()
  db = ['--db', testDb.url]
  const migrated = await leadlineJson(['migrate', ...db])
  expect(migrated.applied).toEqual(expect.arrayContaining(['0001-foundation']))
  database = openDatabase(testDb.url)
  app = await buildApp({ database, config: loadConfig({ DATABASE_URL: testDb.url }), logger: false, clock })
}, 60_000)

afterAll(async () => {
  await app.close()
  await database.close()
  await testDb.drop()
})

describe('leadline migrate', () => {
  it('changes nothing the second time', async () => {
    expect(await leadlineJson(['migrate', ...db])).toEqual({ applied: [], reindexed_leads: 0 })
    const human = await leadline(['migrate', ...db])
    expect(human).toEqual({ code: 0, stdout: 'The database is up to date.\n', stderr: '' })
  })

  it('migrates a new SQLite file once when two processes start on it together', { timeout: 120_000 }, async () => {
    // Kysely takes no migration lock on SQLite: two at once both applied each migration, and about one process in
    // three failed on a column or table the other had just made.
    const dir = mkdtempSync(join(tmpdir(), 'leadline-migrate-'))
    try {
      for (let pair = 0; pair < 6; pair++) {
        const file = ['--db', `sqlite:${join(dir, `pair-${String(pair)}.db`)}`]
        const both = await Promise.all([
          leadline(['migrate', ...file, '--json']),
          leadline(['migrate', ...file, '--json']),
        ])
        for (const result of both) expect(result, result.stderr).toMatchObject({ code: 0, stderr: '' })
        // Every migration was applied by exactly one of them.
        const applied = both.flatMap((result) => (JSON.parse(result.stdout) as { applied: string[] }).applied)
        expect(applied.toSorted()).toEqual([...new Set(applied)].toSorted())
        expect(await leadlineJson(['migrate', ...file])).toEqual({ applied: [], reindexed_leads: 0 })
      }
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})

describe('leadline init, user add, key create, key revoke', () => {
  let organizationId: string
  let adminKey: string

  beforeAll(async () => {
    const created = await leadlineJson([
      'init',
      ...db,
      '--org',
      'Acme Inc',
      '--email',
      'ada@acme.test',
      '--first-name',
      'Ada',
      '--last-name',
      'Lovelace',
    ])
    expect(Object.keys(created).sort()).toEqual(['api_key', 'membership_id', 'organization_id', 'user_id'])
    organizationId = String(created.organization_id)
    adminKey = String(created.api_key)
    expect(organizationId).toMatch(/^orga_/)

    const res = await me(String(created.api_key))
    expect(res.statusCode).toBe(200)
    const body = res.json()
    expect(body).toMatchObject({ id: created.user_id, first_name: 'Ada', last_name: 'Lovelace' })
    expect(body.organizations[0]).toMatchObject({ id: organizationId, name: 'Acme Inc' })
    expect(body.memberships).toEqual([
      expect.objectContaining({ id: created.membership_id, organization_id: organizationId, role: 'admin' }),
    ])
  })

  it('init without --json prints the key for a person to read', async () => {
    const result = await leadline(['init', ...db, '--org', 'Initech', '--email', 'bill@initech.test'])
    expect(result.code).toBe(0)
    expect(result.stderr).toBe('')
    const key = /API key: (\S+)/.exec(result.stdout)?.[1]
    expect(key).toBeDefined()
    expect((await me(key ?? '')).statusCode).toBe(200)
  })

  it('user add --role user issues a working key for a plain member', async () => {
    const added = await leadlineJson([
      'user',
      'add',
      ...db,
      '--org',
      organizationId,
      '--email',
      'rey@acme.test',
      '--role',
      'user',
    ])
    expect(Object.keys(added).sort()).toEqual(['api_key', 'membership_id', 'user_id'])
    const res = await me(String(added.api_key))
    expect(res.statusCode).toBe(200)
    expect(res.json().id).toBe(added.user_id)
    expect(res.json().memberships).toEqual([
      expect.objectContaining({ id: added.membership_id, organization_id: organizationId, role: 'user' }),
    ])
  })

  it('user add makes a plain member by default and an admin with --role admin', async () => {
    const added = await leadlineJson(['user', 'add', ...db, '--org', organizationId, '--email', 'root@acme.test'])
    expect((await me(String(added.api_key))).json().memberships[0].role).toBe('user')
    const admin = await leadlineJson([
      'user',
      'add',
      ...db,
      '--org',
      organizationId,
      '--email',
      'boss@acme.test',
      '--role',
      'admin',
    ])
    expect((await me(String(admin.api_key))).json().memberships[0].role).toBe('admin')
  })

  it('user add --password-env sets a password they sign in with, and refuses a weak one adding no one', async () => {
    const add = (email: string, password: string) =>
      leadline(
        ['user', 'add', ...db, '--org', organizationId, '--email', email, '--password-env', 'NEW_PASSWORD', '--json'],
        {
          NEW_PASSWORD: password,
        },
      )
    const before = await rowCounts()
    const weak = await add('weak@acme.test', 'password1234')
    expect(weak.code).toBe(2)
    expect(weak.stderr).toMatch(/too easy to guess/)
    expect(await rowCounts()).toEqual(before)
    const unset = await leadline([
      'user',
      'add',
      ...db,
      '--org',
      organizationId,
      '--email',
      'x@acme.test',
      '--password-env',
      'NOT_SET_ANYWHERE',
    ])
    expect(unset.code).toBe(2)
    expect(unset.stderr).toMatch(/NOT_SET_ANYWHERE/)

    const strong = await add('pat@acme.test', 'quiet lantern orbit 7 maple')
    expect(strong.code, strong.stderr).toBe(0)
    const signIn = (password: string) =>
      app.inject({
        method: 'POST',
        url: '/api/v1/auth/sign_in/',
        payload: { email: 'pat@acme.test', password },
      })
    const session = await signIn('quiet lantern orbit 7 maple')
    expect(session.statusCode).toBe(200)
    expect(session.json().user_id).toBe(JSON.parse(strong.stdout).user_id)
    expect((await signIn('password1234')).statusCode).toBe(401)
  })

  it('user add refuses a user who is already a member, with exit code 2', async () => {
    const before = await rowCounts()
    const result = await leadline(['user', 'add', ...db, '--org', organizationId, '--email', 'ADA@acme.test'])
    expect(result.code).toBe(2)
    expect(result.stderr).toMatch(/already a member/)
    expect(await rowCounts()).toEqual(before)
  })

  it('key create issues another working key; key revoke refuses it within the auth cache window', async () => {
    const user = await leadlineJson(['user', 'add', ...db, '--org', organizationId, '--email', 'sam@acme.test'])
    const first = String(user.api_key)
    const second = await leadlineJson(['key', 'create', ...db, '--org', organizationId, '--user', String(user.user_id)])
    expect(Object.keys(second).sort()).toEqual(['api_key', 'api_key_id'])
    const secondKey = String(second.api_key)
    expect(secondKey.startsWith(`${String(second.api_key_id)}.`)).toBe(true)
    expect(secondKey).not.toBe(first)
    const res = await me(secondKey)
    expect(res.statusCode).toBe(200)
    expect(res.json().id).toBe(user.user_id)

    const revoked = await leadlineJson(['key', 'revoke', String(second.api_key_id), ...db])
    expect(revoked).toEqual({ api_key_id: second.api_key_id, revoked: true })
    // Revoking it again is harmless, and changes nothing the audit log would record.
    expect(await leadlineJson(['key', 'revoke', String(second.api_key_id), ...db])).toEqual(revoked)
    // Both are in the organization's audit log: made on the server, so with no actor and no address.
    const audit = await call(app, adminKey, 'GET', '/audit_log/', {
      query: { action__in: 'api_key_created,api_key_revoked' },
    })
    expect(audit.statusCode, audit.body).toBe(200)
    expect(audit.json().data).toEqual([
      expect.objectContaining({
        action: 'api_key_revoked',
        object_id: second.api_key_id,
        user_id: null,
        client_address: null,
        details: { user_id: user.user_id, source: 'leadline key revoke' },
      }),
      expect.objectContaining({
        action: 'api_key_created',
        object_id: second.api_key_id,
        user_id: null,
        client_address: null,
        details: { user_id: user.user_id, source: 'leadline key create' },
      }),
    ])
    // The revocation happened in another process (the CLI): this one still trusts its verification for a while…
    clock.advance((AUTH_CACHE_SECONDS - 1) * 1000)
    expect((await me(secondKey)).statusCode).toBe(200)
    // …and asks the database again once it is AUTH_CACHE_SECONDS old.
    clock.advance(1000)
    const refused = await me(secondKey)
    expect(refused.statusCode).toBe(401)
    expect(refused.headers['www-authenticate']).toBe('Basic realm="api"')
    expect((await me(first)).statusCode).toBe(200)
  })

  it('key create refuses a user who is not a member of that organization', async () => {
    const other = await leadlineJson(['init', ...db, '--org', 'Globex', '--email', 'hank@globex.test'])
    const before = await rowCounts()
    const result = await leadline([
      'key',
      'create',
      ...db,
      '--org',
      organizationId,
      '--user',
      String(other.user_id),
      '--json',
    ])
    expect(result.code).toBe(2)
    expect(result.stdout).toBe('')
    expect(result.stderr).toContain(`is not a member of organization "${organizationId}"`)
    expect(await rowCounts()).toEqual(before)
  })

  describe('usage errors exit 2 with a message on stderr and write nothing', () => {
    const cases: [string, () => string[], RegExp][] = [
      ['an unknown command', () => ['frobnicate'], /unknown command "frobnicate"/],
      ['an unknown subcommand', () => ['key', 'rotate'], /unknown command "key rotate"/],
      ['an unknown flag', () => ['init', '--org', 'X', '--email', 'x@y.test', '--admin'], /unknown option --admin/],
      ['a missing --email', () => ['init', '--org', 'Umbrella'], /missing required option --email/],
      ['a missing --org', () => ['init', '--email', 'x@y.test'], /missing required option --org/],
      ['a bad email', () => ['init', '--org', 'Umbrella', '--email', 'not-an-email'], /not a valid email address/],
      [
        'a role other than admin or user',
        () => ['user', 'add', '--org', organizationId, '--email', 'x@y.test', '--role', 'owner'],
        /--role must be admin or user, got "owner"/,
      ],
      [
        'an unknown organization',
        () => ['user', 'add', '--org', 'orga_doesnotexist', '--email', 'x@y.test'],
        /unknown organization "orga_doesnotexist"/,
      ],
      [
        'an unknown user',
        () => ['key', 'create', '--org', organizationId, '--user', 'user_doesnotexist'],
        /unknown user "user_doesnotexist"/,
      ],
      ['an unknown key id', () => ['key', 'revoke', 'key_doesnotexist'], /unknown API key "key_doesnotexist"/],
      ['a negative --leads', () => ['seed', 'demo', '--leads=-1'], /--leads must be an integer/],
      ['a fractional --leads', () => ['seed', 'demo', '--leads', '2.5'], /--leads must be an integer/],
      ['an extra argument', () => ['migrate', 'now'], /unexpected argument "now"/],
    ]
    it.each(cases)('%s', async (_name, args, message) => {
      const before = await rowCounts()
      const result = await leadline([...args(), ...db, '--json'])
      expect(result.code).toBe(2)
      expect(result.stdout).toBe('')
      expect(result.stderr).toMatch(message)
      expect(result.stderr).toMatch(/--help" for usage/)
      expect(await rowCounts()).toEqual(before)
    })
  })
})

describe('leadline user invite and user reset-password', () => {
  const APP = { LEADLINE_APP_URL: 'https://crm.example.com' }
  const password = 'quiet lantern orbit 7 maple'
  let organizationId: string

  beforeAll(async () => {
    const created = await leadlineJson(['init', ...db, '--org', 'Invites Inc', '--email', 'ivan@invites.test'])
    organizationId = String(created.organization_id)
  })

  /** Runs a `--json` command with the app URL set; it must succeed and print one JSON object. */
  async function linked(args: string[]) {
    const result = await leadline([...args, ...db, '--json'], APP)
    expect(result, result.stderr).toMatchObject({ code: 0 })
    expect(result.stdout.trimEnd().split('\n')).toHaveLength(1)
    return JSON.parse(result.stdout)
  }

  it('user invite queues the email and prints the link, which makes a member once', { timeout: 60_000 }, async () => {
    const invited = await linked([
      'user',
      'invite',
      '--org',
      organizationId,
      '--email',
      'nina@invites.test',
      '--role',
      'admin',
    ])
    expect(Object.keys(invited).sort()).toEqual(['date_expires', 'email', 'invitation_id', 'link', 'role'])
    expect(invited).toMatchObject({ email: 'nina@invites.test', role: 'admin' })
    const token = /^https:\/\/crm\.example\.com\/accept-invitation\?token=([A-Za-z0-9]{43})$/.exec(invited.link)?.[1]
    expect(token).toBeDefined()
    const queued = await database.db
      .selectFrom('outbox')
      .select(['status', 'payload'])
      .where('ordering_key', '=', `invitation:${String(invited.invitation_id)}`)
      .executeTakeFirstOrThrow()
    expect(queued.status).toBe('pending')
    expect(JSON.parse(queued.payload)).toEqual({ id: invited.invitation_id, token })
    const body = { token, first_name: 'Nina', last_name: 'New', password }
    const joined = await call(app, undefined, 'POST', '/auth/invitation/accept/', { body })
    expect(joined.statusCode, joined.body).toBe(200)
    expect(joined.json()).toMatchObject({ organization_id: organizationId })
    expect((await call(app, undefined, 'POST', '/auth/invitation/accept/', { body })).statusCode).toBe(400)

    const human = await leadline(
      ['user', 'invite', ...db, '--org', organizationId, '--email', 'otto@invites.test'],
      APP,
    )
    expect(human.code, human.stderr).toBe(0)
    expect(human.stdout).toMatch(/^Invited otto@invites\.test to orga_\w+ as user \(invitation inv_\w+\)\./)
    expect(human.stdout).toMatch(/^https:\/\/crm\.example\.com\/accept-invitation\?token=\w{43}$/m)
  })

  it(
    'user invite refuses a member’s address and one invited already, with exit code 2',
    { timeout: 60_000 },
    async () => {
      const member = await leadline(['user', 'invite', ...db, '--org', organizationId, '--email', 'IVAN@invites.test'])
      expect(member.code).toBe(2)
      expect(member.stderr).toContain('IVAN@invites.test is already a member.')
      await linked(['user', 'invite', '--org', organizationId, '--email', 'pia@invites.test'])
      const again = await leadline(['user', 'invite', ...db, '--org', organizationId, '--email', 'pia@invites.test'])
      expect(again.code).toBe(2)
      expect(again.stderr).toContain('pia@invites.test was already invited; resend that invitation.')
    },
  )

  it('user reset-password queues the email and prints a link that sets the password once', async () => {
    const reset = await linked(['user', 'reset-password', '--email', 'Ivan@Invites.test'])
    expect(Object.keys(reset).sort()).toEqual(['email', 'link'])
    const token = /^https:\/\/crm\.example\.com\/reset-password\?token=([A-Za-z0-9]{43})$/.exec(reset.link)?.[1]
    expect(token).toBeDefined()
    const body = { token, password }
    expect((await call(app, undefined, 'POST', '/auth/password_reset/complete/', { body })).statusCode).toBe(200)
    expect((await call(app, undefined, 'POST', '/auth/password_reset/complete/', { body })).statusCode).toBe(400)
    const signIn = await call(app, undefined, 'POST', '/auth/sign_in/', {
      body: { email: 'ivan@invites.test', password },
    })
    expect(signIn.statusCode, signIn.body).toBe(200)
  })

  it('user reset-password refuses an address no member has, with exit code 1', async () => {
    const result = await leadline(['user', 'reset-password', ...db, '--email', 'ghost@invites.test'], APP)
    expect(result.code).toBe(1)
    expect(result.stdout).toBe('')
    expect(result.stderr).toContain('no active member has the address ghost@invites.test')
  })
})

describe('validation happens before the database is touched', () => {
  it('does not even create the SQLite file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'leadline-cli-'))
    try {
      const file = join(dir, 'never.db')
      const result = await leadline(['init', '--db', `sqlite:${file}`, '--org', 'X', '--email', 'nope'])
      expect(result.code).toBe(2)
      expect(existsSync(file)).toBe(false)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})

describe('leadline --help', () => {
  it('lists the commands', async () => {
    const result = await leadline(['--help'])
    expect(result.code).toBe(0)
    for (const command of [
      'serve',
      'migrate',
      'init',
      'user add',
      'user invite',
      'user reset-password',
      'key create',
      'key revoke',
      'seed demo',
      'import close',
      'reindex',
      'secret-key rotate',
    ]) {
      expect(result.stdout).toContain(`  ${command} `)
    }
  })

  it('shows a command’s own options', async () => {
    const result = await leadline(['user', 'add', '--help'])
    expect(result.code).toBe(0)
    expect(result.stdout).toMatch(/^Usage: leadline user add --org ORG_ID --email EMAIL \[--role admin\|user\]/)
  })

  it('documents how secret-key rotate takes the keys, and that it prints one only when asked', async () => {
    const result = await leadline(['secret-key', 'rotate', '--help'])
    expect(result.code).toBe(0)
    expect(result.stdout).toMatch(/^Usage: leadline secret-key rotate \(--new-key-file FILE \| --generate\)/)
    expect(result.stdout).toContain("The current key is this command's LEADLINE_SECRET_KEY")
    expect(result.stdout).toContain('print it: it is the only copy')
  })

  it('without a command, prints the usage on stderr and exits 2', async () => {
    const result = await leadline([])
    expect(result.code).toBe(2)
    expect(result.stdout).toBe('')
    expect(result.stderr).toContain('Usage: leadline <command>')
  })
})

describe('leadline seed demo', () => {
  it('creates Demo Company with an admin, a manager and two reps, each with a working key', async () => {
    const seeded = await leadlineJson(['seed', 'demo', ...db, '--leads', '25'])
    expect(Object.keys(seeded).sort()).toEqual(['organization_id', 'organization_name', 'users'])
    expect(seeded.organization_name).toBe('Demo Company')
    const users: Record<string, unknown>[] = seeded.users
    expect(users.map((u) => [u.title, u.role, u.first_name, u.last_name, u.email])).toEqual([
      ['admin', 'admin', 'Alex', 'Admin', 'admin@demo.leadline.test'],
      ['manager', 'admin', 'Morgan', 'Manager', 'manager@demo.leadline.test'],
      ['rep', 'user', 'Riley', 'Rep', 'riley@demo.leadline.test'],
      ['rep', 'user', 'Sam', 'Seller', 'sam@demo.leadline.test'],
    ])
    for (const user of users) {
      const res = await me(String(user.api_key))
      expect(res.statusCode).toBe(200)
      expect(res.json().id).toBe(user.user_id)
      expect(res.json().memberships).toEqual([
        expect.objectContaining({
          id: user.membership_id,
          organization_id: seeded.organization_id,
          role: user.role,
        }),
      ])
    }
  })
})

describe('leadline seed demo --leads', () => {
  it('creates that many realistic, searchable leads with contacts, notes and custom values', async () => {
    const seeded = await leadlineJson(['seed', 'demo', ...db, '--leads', '40'])
    const key = String(seeded.users[0].api_key)
    const list = await app.inject({
      method: 'GET',
      url: '/api/v1/lead/?_limit=200',
      headers: { authorization: basicAuth(key) },
    })
    expect(list.statusCode).toBe(200)
    const page = list.json()
    expect(page.total_results).toBe(40)
    for (const lead of page.data) {
      expect(lead.contacts.length).toBeGreaterThan(0)
      expect(lead.contacts[0].emails[0].email).toMatch(/@/)
      expect(lead.contacts[0].phones[0].phone).toMatch(/^\+1\d{10}$/)
      expect(lead.addresses).toHaveLength(1)
      expect(lead.custom).toHaveProperty('Industry')
      expect(lead.custom).toHaveProperty('Employees')
      // The account owner is a member of the demo organization.
      expect(seeded.users.map((u: { user_id: string }) => u.user_id)).toContain(lead.custom['Account owner'])
    }
    // Most first contacts have a decision role, a contact custom field.
    const roles = page.data.map(
      (l: { contacts: { custom: Record<string, unknown> }[] }) => l.contacts[0]?.custom['Decision role'],
    )
    expect(roles.filter((r: unknown) => r !== undefined).length).toBeGreaterThan(10)
    for (const role of roles.filter((r: unknown) => r !== undefined))
      expect(['Champion', 'Economic buyer', 'Technical buyer', 'Gatekeeper']).toContain(role)
    const first = page.data[0]
    const byContact = await app.inject({
      method: 'GET',
      url: `/api/v1/lead/?query=${encodeURIComponent(`"${String(first.contacts[0].name)}" name:"${String(first.name)}"`)}`,
      headers: { authorization: basicAuth(key) },
    })
    expect(byContact.json().data.map((l: { id: string }) => l.id)).toContain(first.id)
    const activities = await app.inject({
      method: 'GET',
      url: `/api/v1/activity/?lead_id=${String(first.id)}`,
      headers: { authorization: basicAuth(key) },
    })
    expect(activities.json().data.at(-1)._type).toBe('Created')
  })
})

describe('leadline reindex and the rebuild in leadline migrate', () => {
  const versionKey = 'lead_search_document_version'
  let key: string
  let leadId: string

  async function search(query: string): Promise<string[]> {
    const res = await app.inject({
      method: 'GET',
      url: `/api/v1/lead/?query=${encodeURIComponent(query)}`,
      headers: { authorization: basicAuth(key) },
    })
    expect(res.statusCode, res.body).toBe(200)
    return res.json().data.map((l: { id: string }) => l.id)
  }

  /**
   * Writes the lead's document as `body`, moving the lead's revision as every write of a document does (so that the
   * api's index reads it again, decision 0065).
   */
  async function writeDocument(body: string): Promise<void> {
    await database.db.updateTable('lead_search').set({ body }).where('lead_id', '=', leadId).execute()
    await database.db
      .updateTable('lead')
      .set((eb) => ({ revision: eb('revision', '+', 1) }))
      .where('id', '=', leadId)
      .execute()
  }

  /** Puts the lead's document back in the first format (no national phone forms) and records that format. */
  async function makeStale(): Promise<void> {
    await writeDocument('reindex me ltd\n+442079460958\n+44 20 7946 0958')
    await database.db.updateTable('app_state').set({ value: '1' }).where('key', '=', versionKey).execute()
  }

  async function leadCount(): Promise<number> {
    const row = await database.db
      .selectFrom('lead')
      .select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirstOrThrow()
    return Number(row.n)
  }

  beforeAll(async () => {
    const org = await leadlineJson(['init', ...db, '--org', 'Reindex Me', '--email', 'ops@reindex.test'])
    key = String(org.api_key)
    const res = await app.inject({
      method: 'POST',
      url: '/api/v1/lead/',
      headers: { authorization: basicAuth(key), 'content-type': 'application/json' },
      payload: JSON.stringify({ name: 'Reindex Me Ltd', contacts: [{ phones: [{ phone: '+44 20 7946 0958' }] }] }),
    })
    expect(res.statusCode, res.body).toBe(200)
    leadId = String(res.json().id)
  })

  it('migrate rebuilds documents in an older format, with progress on stderr', async () => {
    await makeStale()
    expect(await search('020 7946 0958')).toEqual([])
    const total = await leadCount()
    const result = await leadline(['migrate', ...db])
    expect(result.code, result.stderr).toBe(0)
    expect(result.stdout).toBe(
      `The database is up to date.\nRebuilt the search documents of ${total} leads (format ${SEARCH_DOCUMENT_VERSION}).\n`,
    )
    expect(result.stderr).toContain(`reindexed ${total}/${total} leads\n`)
    expect(await search('020 7946 0958')).toEqual([leadId])
    expect(await leadlineJson(['migrate', ...db])).toEqual({ applied: [], reindexed_leads: 0 })
  })

  it('reindex rebuilds every document even when the format is current', async () => {
    await writeDocument('stale')
    expect(await search('020 7946 0958')).toEqual([])
    expect(await leadlineJson(['reindex', ...db])).toEqual({
      reindexed_leads: await leadCount(),
      search_document_version: SEARCH_DOCUMENT_VERSION,
    })
    expect(await search('020 7946 0958')).toEqual([leadId])
    const human = await leadline(['reindex', ...db])
    expect(human.code, human.stderr).toBe(0)
    expect(human.stdout).toMatch(
      new RegExp(`^Rebuilt the search documents of \\d+ leads \\(format ${SEARCH_DOCUMENT_VERSION}\\)\\.\\n$`),
    )
  })

  it('seed demo on a new database records the current format, so the next start rebuilds nothing', async () => {
    const fresh = await createTestDatabase()
    try {
      await leadlineJson(['seed', 'demo', '--db', fresh.url, '--leads', '3'])
      const handle = openDatabase(fresh.url)
      try {
        const row = await handle.db
          .selectFrom('app_state')
          .select('value')
          .where('key', '=', versionKey)
          .executeTakeFirst()
        expect(row?.value).toBe(String(SEARCH_DOCUMENT_VERSION))
      } finally {
        await handle.close()
      }
    } finally {
      await fresh.drop()
    }
  })
})

describe('leadline serve', () => {
  function waitForLine(child: ChildProcessWithoutNullStreams, pattern: RegExp): Promise<RegExpExecArray> {
    return new Promise((resolve, reject) => {
      let seen = ''
      const onData = (chunk: Buffer) => {
        seen += chunk.toString()
        const match = pattern.exec(seen)
        if (match !== null) {
          child.stdout.off('data', onData)
          resolve(match)
        }
      }
      child.stdout.on('data', onData)
      child.once('exit', (code) => {
        reject(new Error(`leadline serve exited (${code}) before printing ${pattern}; stdout: ${seen}`))
      })
    })
  }

  function exitCode(child: ChildProcessWithoutNullStreams): Promise<number | null> {
    if (child.exitCode !== null) return Promise.resolve(child.exitCode)
    return new Promise((resolve) => {
      child.once('exit', (code) => {
        resolve(code)
      })
    })
  }

  it("runs an import on its thread when started with npm start's node flags (V8 flags a worker refuses)", async () => {
    const org = await leadlineJson(['init', ...db, '--org', 'Flags Import', '--email', 'ops@flags-import.test'])
    const child = spawn(
      process.execPath,
      [...API_NODE_FLAGS, cliPath, 'serve', '--port', '0', '--host', '127.0.0.1', ...db],
      { env: childEnv() },
    )
    try {
      const [, url] = await waitForLine(child, /listening on (http:\/\/127\.0\.0\.1:\d+)/)
      const authorization = basicAuth(String(org.api_key))
      const uploaded = await fetch(`${String(url)}/api/v1/import/?filename=flags.csv`, {
        method: 'POST',
        headers: { authorization, 'content-type': 'text/csv' },
        body: 'Company,Contact Name,Email\nAcme,Ada Lovelace,ada@acme.test\nGlobex,Hank Scorpio,hank@globex.test\n',
      })
      const made = (await uploaded.json()) as { id: string }
      expect(uploaded.status).toBe(201)
      const run = await fetch(`${String(url)}/api/v1/import/${made.id}/run/`, {
        method: 'POST',
        headers: { authorization },
      })
      expect(run.status, await run.text()).toBe(200)
      let state: { status: string; counts: Record<string, number> } = { status: '', counts: {} }
      for (let i = 0; i < 300 && state.status !== 'done' && state.status !== 'error'; i++) {
        await new Promise((resolve) => setTimeout(resolve, 100))
        const res = await fetch(`${String(url)}/api/v1/import/${made.id}/`, { headers: { authorization } })
        state = (await res.json()) as typeof state
      }
      expect(state.status).toBe('done')
      expect(state.counts).toMatchObject({ created: 2 })
    } finally {
      child.kill('SIGTERM')
      await exitCode(child)
    }
  })

  it('finishes an in-flight request after SIGTERM, then exits 0', async () => {
    const org = await leadlineJson(['init', ...db, '--org', 'Before Shutdown', '--email', 'ops@shutdown.test'])
    const child = spawn(process.execPath, [cliPath, 'serve', '--port', '0', '--host', '127.0.0.1', ...db], {
      env: childEnv(),
    })
    let stderr = ''
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
    try {
      const [, url] = await waitForLine(child, /listening on (http:\/\/127\.0\.0\.1:\d+)/)
      // A chunked body sent in two parts keeps the request in flight until the second part arrives.
      const response = new Promise<{ status: number | undefined; connection: string | undefined; body: string }>(
        (resolve, reject) => {
          const req = request(`${String(url)}/api/v1/organization/${String(org.organization_id)}/`, {
            method: 'PUT',
            headers: { authorization: basicAuth(String(org.api_key)), 'content-type': 'application/json' },
          })
          req.on('error', reject)
          req.on('response', (res) => {
            let body = ''
            res.on('data', (chunk: Buffer) => (body += chunk.toString()))
            res.on('end', () => {
              resolve({ status: res.statusCode, connection: res.headers.connection, body })
            })
          })
          req.write('{"name": "Renamed during')
          waitForLine(child, /incoming request/)
            .then(async () => {
              child.kill('SIGTERM')
              await waitForLine(child, /SIGTERM received/)
              req.end(' shutdown"}')
            })
            .catch(reject)
        },
      )
      const { status, connection, body } = await response
      expect(status, body).toBe(200)
      // Otherwise the idle keep-alive connection would hold the server open until it times out.
      expect(connection).toBe('close')
      expect(JSON.parse(body)).toMatchObject({ name: 'Renamed during shutdown' })
      expect(await exitCode(child)).toBe(0)
      expect(stderr).toBe('')
      const stored = await database.db
        .selectFrom('organization')
        .select('name')
        .where('id', '=', String(org.organization_id))
        .executeTakeFirstOrThrow()
      expect(stored.name).toBe('Renamed during shutdown')
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL')
    }
  })

  it('warns once at start when no system mailer is configured, and not when one is', { timeout: 60_000 }, async () => {
    /** What a server started with `env` logs until it has answered its first request. */
    async function startUpLog(env: NodeJS.ProcessEnv): Promise<string> {
      const child = spawn(process.execPath, [cliPath, 'serve', '--port', '0', '--host', '127.0.0.1', ...db], {
        env: { ...childEnv(), ...env },
      })
      let out = ''
      child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()))
      try {
        const [, url] = await waitForLine(child, /listening on (http:\/\/127\.0\.0\.1:\d+)/)
        // Start-up is over once a request is answered: what it logs comes before.
        const completed = waitForLine(child, /request completed/)
        await fetch(`${String(url)}/api/v1/openapi.json`)
        await completed
        return out
      } finally {
        child.kill('SIGKILL')
        await exitCode(child)
      }
    }
    const unset = await startUpLog({ LEADLINE_SYSTEM_SMTP_URL: '' })
    const warnings = unset.split('\n').filter((line) => line.includes('No system mailer is configured'))
    expect(warnings).toHaveLength(1)
    expect(JSON.parse(warnings[0] ?? '{}')).toMatchObject({
      level: 40,
      msg: 'No system mailer is configured (LEADLINE_SYSTEM_SMTP_URL): invitation and password-reset emails are not sent',
    })
    const set = await startUpLog({ LEADLINE_SYSTEM_SMTP_URL: 'smtp://127.0.0.1:2525' })
    expect(set).not.toContain('No system mailer')
  })

  it('loads no module that only sending mail, receiving it, single sign-on, metrics or Postgres needs until then', async () => {
    // A preload records every module the process resolves (the ESM hooks) and, on SIGUSR2, every CommonJS module
    // it holds (createRequire's cache: a require() from a CommonJS package passes no ESM hook).
    const dir = mkdtempSync(join(tmpdir(), 'leadline-modules-'))
    const resolved = join(dir, 'resolved.txt')
    const required = join(dir, 'required.txt')
    writeFileSync(
      join(dir, 'hooks.mjs'),
      `import { appendFileSync } from 'node:fs'
      let out
      export function initialize(data) { out = data.out }
      export async function resolve(specifier, context, next) {
        const found = await next(specifier, context)
        appendFileSync(out, found.url + '\\n')
        return found
      }`,
    )
    writeFileSync(
      join(dir, 'preload.mjs'),
      `import { createRequire, register } from 'node:module'
      import { renameSync, writeFileSync } from 'node:fs'
      register(new URL('./hooks.mjs', import.meta.url), { data: { out: ${JSON.stringify(resolved)} } })
      process.on('SIGUSR2', () => {
        writeFileSync(${JSON.stringify(`${required}.part`)}, Object.keys(createRequire(import.meta.url).cache).join('\\n'))
        renameSync(${JSON.stringify(`${required}.part`)}, ${JSON.stringify(required)})
      })`,
    )
    const org = await leadlineJson(['init', ...db, '--org', 'Modules', '--email', 'ops@modules.test'])
    const child = spawn(
      process.execPath,
      ['--import', join(dir, 'preload.mjs'), cliPath, 'serve', '--port', '0', '--host', '127.0.0.1', ...db],
      { env: childEnv() },
    )
    try {
      const [, url] = await waitForLine(child, /listening on (http:\/\/127\.0\.0\.1:\d+)/)
      for (const path of [
        '/api/v1/me/',
        '/api/v1/lead/?query=a',
        `/api/v1/organization/${String(org.organization_id)}/`,
      ]) {
        const res = await fetch(`${String(url)}${path}`, { headers: { authorization: basicAuth(String(org.api_key)) } })
        expect(res.status).toBe(200)
      }
      child.kill('SIGUSR2')
      await vi.waitFor(
        () => {
          expect(existsSync(required)).toBe(true)
        },
        { timeout: 10_000 },
      )
      const modules = [readFileSync(resolved, 'utf8'), readFileSync(required, 'utf8')].join('\n').split('\n')
      const loaded = (name: string) => modules.some((path) => path.includes(`/node_modules/${name}/`))
      // The record sees what a request needs, both kinds of module.
      expect(loaded('fastify')).toBe(true)
      expect(loaded('better-sqlite3')).toBe(true)
      for (const name of [
        'nodemailer',
        'openid-client',
        'mailauth',
        'mailparser',
        'prom-client',
        '@opentelemetry/api',
        '@zxcvbn-ts/core',
        'liquidjs',
      ])
        expect(loaded(name), name).toBe(false)
      expect(loaded('pg'), 'pg').toBe(testDb.url.startsWith('postgres'))
    } finally {
      child.kill('SIGKILL')
      await exitCode(child)
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it('on SIGTERM turns /readyz 503 first, serves on for LEADLINE_DRAIN_SECONDS, then exits 0', async () => {
    const org = await leadlineJson(['init', ...db, '--org', 'Draining', '--email', 'ops@draining.test'])
    const child = spawn(process.execPath, [cliPath, 'serve', '--port', '0', '--host', '127.0.0.1', ...db], {
      env: { ...childEnv(), LEADLINE_DRAIN_SECONDS: '2' },
    })
    try {
      const [, url] = await waitForLine(child, /listening on (http:\/\/127\.0\.0\.1:\d+)/)
      const get = async (path: string) => {
        const res = await fetch(`${String(url)}${path}`, { headers: { authorization: basicAuth(String(org.api_key)) } })
        return { status: res.status, body: (await res.json()) as Record<string, unknown> }
      }
      // Ready once its lead indexes are built: the database may hold other tests' leads.
      for (const until = Date.now() + 10_000; (await get('/readyz')).status !== 200 && Date.now() < until;)
        await new Promise((resolve) => setTimeout(resolve, 50))
      expect(await get('/readyz')).toMatchObject({ status: 200, body: { status: 'ready', draining: false } })
      const stopped = exitCode(child)
      const signalled = Date.now()
      child.kill('SIGTERM')
      await waitForLine(child, /not ready \(\/readyz answers 503\)/)
      expect(await get('/readyz')).toMatchObject({ status: 503, body: { status: 'not ready', draining: true } })
      expect((await get('/healthz')).status).toBe(200)
      // Requests a load balancer still sends while it notices are served as before.
      expect(await get('/api/v1/me/')).toMatchObject({ status: 200, body: { email: 'ops@draining.test' } })
      expect(await stopped).toBe(0)
      expect(Date.now() - signalled).toBeGreaterThanOrEqual(2_000)
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL')
    }
  })

  it('builds the lead search indexes when it starts, and is ready once they are built', async () => {
    const seeded = await leadlineJson(['seed', 'demo', ...db, '--leads', '25'])
    const child = spawn(process.execPath, [cliPath, 'serve', '--port', '0', '--host', '127.0.0.1', ...db], {
      env: childEnv(),
    })
    try {
      const built = waitForLine(child, /lead search indexes built for (\d+) organizations \((\d+) leads\)/)
      const [, url] = await waitForLine(child, /listening on (http:\/\/127\.0\.0\.1:\d+)/)
      const [, organizations, leads] = await built
      expect(Number(organizations)).toBeGreaterThanOrEqual(1)
      expect(Number(leads)).toBeGreaterThanOrEqual(25)
      const ready = await fetch(`${String(url)}/readyz`)
      expect({ status: ready.status, body: await ready.json() }).toMatchObject({
        status: 200,
        body: { status: 'ready', warming: false },
      })
      const users = seeded.users as { api_key: string }[]
      const leadsPage = await fetch(`${String(url)}/api/v1/lead/?_limit=1`, {
        headers: { authorization: basicAuth(String(users[0]?.api_key)) },
      })
      expect(((await leadsPage.json()) as { total_results: number }).total_results).toBe(25)
    } finally {
      child.kill('SIGKILL')
      await exitCode(child)
    }
  })

  it('does not wait for idle keep-alive connections when it stops', async () => {
    const org = await leadlineJson(['init', ...db, '--org', 'Idle Client', '--email', 'ops@idle-client.test'])
    const child = spawn(process.execPath, [cliPath, 'serve', '--port', '0', '--host', '127.0.0.1', ...db], {
      env: childEnv(),
    })
    const agent = new Agent({ keepAlive: true, keepAliveMsecs: 60_000 })
    try {
      const [, url] = await waitForLine(child, /listening on (http:\/\/127\.0\.0\.1:\d+)/)
      const status = await new Promise<number | undefined>((resolve, reject) => {
        const req = request(`${String(url)}/api/v1/me/`, {
          agent,
          headers: { authorization: basicAuth(String(org.api_key)) },
        })
        req.on('error', reject)
        req.on('response', (res) => {
          res.resume()
          res.on('end', () => {
            resolve(res.statusCode)
          })
        })
        req.end()
      })
      expect(status).toBe(200)
      // The agent now holds an idle connection the server must close itself, long before its keep-alive timeout.
      child.kill('SIGTERM')
      expect(await exitCode(child)).toBe(0)
    } finally {
      agent.destroy()
      if (child.exitCode === null) child.kill('SIGKILL')
    }
  })

  it('with --json prints {"url"} alone on stdout and serves requests', async () => {
    const org = await leadlineJson(['init', ...db, '--org', 'Json Serve', '--email', 'ops@json-serve.test'])
    const child = spawn(process.execPath, [cliPath, 'serve', '--port', '0', '--host', '127.0.0.1', '--json', ...db], {
      env: childEnv(),
    })
    try {
      const [line] = await waitForLine(child, /^.*\n/)
      const { url } = JSON.parse(line)
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
      const res = await fetch(`${String(url)}/api/v1/me/`, {
        headers: { authorization: basicAuth(String(org.api_key)) },
      })
      expect(res.status).toBe(200)
      let stdout = ''
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()))
      child.kill('SIGINT')
      expect(await exitCode(child)).toBe(0)
      expect(stdout).toBe('')
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL')
    }
  })
})
