import { sql, SqliteAdapter, type Kysely } from 'kysely'

// Frozen: this migration imports no app code and must never change once released.
// Files uploaded for emails to send (decision 0034): `email_attachment.activity_id` may be null, for a file uploaded
// and not yet in an email; such files are purged after a day, found through a small partial index on `date_created`
// (the table's rows hold whole files, which a scan for them would read). Postgres drops the NOT NULL in place; SQLite
// cannot, so the table is rebuilt (created anew, copied, the old one dropped, the new one renamed, its index made
// again), in one transaction so that no half of it is ever left.

function isSqlite(db: Kysely<unknown>): boolean {
  return db.getExecutor().adapter instanceof SqliteAdapter
}

const COLUMNS = [
  'id',
  'organization_id',
  'activity_id',
  'filename',
  'content_type',
  'content_id',
  'size',
  'content',
  'date_created',
] as const

/**
 * SQLite: `email_attachment` made again, with `activity_id` nullable or not, keeping every row; atomic in the one
 * transaction every SQLite migration runs in (migrate.ts), which it cannot open again.
 */
async function rebuildOnSqlite(tx: Kysely<unknown>, activityNullable: boolean): Promise<void> {
  await tx.schema
    .createTable('email_attachment_rebuilt')
    .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('organization_id', 'varchar(64)', (c) => c.notNull().references('organization.id').onDelete('cascade'))
    .addColumn('activity_id', 'varchar(64)', (c) => {
      const column = c.references('activity.id').onDelete('cascade')
      return activityNullable ? column : column.notNull()
    })
    .addColumn('filename', 'text', (c) => c.notNull())
    .addColumn('content_type', 'varchar(255)', (c) => c.notNull())
    .addColumn('content_id', 'varchar(998)')
    .addColumn('size', 'integer', (c) => c.notNull())
    .addColumn('content', 'text', (c) => c.notNull())
    .addColumn('date_created', 'varchar(32)', (c) => c.notNull())
    .execute()
  const columns = sql.join(COLUMNS.map((c) => sql.ref(c)))
  await sql`insert into email_attachment_rebuilt (${columns}) select ${columns} from email_attachment`.execute(tx)
  await tx.schema.dropTable('email_attachment').execute()
  await tx.schema.alterTable('email_attachment_rebuilt').renameTo('email_attachment').execute()
  await tx.schema
    .createIndex('email_attachment_activity_idx')
    .on('email_attachment')
    .columns(['organization_id', 'activity_id'])
    .execute()
}

export async function up(db: Kysely<unknown>): Promise<void> {
  if (isSqlite(db)) await rebuildOnSqlite(db, true)
  else
    await db.schema
      .alterTable('email_attachment')
      .alterColumn('activity_id', (c) => c.dropNotNull())
      .execute()
  await db.schema
    .createIndex('email_attachment_unbound_idx')
    .on('email_attachment')
    .column('date_created')
    .where(sql.ref('activity_id'), 'is', null)
    .execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('email_attachment_unbound_idx').execute()
  await sql`delete from email_attachment where activity_id is null`.execute(db)
  if (isSqlite(db)) await rebuildOnSqlite(db, false)
  else
    await db.schema
      .alterTable('email_attachment')
      .alterColumn('activity_id', (c) => c.setNotNull())
      .execute()
}
