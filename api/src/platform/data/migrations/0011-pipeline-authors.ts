import type { Kysely } from 'kysely'

// Frozen: this migration imports no app code and must never change once released.
// Pipelines carry the common fields of Close's objects: who created one and who last changed it. Pipelines made
// before this migration have no author (null), as do the ones an organization is born with when nobody creates it.

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('pipeline').addColumn('created_by', 'varchar(64)').execute()
  await db.schema.alterTable('pipeline').addColumn('updated_by', 'varchar(64)').execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('pipeline').dropColumn('updated_by').execute()
  await db.schema.alterTable('pipeline').dropColumn('created_by').execute()
}
