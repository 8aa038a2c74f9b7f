import { sql, SqliteAdapter, type Kysely } from 'kysely'

// Frozen: this migration imports no app code and must never change once released.
// Opportunities: deals on a lead, each in one opportunity status (whose pipeline is the opportunity's pipeline, so
// moving a status to another pipeline moves its opportunities with it). Money is an integer in the currency's
// smallest unit. An opportunity is part of its lead's view, so its rows move `lead.revision` as the rows of
// migration 0005's LEAD_PARTS do. Status-change activities name their opportunity in a column of their own, which
// `/activity/status_change/opportunity/?opportunity_id=` filters on.

function isSqlite(db: Kysely<unknown>): boolean {
  return db.getExecutor().adapter instanceof SqliteAdapter
}

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('opportunity')
    .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('organization_id', 'varchar(64)', (c) => c.notNull().references('organization.id').onDelete('cascade'))
    .addColumn('lead_id', 'varchar(64)', (c) => c.notNull().references('lead.id').onDelete('cascade'))
    .addColumn('contact_id', 'varchar(64)', (c) => c.references('contact.id').onDelete('set null'))
    .addColumn('status_id', 'varchar(64)', (c) => c.notNull().references('opportunity_status.id'))
    .addColumn('user_id', 'varchar(64)', (c) => c.references('user.id').onDelete('set null'))
    .addColumn('value', 'bigint')
    .addColumn('value_period', 'varchar(16)', (c) => c.notNull())
    .addColumn('value_currency', 'varchar(3)', (c) => c.notNull())
    .addColumn('confidence', 'integer', (c) => c.notNull())
    .addColumn('date_won', 'varchar(10)')
    .addColumn('date_lost', 'varchar(32)')
    .addColumn('note', 'text', (c) => c.notNull())
    .addColumn('created_by', 'varchar(64)')
    .addColumn('updated_by', 'varchar(64)')
    .addColumn('date_created', 'varchar(32)', (c) => c.notNull())
    .addColumn('date_updated', 'varchar(32)', (c) => c.notNull())
    .execute()
  const indexes: [string, string[]][] = [
    ['opportunity_lead_idx', ['lead_id', 'organization_id']],
    ['opportunity_org_created_idx', ['organization_id', 'date_created', 'id']],
    ['opportunity_org_status_idx', ['organization_id', 'status_id']],
    ['opportunity_org_user_idx', ['organization_id', 'user_id']],
    ['opportunity_org_won_idx', ['organization_id', 'date_won']],
    ['opportunity_status_idx', ['status_id']],
    ['opportunity_contact_idx', ['contact_id']],
  ]
  for (const [name, columns] of indexes) {
    await db.schema.createIndex(name).on('opportunity').columns(columns).execute()
  }

  await db.schema.alterTable('activity').addColumn('opportunity_id', 'varchar(64)').execute()
  await db.schema
    .createIndex('activity_org_opportunity_idx')
    .on('activity')
    .columns(['organization_id', 'opportunity_id'])
    .execute()

  if (isSqlite(db)) {
    const bump = (id: string) => `UPDATE lead SET revision = revision + 1 WHERE id = ${id};`
    await sql
      .raw(`CREATE TRIGGER opportunity_revision_ai AFTER INSERT ON opportunity BEGIN ${bump('new.lead_id')} END`)
      .execute(db)
    await sql
      .raw(`CREATE TRIGGER opportunity_revision_ad AFTER DELETE ON opportunity BEGIN ${bump('old.lead_id')} END`)
      .execute(db)
    await sql
      .raw(
        `CREATE TRIGGER opportunity_revision_au AFTER UPDATE ON opportunity BEGIN
           UPDATE lead SET revision = revision + 1 WHERE id IN (old.lead_id, new.lead_id); END`,
      )
      .execute(db)
  } else {
    // Migration 0005's function, which bumps the revision of the old and the new lead of a row.
    await sql
      .raw(
        `CREATE TRIGGER opportunity_revision_aiud AFTER INSERT OR UPDATE OR DELETE ON opportunity
           FOR EACH ROW EXECUTE FUNCTION leadline_part_revision_bump()`,
      )
      .execute(db)
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('activity_org_opportunity_idx').execute()
  await db.schema.alterTable('activity').dropColumn('opportunity_id').execute()
  await db.schema.dropTable('opportunity').execute()
}
