import type { Kysely } from 'kysely'

// Frozen: this migration imports no app code and must never change once released.
// - `contact.position`: a contact's place among those made in the same request (a lead created with several
//   contacts), so a lead lists them oldest first and, made together, in the order they were sent, as Close does.
//   Contacts made before it, or one at a time, have 0: their `date_created` orders them.

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('contact')
    .addColumn('position', 'integer', (col) => col.notNull().defaultTo(0))
    .execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('contact').dropColumn('position').execute()
}
