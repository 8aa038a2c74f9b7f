import type { Kysely } from 'kysely'

// Frozen: this migration imports no app code and must never change once released.
// Indexes that keep per-organization queries from scanning every organization's rows.

export async function up(db: Kysely<unknown>): Promise<void> {
  // `city:`, `state:`, `zipcode:`, `country:` and `address:` look only at the organization's addresses.
  await db.schema
    .createIndex('lead_address_org_idx')
    .on('lead_address')
    .columns(['organization_id', 'lead_id'])
    .execute()
  // Short free-text terms scan the organization's search documents, not everyone's.
  await db.schema.createIndex('lead_search_org_idx').on('lead_search').columns(['organization_id']).execute()
  // GET /activity/ without lead_id: newest first, by index, optionally for one user.
  await db.schema
    .createIndex('activity_org_created_idx')
    .on('activity')
    .columns(['organization_id', 'date_created', 'id'])
    .execute()
  await db.schema
    .createIndex('activity_org_user_idx')
    .on('activity')
    .columns(['organization_id', 'user_id', 'date_created', 'id'])
    .execute()
  // GET /contact/ pages by (date_created, id).
  await db.schema
    .createIndex('contact_org_created_idx')
    .on('contact')
    .columns(['organization_id', 'date_created', 'id'])
    .execute()
  await db.schema.dropIndex('contact_org_idx').execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex('contact_org_idx').on('contact').columns(['organization_id', 'date_created']).execute()
  for (const index of [
    'contact_org_created_idx',
    'activity_org_user_idx',
    'activity_org_created_idx',
    'lead_search_org_idx',
    'lead_address_org_idx',
  ]) {
    await db.schema.dropIndex(index).execute()
  }
}
