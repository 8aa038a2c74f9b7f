import type { Kysely } from 'kysely'

// Frozen: this migration imports no app code and must never change once released.
// Smart Views (`/saved_search/`, decision 0056): a named lead search with its list's columns, its user's alone or
// shared with the organization. A user reads the shared ones by name and their own: two indexes serve both.

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('saved_search')
    .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('organization_id', 'varchar(64)', (c) => c.notNull().references('organization.id').onDelete('cascade'))
    .addColumn('user_id', 'varchar(64)', (c) => c.notNull())
    .addColumn('name', 'varchar(255)', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('type', 'varchar(16)', (c) => c.notNull())
    .addColumn('query', 'text')
    .addColumn('s_query', 'text')
    .addColumn('selected_fields', 'text')
    .addColumn('is_shared', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_by', 'varchar(64)')
    .addColumn('updated_by', 'varchar(64)')
    .addColumn('date_created', 'varchar(32)', (c) => c.notNull())
    .addColumn('date_updated', 'varchar(32)', (c) => c.notNull())
    .execute()
  await db.schema
    .createIndex('saved_search_shared_idx')
    .on('saved_search')
    .columns(['organization_id', 'is_shared', 'name'])
    .execute()
  await db.schema
    .createIndex('saved_search_user_idx')
    .on('saved_search')
    .columns(['organization_id', 'user_id', 'name'])
    .execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('saved_search').execute()
}
