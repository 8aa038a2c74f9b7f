import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openDatabase, type DatabaseHandle } from '../../platform/data/database.js'
import { migrateToLatest, migrateUpTo } from '../../platform/data/migrate.js'
import { createOrg, createTestDatabase, TestClock, type TestDatabase } from '../../tooling/test-support/test-app.js'
import { accountsForAddresses } from './email-account-repo.js'

// Migration 0025 on accounts stored before addresses were verified (decision 0038): an own address nobody else has
// as their own stays verified and keeps receiving; identities, and an own address two organizations both have,
// start unverified and receive nothing; nothing is deleted.

let testDb: TestDatabase
let database: DatabaseHandle
const clock = new TestClock()
const orgs: Record<string, string> = {}

/** An account as 0020 stored it: the row, its identities' JSON, and an address row per address. */
async function oldAccount(org: string, user: string, id: string, email: string, identities: string[]) {
  const now = '2026-01-01T00:00:00.000000+00:00'
  const all = [email, ...identities]
  await sql`insert into email_account (id, organization_id, user_id, email, identities, smtp_host, smtp_port,
      smtp_use_ssl, date_created, date_updated)
    values (${id}, ${org}, ${user}, ${email}, ${JSON.stringify(all.map((address) => ({ name: '', email: address })))},
      'smtp.example.com', 587, 1, ${now}, ${now})`.execute(database.db)
  for (const address of all)
    await sql`insert into email_account_address (email_account_id, organization_id, address)
      values (${id}, ${org}, ${address})`.execute(database.db)
}

beforeAll(async () => {
  testDb = await createTestDatabase()
  database = openDatabase(testDb.url)
  expect(await migrateUpTo(database.db, '0024-email-attachment-uploads')).toContain('0024-email-attachment-uploads')
  const a = await createOrg(database, clock, 'Owner')
  const b = await createOrg(database, clock, 'Copier')
  const c = await createOrg(database, clock, 'Twin one')
  const d = await createOrg(database, clock, 'Twin two')
  Object.assign(orgs, { a: a.id, b: b.id, c: c.id, d: d.id })
  // A's own address, which B listed as an identity to get copies of A's mail.
  await oldAccount(a.id, a.member.id, 'emailacct_a', 'ann@owner.example', ['team@owner.example'])
  await oldAccount(b.id, b.member.id, 'emailacct_b', 'bob@copier.example', ['ann@owner.example'])
  // Two organizations whose accounts both have the same own address.
  await oldAccount(c.id, c.member.id, 'emailacct_c', 'twin@both.example', [])
  await oldAccount(d.id, d.member.id, 'emailacct_d', 'twin@both.example', [])
  expect(await migrateToLatest(database.db)).toContain('0025-email-address-owners')
})
afterAll(async () => {
  await database.close()
  await testDb.drop()
})

async function verified(accountId: string): Promise<Record<string, number>> {
  const rows = await database.db
    .selectFrom('email_account_address')
    .select(['address', 'verified'])
    .where('email_account_id', '=', accountId)
    .execute()
  return Object.fromEntries(rows.map((row) => [row.address, row.verified]))
}

describe('migration 0025', () => {
  it('keeps an own address verified that no other organization has as its own; identities start unverified', async () => {
    expect(await verified('emailacct_a')).toEqual({ 'ann@owner.example': 1, 'team@owner.example': 0 })
    expect(await verified('emailacct_b')).toEqual({ 'bob@copier.example': 1, 'ann@owner.example': 0 })
  })

  it("stops B's copies of A's mail: A's address now finds A's account only", async () => {
    const found = await accountsForAddresses(database.db, null, ['ann@owner.example'])
    expect(found.map((account) => account.id)).toEqual(['emailacct_a'])
  })

  it('leaves an own address two organizations both have unverified in both, receiving nowhere', async () => {
    expect(await verified('emailacct_c')).toEqual({ 'twin@both.example': 0 })
    expect(await verified('emailacct_d')).toEqual({ 'twin@both.example': 0 })
    expect(await accountsForAddresses(database.db, null, ['twin@both.example'])).toEqual([])
  })

  it('deletes no account, identity or address', async () => {
    const accounts = await database.db.selectFrom('email_account').select('id').orderBy('id').execute()
    expect(accounts.map((row) => row.id)).toEqual(['emailacct_a', 'emailacct_b', 'emailacct_c', 'emailacct_d'])
    const addresses = await database.db.selectFrom('email_account_address').select('address').execute()
    expect(addresses).toHaveLength(6)
  })

  it('lets the database refuse a second verified copy of an address, whatever its case', async () => {
    await expect(
      database.db
        .updateTable('email_account_address')
        .set({ verified: 1 })
        .where('email_account_id', '=', 'emailacct_b')
        .where('address', '=', 'ann@owner.example')
        .execute(),
    ).rejects.toThrow()
    await expect(
      sql`insert into email_account_address (email_account_id, organization_id, address, verified)
        values ('emailacct_c', ${orgs.c ?? ''}, 'ANN@Owner.example', 1)`.execute(database.db),
    ).rejects.toThrow()
  })
})
