import { randomBytes } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SecretBox } from '../../platform/security/secret-box.js'
import { createTestContext, type TestContext } from '../../tooling/test-support/test-app.js'
import { checkedEmailAccount } from './email-account-input.js'
import {
  accountForSender,
  accountsForAddresses,
  AddressTakenError,
  EmailAccountSecretError,
  findEmailAccount,
  insertEmailAccount,
  type EmailAccount,
} from './email-account-repo.js'

// The functions sending and incoming mail use, on a database the api migrated, with the test app's key in use.

let ctx: TestContext
let box: SecretBox

async function account(
  organizationId: string,
  userId: string,
  email: string,
  options: { identities?: { name: string; email: string }[]; password?: string | null; trusted?: string[] } = {},
): Promise<EmailAccount> {
  const fields = checkedEmailAccount(
    {
      email,
      identities: options.identities ?? [],
      smtp: { host: 'smtp.example.com', port: 587, username: email, use_ssl: false },
    },
    'Owner',
  )
  const row = await insertEmailAccount(
    ctx.database.db,
    box,
    { organizationId, userId, fields, password: options.password ?? null, trusted: options.trusted ?? [] },
    { actorId: userId, now: new Date().toISOString() },
  )
  const found = await findEmailAccount(ctx.database.db, box, organizationId, row.id)
  if (found === undefined) throw new Error('the account just stored is missing')
  return found
}

let rep: { first: EmailAccount; second: EmailAccount }
let admin: EmailAccount
let elsewhere: EmailAccount

beforeAll(async () => {
  ctx = await createTestContext()
  if (ctx.config.secretBox === null) throw new Error('the test app has a LEADLINE_SECRET_KEY')
  box = ctx.config.secretBox
  rep = {
    first: await account(ctx.org.id, ctx.org.member.id, 'Rey@Acme.example', {
      identities: [{ name: 'Acme Sales', email: 'Sales@Acme.example' }],
      password: 'rey-secret',
      trusted: ['rey@acme.example', 'sales@acme.example'],
    }),
    second: await account(ctx.org.id, ctx.org.member.id, 'rey.other@acme.example', {
      trusted: ['rey.other@acme.example'],
    }),
  }
  // team@ is nobody's yet: the admin's identity and another organization's account of it both wait for a link.
  admin = await account(ctx.org.id, ctx.org.admin.id, 'ada@acme.example', {
    identities: [{ name: 'Acme Team', email: 'team@acme.example' }],
    trusted: ['ada@acme.example'],
  })
  elsewhere = await account(ctx.other.id, ctx.other.admin.id, 'team@acme.example')
})

afterAll(async () => {
  await ctx.close()
})

describe('findEmailAccount', () => {
  it('gives the account with its password decrypted, and its own address as the first identity', async () => {
    expect(await findEmailAccount(ctx.database.db, box, ctx.org.id, rep.first.id)).toEqual({
      id: rep.first.id,
      organizationId: ctx.org.id,
      userId: ctx.org.member.id,
      email: 'rey@acme.example',
      identities: [
        { name: 'Owner', email: 'rey@acme.example' },
        { name: 'Acme Sales', email: 'sales@acme.example' },
      ],
      smtp: {
        host: 'smtp.example.com',
        port: 587,
        username: 'Rey@Acme.example',
        password: 'rey-secret',
        useSsl: false,
      },
    })
    expect(rep.second.smtp.password).toBeNull()
  })

  it("is undefined for another organization's account and an unknown id", async () => {
    expect(await findEmailAccount(ctx.database.db, box, ctx.other.id, rep.first.id)).toBeUndefined()
    expect(await findEmailAccount(ctx.database.db, box, ctx.org.id, 'emailacct_nothing')).toBeUndefined()
  })

  it('throws EmailAccountSecretError, saying why, when the key changed or the server has none', async () => {
    const changed = findEmailAccount(ctx.database.db, new SecretBox(randomBytes(32)), ctx.org.id, rep.first.id)
    await expect(changed).rejects.toThrow(EmailAccountSecretError)
    await expect(changed).rejects.toThrow(/does not decrypt .* \(the key changed\)/)
    await expect(findEmailAccount(ctx.database.db, null, ctx.org.id, rep.first.id)).rejects.toThrow(
      /this server has no LEADLINE_SECRET_KEY/,
    )
    // An account without a password needs no key.
    expect((await findEmailAccount(ctx.database.db, box, ctx.org.id, rep.second.id))?.id).toBe(rep.second.id)
  })

  it('does not open a password copied from another account', async () => {
    const sealed = await ctx.database.db
      .selectFrom('email_account')
      .select('smtp_password')
      .where('id', '=', rep.first.id)
      .executeTakeFirstOrThrow()
    await ctx.database.db
      .updateTable('email_account')
      .set({ smtp_password: sealed.smtp_password })
      .where('id', '=', rep.second.id)
      .execute()
    await expect(findEmailAccount(ctx.database.db, box, ctx.org.id, rep.second.id)).rejects.toThrow(
      EmailAccountSecretError,
    )
    await ctx.database.db
      .updateTable('email_account')
      .set({ smtp_password: null })
      .where('id', '=', rep.second.id)
      .execute()
  })
})

describe('accountForSender', () => {
  const sender = (userId: string, address: string | null) =>
    accountForSender(ctx.database.db, box, ctx.org.id, userId, address)

  it("finds the user's account by its address or an identity's, ignoring case; null gives the first", async () => {
    expect((await sender(ctx.org.member.id, 'REY.other@acme.example'))?.id).toBe(rep.second.id)
    expect((await sender(ctx.org.member.id, ' sales@ACME.example '))?.id).toBe(rep.first.id)
    expect((await sender(ctx.org.member.id, null))?.id).toBe(rep.first.id)
    expect((await sender(ctx.org.member.id, null))?.smtp.password).toBe('rey-secret')
    // The admin sends as their verified address, never as their unverified identity, and never through the rep's.
    expect((await sender(ctx.org.admin.id, 'ada@acme.example'))?.id).toBe(admin.id)
    expect(await sender(ctx.org.admin.id, 'team@acme.example')).toBeUndefined()
    expect(await sender(ctx.org.admin.id, 'sales@acme.example')).toBeUndefined()
  })

  it("is undefined for an address the user does not send as, another user's, or a user with no account", async () => {
    expect(await sender(ctx.org.member.id, 'nobody@acme.example')).toBeUndefined()
    expect(await sender(ctx.org.member.id, 'ada@acme.example')).toBeUndefined()
    expect(await sender(ctx.other.member.id, null)).toBeUndefined()
    expect(await accountForSender(ctx.database.db, box, ctx.other.id, ctx.org.member.id, null)).toBeUndefined()
  })
})

describe('accountsForAddresses', () => {
  const ids = (accounts: EmailAccount[]) => accounts.map((a) => a.id)

  it('finds the account of the organization that verified one of the addresses, by address or identity', async () => {
    expect(ids(await accountsForAddresses(ctx.database.db, ctx.org.id, ['sales@acme.example']))).toEqual([rep.first.id])
    expect(
      ids(await accountsForAddresses(ctx.database.db, ctx.org.id, ['Rey.Other@acme.example', 'x@y.example'])),
    ).toEqual([rep.second.id])
    expect(await accountsForAddresses(ctx.database.db, ctx.org.id, [])).toEqual([])
    expect(await accountsForAddresses(ctx.database.db, ctx.other.id, ['rey@acme.example'])).toEqual([])
  })

  it('searches every organization when it is null, where an address is verified for one account at most', async () => {
    expect(ids(await accountsForAddresses(ctx.database.db, null, ['sales@acme.example']))).toEqual([rep.first.id])
    // Unverified addresses receive nothing, in any organization.
    expect(await accountsForAddresses(ctx.database.db, null, ['team@acme.example'])).toEqual([])
    expect(elsewhere.organizationId).toBe(ctx.other.id)
  })

  it('refuses an address another account verified, in any organization', async () => {
    await expect(account(ctx.other.id, ctx.other.admin.id, 'SALES@acme.example')).rejects.toThrow(AddressTakenError)
    await expect(
      account(ctx.org.id, ctx.org.admin.id, 'x@acme.example', {
        identities: [{ name: '', email: 'rey@acme.example' }],
      }),
    ).rejects.toThrow(AddressTakenError)
  })

  it('does not decrypt passwords, so incoming mail still finds an account whose key was lost', async () => {
    const [found] = await accountsForAddresses(ctx.database.db, ctx.org.id, ['rey@acme.example'])
    expect(found).toEqual({ ...rep.first, smtp: { ...rep.first.smtp, password: null } })
  })
})
