import type { Kysely } from 'kysely'

// Frozen: this migration imports no app code and must never change once released.
// The leads list's last activity (decision 0059): a lead's newest activity is the end of the organization's and the
// lead's run of this index, read backwards. activity_lead_idx (lead_id, date_created) stays: deleting a lead
// cascades to its activities by lead_id alone.

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createIndex('activity_org_lead_created_idx')
    .on('activity')
    .columns(['organization_id', 'lead_id', 'date_created'])
    .execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('activity_org_lead_created_idx').execute()
}
