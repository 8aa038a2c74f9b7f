import { execFile } from 'node:child_process'
import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { EmailAccountView } from '@leadline/shared/email-account-schema'
import { buildApp } from '../../app/app.js'
import { loadConfig, type Config } from '../../platform/config.js'
import { openDatabase, type DatabaseHandle } from '../../platform/data/database.js'
import { migrateToLatest } from '../../platform/data/migrate.js'
import { cliPath } from '../../tooling/test-support/api-process.js'
import {
  call,
  createOrg,
  createTestDatabase,
  TEST_SECRET_KEY,
  TestClock,
  type TestDatabase,
  type TestOrg,
} from '../../tooling/test-support/test-app.js'
import { findEmailAccount } from './email-account-repo.js'

// `leadline email-account add|list` as an operator runs them: the built CLI in its own process, on the database an
// api serves, with the api's LEADLINE_SECRET_KEY.

let testDb: TestDatabase
let database: DatabaseHandle
let app: FastifyInstance
let org: TestOrg
const clock = new TestClock(new Date())
let config: Config

beforeAll(async () => {
  testDb = await createTestDatabase()
  database = openDatabase(testDb.url)
  await migrateToLatest(database.db)
  config = loadConfig({ DATABASE_URL: testDb.url, LEADLINE_SECRET_KEY: TEST_SECRET_KEY })
  app = await buildApp({ database, config, clock, logger: false })
  org = await createOrg(database, clock, 'Operators')
})

afterAll(async () => {
  await app.close()
  await database.close()
  await testDb.drop()
})

interface Result {
  code: number
  stdout: string
  stderr: string
}

function leadline(args: string[], env: Record<string, string | undefined> = {}): Promise<Result> {
  // A variable given as undefined is unset in the child.
  const childEnv: Record<string, string> = {}
  const wanted: Record<string, string | undefined> = { ...process.env, LEADLINE_SECRET_KEY: TEST_SECRET_KEY, ...env }
  for (const [name, value] of Object.entries(wanted)) if (value !== undefined) childEnv[name] = value
  return new Promise((resolve) => {
    execFile(process.execPath, [cliPath, ...args, '--db', testDb.url], { env: childEnv }, (error, stdout, stderr) => {
      resolve({ code: error === null ? 0 : Number(error.code), stdout, stderr })
    })
  })
}

async function json(args: string[], env: Record<string, string | undefined> = {}): Promise<Record<string, unknown>> {
  const result = await leadline([...args, '--json'], env)
  expect(result.code, result.stderr).toBe(0)
  expect(result.stdout.trimEnd().split('\n')).toHaveLength(1)
  return JSON.parse(result.stdout) as Record<string, unknown>
}

/** The one line before the usage hint of a command that exited 2. */
async function refused(args: string[], env: Record<string, string | undefined> = {}): Promise<string> {
  const result = await leadline(args, env)
  expect(result.code, result.stderr).toBe(2)
  expect(result.stdout).toBe('')
  const [line, hint] = result.stderr.trimEnd().split('\n')
  expect(hint).toMatch(/^Run "leadline email-account (add|list) --help" for usage\.$/)
  return line ?? ''
}

function add(email: string, more: string[] = []): string[] {
  return [
    'email-account',
    'add',
    '--org',
    org.id,
    '--user',
    org.member.id,
    '--email',
    email,
    '--smtp-host',
    'smtp.example.com',
    '--smtp-port',
    '587',
    ...more,
  ]
}

// Each run starts a process that loads the whole api: seconds apiece on a busy machine.
describe('leadline email-account', { timeout: 180_000 }, () => {
  // The second test refuses a second account for plain@.
  it('adds accounts the api serves, the password read from the named variable and stored encrypted', async () => {
    const added = await json(add('Rey@Operators.example', ['--smtp-user', 'rey', '--smtp-password-env', 'REY_PW']), {
      REY_PW: 's3cret from env',
    })
    expect(Object.keys(added)).toEqual(['email_account_id'])
    const id = String(added.email_account_id)
    const shown = await call(app, org.member.key, 'GET', `/email_account/${id}/`)
    expect(shown.statusCode).toBe(200)
    expect(shown.json()).toMatchObject({
      user_id: org.member.id,
      email: 'rey@operators.example',
      identities: [{ name: 'Rey Rep', email: 'rey@operators.example' }],
      smtp: { host: 'smtp.example.com', port: 587, username: 'rey', use_ssl: true, has_password: true },
      created_by: null,
    })
    expect((await findEmailAccount(database.db, config.secretBox, org.id, id))?.smtp.password).toBe('s3cret from env')

    const plain = await json(add('plain@operators.example', ['--no-ssl']))
    const plainShown = await call(app, org.admin.key, 'GET', `/email_account/${String(plain.email_account_id)}/`)
    expect(plainShown.json().smtp).toMatchObject({ use_ssl: false, username: null, has_password: false })

    const listed = await json(['email-account', 'list', '--org', org.id])
    const api = await call(app, org.admin.key, 'GET', '/email_account/')
    expect(listed).toEqual({ data: api.json<{ data: EmailAccountView[] }>().data })
    expect(JSON.stringify(listed)).not.toContain('s3cret')
  })

  it('refuses bad input with exit code 2 and one line naming each flag', async () => {
    expect(await refused(add('not-an-address', ['--smtp-host', 'smtp://x.example', '--smtp-port', '25x']))).toBe(
      'leadline email-account add: --email: Enter a valid email address.; --smtp-host: Enter a host name or an IP ' +
        'address, without a scheme or port.; --smtp-port: Enter a port from 1 to 65535.',
    )
    expect(await refused(add('PLAIN@operators.example'))).toBe(
      `leadline email-account add: --email: organization "${org.id}" already has an email account for PLAIN@operators.example`,
    )
    expect(await refused(add('x@operators.example', ['--smtp-password-env', 'NOT_SET_ANYWHERE']))).toBe(
      'leadline email-account add: --smtp-password-env: the environment variable NOT_SET_ANYWHERE is empty or not set',
    )
    // A password never travels in the arguments, where process lists show it.
    expect(await refused(add('x@operators.example', ['--smtp-password', 'in-argv']))).toBe(
      'leadline email-account add: unknown option --smtp-password',
    )
    const stranger = ['email-account', 'add', '--org', org.id, '--user', 'user_stranger', '--email', 'x@o.example']
    expect(await refused([...stranger, '--smtp-host', 'h', '--smtp-port', '25'])).toBe(
      'leadline email-account add: --user: Not a user of your organization.',
    )
    expect(await refused(['email-account', 'list', '--org', 'orga_nobody'])).toBe(
      'leadline email-account list: unknown organization "orga_nobody"',
    )
  })

  it('refuses a password without LEADLINE_SECRET_KEY, and a malformed key, storing nothing', async () => {
    expect(
      await refused(add('nokey@operators.example', ['--smtp-password-env', 'PW']), {
        PW: 'x',
        LEADLINE_SECRET_KEY: undefined,
      }),
    ).toMatch(/^leadline email-account add: --smtp-password-env: .*no LEADLINE_SECRET_KEY/)
    expect(await refused(add('nokey@operators.example'), { LEADLINE_SECRET_KEY: 'short' })).toMatch(
      /^leadline email-account add: LEADLINE_SECRET_KEY must be 32 random bytes/,
    )
    const api = await call(app, org.admin.key, 'GET', '/email_account/')
    expect(api.json<{ data: EmailAccountView[] }>().data.map((a) => a.email)).not.toContain('nokey@operators.example')
  })
})
