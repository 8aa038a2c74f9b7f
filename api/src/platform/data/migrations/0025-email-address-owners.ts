import { sql, type Kysely } from 'kysely'

// Frozen: this migration imports no app code and must never change once released.
// An email address receives and sends for at most one organization, once it is verified (decision 0038):
// - `email_account_address.verified` (0/1): the address was proven by a link emailed to it, or it is an account's own
//   address set by an admin. Only verified addresses receive mail and may be sent as.
// - a unique index over the verified addresses, lowercased, across organizations: two verifications of one address
//   (two api processes, two organizations) cannot both succeed.
// - the pending link: the SHA-256 of its token (hex), when it expires, and when a link was last sent (resending is
//   rate-limited).
// Existing rows: an account's own address stays verified unless another organization has an account of its own at
// that address too (then neither keeps it: nobody can tell which is the real one); every identity starts unverified,
// so none of them keeps receiving, another organization's mail above all, until its mailbox confirms a link.

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('email_account_address')
    .addColumn('verified', 'integer', (c) => c.notNull().defaultTo(0))
    .execute()
  await db.schema.alterTable('email_account_address').addColumn('token_hash', 'varchar(64)').execute()
  await db.schema.alterTable('email_account_address').addColumn('token_expires', 'varchar(32)').execute()
  await db.schema.alterTable('email_account_address').addColumn('link_sent_at', 'varchar(32)').execute()
  await sql`
    update email_account_address set verified = 1
    where exists (
      select 1 from email_account a
      where a.id = email_account_address.email_account_id and lower(a.email) = lower(email_account_address.address)
    )
    and not exists (
      select 1 from email_account o
      where lower(o.email) = lower(email_account_address.address)
        and o.organization_id <> email_account_address.organization_id
    )`.execute(db)
  await sql`
    create unique index email_account_address_verified_unique
    on email_account_address (lower(address)) where verified = 1`.execute(db)
  await db.schema
    .createIndex('email_account_address_token_idx')
    .on('email_account_address')
    .column('token_hash')
    .where(sql.ref('token_hash'), 'is not', null)
    .execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('email_account_address_token_idx').execute()
  await db.schema.dropIndex('email_account_address_verified_unique').execute()
  for (const column of ['link_sent_at', 'token_expires', 'token_hash', 'verified']) {
    await db.schema.alterTable('email_account_address').dropColumn(column).execute()
  }
}
