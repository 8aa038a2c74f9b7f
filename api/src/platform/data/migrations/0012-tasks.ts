import { sql, SqliteAdapter, type Kysely } from 'kysely'

// Frozen: this migration imports no app code and must never change once released.
// Tasks: a lead's to-dos (`lead`) and the ones the system makes (`opportunity_due`, and the calls', emails' and
// texts' types). `date` is the wire form, date-only `YYYY-MM-DD` or a timestamp, and `has_time` tells which, so the
// inbox/future split compares text with text on both dialects (docs/decisions/0015-tasks.md). A dateless task stores
// its creation day. `object_id` names what a system task is about (an opportunity, a call, a thread); `data` holds
// its type's own fields as JSON. Booleans are 0/1 integers. A task is part of its lead's view (the lead's open
// tasks), so its rows move `lead.revision` as migration 0009's opportunity rows do.

function isSqlite(db: Kysely<unknown>): boolean {
  return db.getExecutor().adapter instanceof SqliteAdapter
}

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('task')
    .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('organization_id', 'varchar(64)', (c) => c.notNull().references('organization.id').onDelete('cascade'))
    .addColumn('lead_id', 'varchar(64)', (c) => c.notNull().references('lead.id').onDelete('cascade'))
    .addColumn('type', 'varchar(32)', (c) => c.notNull())
    .addColumn('assigned_to', 'varchar(64)', (c) => c.references('user.id').onDelete('set null'))
    .addColumn('contact_id', 'varchar(64)', (c) => c.references('contact.id').onDelete('set null'))
    .addColumn('text', 'text', (c) => c.notNull())
    .addColumn('date', 'varchar(32)', (c) => c.notNull())
    .addColumn('has_time', 'integer', (c) => c.notNull())
    .addColumn('is_dateless', 'integer', (c) => c.notNull())
    .addColumn('is_complete', 'integer', (c) => c.notNull())
    .addColumn('date_completed', 'varchar(32)')
    .addColumn('completion_id', 'varchar(64)')
    .addColumn('object_type', 'varchar(32)')
    .addColumn('object_id', 'varchar(64)')
    .addColumn('data', 'text', (c) => c.notNull())
    .addColumn('created_by', 'varchar(64)')
    .addColumn('updated_by', 'varchar(64)')
    .addColumn('date_created', 'varchar(32)', (c) => c.notNull())
    .addColumn('date_updated', 'varchar(32)', (c) => c.notNull())
    .execute()
  const indexes: [string, string[]][] = [
    ['task_lead_idx', ['lead_id', 'organization_id']],
    ['task_org_view_idx', ['organization_id', 'is_complete', 'type', 'date']],
    ['task_org_assigned_idx', ['organization_id', 'assigned_to', 'is_complete', 'date']],
    ['task_org_created_idx', ['organization_id', 'date_created', 'id']],
    ['task_object_idx', ['organization_id', 'object_id']],
    ['task_contact_idx', ['contact_id']],
    ['task_completed_idx', ['is_complete', 'date_completed']],
  ]
  for (const [name, columns] of indexes) {
    await db.schema.createIndex(name).on('task').columns(columns).execute()
  }

  await db.schema.alterTable('activity').addColumn('task_id', 'varchar(64)').execute()

  if (isSqlite(db)) {
    const bump = (id: string) => `UPDATE lead SET revision = revision + 1 WHERE id = ${id};`
    await sql.raw(`CREATE TRIGGER task_revision_ai AFTER INSERT ON task BEGIN ${bump('new.lead_id')} END`).execute(db)
    await sql.raw(`CREATE TRIGGER task_revision_ad AFTER DELETE ON task BEGIN ${bump('old.lead_id')} END`).execute(db)
    await sql
      .raw(
        `CREATE TRIGGER task_revision_au AFTER UPDATE ON task BEGIN
           UPDATE lead SET revision = revision + 1 WHERE id IN (old.lead_id, new.lead_id); END`,
      )
      .execute(db)
  } else {
    // Migration 0005's function, which bumps the revision of the old and the new lead of a row.
    await sql
      .raw(
        `CREATE TRIGGER task_revision_aiud AFTER INSERT OR UPDATE OR DELETE ON task
           FOR EACH ROW EXECUTE FUNCTION leadline_part_revision_bump()`,
      )
      .execute(db)
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('activity').dropColumn('task_id').execute()
  await db.schema.dropTable('task').execute()
}
