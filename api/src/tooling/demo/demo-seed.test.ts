import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { openDatabase, type DatabaseHandle } from '../../platform/data/database.js'
import { migrateToLatest } from '../../platform/data/migrate.js'
import { provisionOrganization } from '../../crm/organizations/provision.js'
import { formatTimestamp, type Clock } from '../../platform/data/time.js'
import { createTestDatabase, TestClock, type TestDatabase } from '../test-support/test-app.js'
import { seedDemoLeads } from './demo-leads.js'
import { seedDemoOrganization } from './demo-seed.js'
import { verifyPassword } from '../../accounts/passwords.js'

const DAY_MS = 86_400_000

/** A clock that fails at its Nth reading: a crash at a chosen point of a write. */
class FailingClock implements Clock {
  readings = 0
  constructor(
    private readonly failAt: number,
    private readonly inner = new TestClock(),
  ) {}
  now(): Date {
    this.readings++
    if (this.readings === this.failAt) throw new Error('the process died here')
    return this.inner.now()
  }
}

let testDb: TestDatabase
let database: DatabaseHandle

beforeEach(async () => {
  testDb = await createTestDatabase()
  database = openDatabase(testDb.url)
  await migrateToLatest(database.db)
})

afterEach(async () => {
  await database.close()
  await testDb.drop()
})

async function counts() {
  const count = async (table: 'organization' | 'user' | 'api_key') =>
    Number(
      (
        await database.db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    )
  return { organizations: await count('organization'), users: await count('user'), keys: await count('api_key') }
}

describe('seedDemoOrganization', () => {
  it('creates the organization with an admin, a manager and two reps', async () => {
    const demo = await seedDemoOrganization(database.db, new TestClock())
    expect(demo.users.map((u) => u.title)).toEqual(['admin', 'manager', 'rep', 'rep'])
    expect(await counts()).toEqual({ organizations: 1, users: 4, keys: 4 })
  })

  it('gives each user a password of their own, stored only as its argon2id hash', async () => {
    const demo = await seedDemoOrganization(database.db, new TestClock())
    const passwords = new Set(demo.users.map((u) => u.password))
    expect(passwords.size).toBe(demo.users.length)
    for (const user of demo.users) {
      const row = await database.db
        .selectFrom('user')
        .select('password_hash')
        .where('id', '=', user.user_id)
        .executeTakeFirstOrThrow()
      expect(row.password_hash).toMatch(/^\$argon2id\$/)
      expect(await verifyPassword(row.password_hash, user.password)).toBe(true)
      expect(await verifyPassword(row.password_hash, `${user.password}x`)).toBe(false)
    }
  })

  it('gives it internal numbers to text from: a main line, and a direct line owned by each rep', async () => {
    const demo = await seedDemoOrganization(database.db, new TestClock())
    const numbers = await database.db
      .selectFrom('phone_number')
      .select(['number', 'type', 'user_id', 'organization_id'])
      .orderBy('number')
      .execute()
    const reps = demo.users.filter((u) => u.title === 'rep').map((u) => u.user_id)
    expect(numbers).toEqual([
      { number: '+14155550100', type: 'internal', user_id: null, organization_id: demo.organization_id },
      { number: '+14155550101', type: 'internal', user_id: reps[0], organization_id: demo.organization_id },
      { number: '+14155550102', type: 'internal', user_id: reps[1], organization_id: demo.organization_id },
    ])
  })

  it('gives it shared email templates, by its admin', async () => {
    const demo = await seedDemoOrganization(database.db, new TestClock())
    const templates = await database.db
      .selectFrom('email_template')
      .select(['name', 'is_shared', 'created_by', 'organization_id'])
      .orderBy('name')
      .execute()
    const admin = demo.users[0]?.user_id
    expect(templates).toEqual(
      ['Follow-up', 'Intro', 'Meeting recap'].map((name) => ({
        name,
        is_shared: 1,
        created_by: admin,
        organization_id: demo.organization_id,
      })),
    )
  })

  it('gives the admin an email account sending through localhost:2525, plain, without a password', async () => {
    const demo = await seedDemoOrganization(database.db, new TestClock())
    const admin = demo.users.find((u) => u.title === 'admin')
    const accounts = await database.db
      .selectFrom('email_account')
      .select(['organization_id', 'user_id', 'email', 'smtp_host', 'smtp_port', 'smtp_password', 'smtp_use_ssl'])
      .execute()
    expect(accounts).toEqual([
      {
        organization_id: demo.organization_id,
        user_id: admin?.user_id,
        email: 'admin@demo.leadline.test',
        smtp_host: 'localhost',
        smtp_port: 2525,
        smtp_password: null,
        smtp_use_ssl: 0,
      },
    ])
  })

  it('stores nothing when it fails after the organization and its admin were written', async () => {
    // How many clock readings creating the organization and its admin takes, measured on a throwaway database.
    const scratch = await createTestDatabase()
    const scratchDb = openDatabase(scratch.url)
    await migrateToLatest(scratchDb.db)
    const probe = new FailingClock(Number.POSITIVE_INFINITY)
    await provisionOrganization(scratchDb.db, probe, { name: 'Probe', email: 'probe@example.com' })
    await scratchDb.close()
    await scratch.drop()

    await expect(seedDemoOrganization(database.db, new FailingClock(probe.readings + 2))).rejects.toThrow(
      'the process died here',
    )
    expect(await counts()).toEqual({ organizations: 0, users: 0, keys: 0 })
  })
})

describe('seedDemoLeads', () => {
  // 1000 leads: enough that, unclamped, some would be created late enough for a change to land after now.
  it('dates no lead, opportunity or activity after now, and leads 30 days to a year back', async () => {
    const clock = new TestClock(new Date('2026-03-01T12:00:00.000Z'))
    const demo = await seedDemoOrganization(database.db, clock)
    const created = await seedDemoLeads(database.db, clock, demo.organization_id, 1000)
    const nowMs = clock.now().getTime()
    const wire = (ms: number) => formatTimestamp(new Date(ms))
    const timestamp = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}\+00:00$/
    // An empty table's min() and max() are null, whatever their type says: checked here, not compared blindly.
    const span = async (table: 'lead' | 'activity' | 'opportunity', column: 'date_created' | 'date_updated') => {
      const row: { earliest: string | null; latest: string | null } = await database.db
        .selectFrom(table)
        .select((eb) => [eb.fn.min(column).as('earliest'), eb.fn.max(column).as('latest')])
        .executeTakeFirstOrThrow()
      expect(row.earliest, `${table}.${column}`).toMatch(timestamp)
      expect(row.latest, `${table}.${column}`).toMatch(timestamp)
      return { earliest: row.earliest ?? '', latest: row.latest ?? '' }
    }

    expect(created).toBe(1000)
    const leads = await database.db
      .selectFrom('lead')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('organization_id', '=', demo.organization_id)
      .executeTakeFirstOrThrow()
    expect(Number(leads.n)).toBe(1000)

    for (const table of ['lead', 'activity', 'opportunity'] as const) {
      for (const column of ['date_created', 'date_updated'] as const) {
        const { latest } = await span(table, column)
        expect(latest <= wire(nowMs), `${table}.${column}: ${latest}`).toBe(true)
      }
    }
    // Some changes were clamped to the seed's now: without the clamp they would lie in the future.
    expect((await span('activity', 'date_created')).latest >= wire(nowMs - 60_000)).toBe(true)

    const leadCreated = await span('lead', 'date_created')
    expect(leadCreated.earliest >= wire(nowMs - 366 * DAY_MS)).toBe(true)
    expect(leadCreated.latest <= wire(nowMs - 30 * DAY_MS)).toBe(true)
    const updatedBeforeCreated = await database.db
      .selectFrom('lead')
      .select('id')
      .whereRef('date_updated', '<', 'date_created')
      .execute()
    expect(updatedBeforeCreated).toEqual([])

    const changes = await database.db
      .selectFrom('activity')
      .select('id')
      .where('type', '=', 'LeadStatusChange')
      .execute()
    expect(changes.length).toBeGreaterThan(0)
  })
})
