import { sql, type Kysely } from 'kysely'

// Frozen: this migration imports no app code and must never change once released.
// `custom_field.position`: the organization's order of its fields of one object type (`/custom_field_schema/{type}/`),
// which the lists and forms show them in. Existing fields get their places in creation order (ties by id, as the
// list ordered them), counted from 0 within their organization and object type.

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('custom_field')
    .addColumn('position', 'integer', (c) => c.notNull().defaultTo(0))
    .execute()
  await sql`
    UPDATE custom_field SET position = (
      SELECT COUNT(*) FROM custom_field earlier
      WHERE earlier.organization_id = custom_field.organization_id
        AND earlier.object_type = custom_field.object_type
        AND (earlier.date_created < custom_field.date_created
          OR (earlier.date_created = custom_field.date_created AND earlier.id < custom_field.id))
    )`.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('custom_field').dropColumn('position').execute()
}
