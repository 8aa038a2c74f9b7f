import { SqliteAdapter, type Kysely } from 'kysely'

// Frozen: this migration imports no app code and must never change once released.
// Sealed secrets (docs/decisions/0040-sealed-secrets-and-status-deletion.md): `webhook_subscription.signature_key` and
// `inbound_secret.secret` hold `v1:<iv>:<ciphertext+tag>` (AES-256-GCM under LEADLINE_SECRET_KEY, about 128
// characters for a 64-character key), or the key in the clear (64 hex characters) on a server without
// LEADLINE_SECRET_KEY; `app_state.value` of `lead_webhook_signature_key` likewise (already text). The columns become
// text. Existing values are sealed by the api when it starts with a key, not here: a migration sees no config.

function isSqlite(db: Kysely<unknown>): boolean {
  return db.getExecutor().adapter instanceof SqliteAdapter
}

const COLUMNS = [
  ['webhook_subscription', 'signature_key'],
  ['inbound_secret', 'secret'],
] as const

export async function up(db: Kysely<unknown>): Promise<void> {
  // SQLite does not enforce a varchar's length: there its columns already hold any text.
  if (isSqlite(db)) return
  for (const [table, column] of COLUMNS) {
    await db.schema
      .alterTable(table)
      .alterColumn(column, (c) => c.setDataType('text'))
      .execute()
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (isSqlite(db)) return
  // Sealed values are longer than 64 characters: going down fails while any is stored.
  for (const [table, column] of COLUMNS) {
    await db.schema
      .alterTable(table)
      .alterColumn(column, (c) => c.setDataType('varchar(64)'))
      .execute()
  }
}
