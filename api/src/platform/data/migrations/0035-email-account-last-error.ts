import type { Kysely } from 'kysely'

// Frozen: this migration imports no app code and must never change once released.
// - `email_account.last_error_message` / `last_error_date`: the last failure of a send through the account (an
//   email, a verification link or a test email), cleared by the next send that goes through; null while none failed.

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('email_account').addColumn('last_error_message', 'text').execute()
  await db.schema.alterTable('email_account').addColumn('last_error_date', 'varchar(32)').execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('email_account').dropColumn('last_error_date').execute()
  await db.schema.alterTable('email_account').dropColumn('last_error_message').execute()
}
