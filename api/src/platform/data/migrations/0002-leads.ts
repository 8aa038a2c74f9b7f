import { sql, SqliteAdapter, type Kysely } from 'kysely'

// Frozen: this migration imports no app code and must never change once released.
// Leads, contacts, addresses, custom fields and activities, plus the free-text search index:
// SQLite FTS5 with the trigram tokenizer, Postgres pg_trgm — the same substring semantics on both.

function isSqlite(db: Kysely<unknown>): boolean {
  return db.getExecutor().adapter instanceof SqliteAdapter
}

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('lead')
    .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('organization_id', 'varchar(64)', (c) => c.notNull().references('organization.id').onDelete('cascade'))
    .addColumn('name', 'text')
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('url', 'text')
    .addColumn('status_id', 'varchar(64)', (c) => c.notNull().references('lead_status.id'))
    .addColumn('created_by', 'varchar(64)')
    .addColumn('updated_by', 'varchar(64)')
    .addColumn('date_created', 'varchar(32)', (c) => c.notNull())
    .addColumn('date_updated', 'varchar(32)', (c) => c.notNull())
    .execute()
  await db.schema
    .createIndex('lead_org_updated_idx')
    .on('lead')
    .columns(['organization_id', 'date_updated', 'id'])
    .execute()
  await db.schema
    .createIndex('lead_org_created_idx')
    .on('lead')
    .columns(['organization_id', 'date_created', 'id'])
    .execute()
  await db.schema.createIndex('lead_org_name_idx').on('lead').columns(['organization_id', 'name', 'id']).execute()
  await db.schema.createIndex('lead_status_idx').on('lead').columns(['status_id']).execute()

  await db.schema
    .createTable('lead_address')
    .addColumn('lead_id', 'varchar(64)', (c) => c.notNull().references('lead.id').onDelete('cascade'))
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('organization_id', 'varchar(64)', (c) => c.notNull())
    .addColumn('label', 'varchar(32)', (c) => c.notNull())
    .addColumn('address_1', 'text')
    .addColumn('address_2', 'text')
    .addColumn('city', 'text')
    .addColumn('state', 'text')
    .addColumn('zipcode', 'text')
    .addColumn('country', 'varchar(2)')
    .addPrimaryKeyConstraint('lead_address_pk', ['lead_id', 'position'])
    .execute()

  await db.schema
    .createTable('contact')
    .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('organization_id', 'varchar(64)', (c) => c.notNull().references('organization.id').onDelete('cascade'))
    .addColumn('lead_id', 'varchar(64)', (c) => c.notNull().references('lead.id').onDelete('cascade'))
    .addColumn('name', 'text')
    .addColumn('title', 'text')
    .addColumn('created_by', 'varchar(64)')
    .addColumn('updated_by', 'varchar(64)')
    .addColumn('date_created', 'varchar(32)', (c) => c.notNull())
    .addColumn('date_updated', 'varchar(32)', (c) => c.notNull())
    .execute()
  await db.schema.createIndex('contact_lead_idx').on('contact').columns(['lead_id', 'date_created']).execute()
  await db.schema.createIndex('contact_org_idx').on('contact').columns(['organization_id', 'date_created']).execute()

  for (const [table, column] of [
    ['contact_email', 'email'],
    ['contact_phone', 'phone'],
    ['contact_url', 'url'],
  ] as const) {
    await db.schema
      .createTable(table)
      .addColumn('contact_id', 'varchar(64)', (c) => c.notNull().references('contact.id').onDelete('cascade'))
      .addColumn('position', 'integer', (c) => c.notNull())
      .addColumn('organization_id', 'varchar(64)', (c) => c.notNull())
      .addColumn('lead_id', 'varchar(64)', (c) => c.notNull())
      .addColumn('type', 'varchar(16)', (c) => c.notNull())
      .addColumn(column, 'text', (c) => c.notNull())
      .addColumn('value_lower', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint(`${table}_pk`, ['contact_id', 'position'])
      .execute()
    await db.schema.createIndex(`${table}_lookup_idx`).on(table).columns(['organization_id', 'value_lower']).execute()
    await db.schema.createIndex(`${table}_lead_idx`).on(table).columns(['lead_id']).execute()
  }

  await db.schema
    .createTable('custom_field')
    .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('organization_id', 'varchar(64)', (c) => c.notNull().references('organization.id').onDelete('cascade'))
    .addColumn('object_type', 'varchar(16)', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('type', 'varchar(16)', (c) => c.notNull())
    .addColumn('choices', 'text')
    .addColumn('accepts_multiple_values', 'boolean', (c) => c.notNull())
    .addColumn('created_by', 'varchar(64)')
    .addColumn('updated_by', 'varchar(64)')
    .addColumn('date_created', 'varchar(32)', (c) => c.notNull())
    .addColumn('date_updated', 'varchar(32)', (c) => c.notNull())
    .execute()
  await db.schema
    .createIndex('custom_field_org_idx')
    .on('custom_field')
    .columns(['organization_id', 'object_type'])
    .execute()

  // One row per value (several for fields that accept multiple values). `value_number` mirrors number fields
  // so comparisons are numeric; dates and datetimes compare as their fixed-width text.
  await db.schema
    .createTable('custom_value')
    .addColumn('object_id', 'varchar(64)', (c) => c.notNull())
    .addColumn('field_id', 'varchar(64)', (c) => c.notNull().references('custom_field.id').onDelete('cascade'))
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('organization_id', 'varchar(64)', (c) => c.notNull())
    .addColumn('lead_id', 'varchar(64)', (c) => c.notNull().references('lead.id').onDelete('cascade'))
    .addColumn('value_text', 'text', (c) => c.notNull())
    .addColumn('value_number', 'double precision')
    .addPrimaryKeyConstraint('custom_value_pk', ['object_id', 'field_id', 'position'])
    .execute()
  await db.schema.createIndex('custom_value_field_idx').on('custom_value').columns(['field_id', 'value_text']).execute()
  await db.schema
    .createIndex('custom_value_number_idx')
    .on('custom_value')
    .columns(['field_id', 'value_number'])
    .execute()
  await db.schema.createIndex('custom_value_lead_idx').on('custom_value').columns(['lead_id']).execute()

  await db.schema
    .createTable('activity')
    .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('organization_id', 'varchar(64)', (c) => c.notNull().references('organization.id').onDelete('cascade'))
    .addColumn('lead_id', 'varchar(64)', (c) => c.notNull().references('lead.id').onDelete('cascade'))
    .addColumn('contact_id', 'varchar(64)')
    .addColumn('user_id', 'varchar(64)')
    .addColumn('type', 'varchar(32)', (c) => c.notNull())
    .addColumn('data', 'text', (c) => c.notNull())
    .addColumn('created_by', 'varchar(64)')
    .addColumn('updated_by', 'varchar(64)')
    .addColumn('date_created', 'varchar(32)', (c) => c.notNull())
    .addColumn('date_updated', 'varchar(32)', (c) => c.notNull())
    .execute()
  await db.schema.createIndex('activity_lead_idx').on('activity').columns(['lead_id', 'date_created']).execute()
  await db.schema
    .createIndex('activity_org_idx')
    .on('activity')
    .columns(['organization_id', 'type', 'date_created'])
    .execute()

  // The text free-text search looks in: name, description, url, contacts, emails, phones, addresses (lower-cased).
  if (isSqlite(db)) {
    // An explicit INTEGER PRIMARY KEY keeps rowids stable across VACUUM, which the external-content FTS table needs.
    await sql`CREATE TABLE lead_search (
      rowid INTEGER PRIMARY KEY,
      lead_id varchar(64) NOT NULL UNIQUE REFERENCES lead(id) ON DELETE CASCADE,
      organization_id varchar(64) NOT NULL,
      body text NOT NULL)`.execute(db)
    await sql`CREATE VIRTUAL TABLE lead_search_fts USING fts5(body, content='lead_search', content_rowid='rowid', tokenize='trigram')`.execute(
      db,
    )
    await sql`CREATE TRIGGER lead_search_ai AFTER INSERT ON lead_search BEGIN
      INSERT INTO lead_search_fts(rowid, body) VALUES (new.rowid, new.body); END`.execute(db)
    await sql`CREATE TRIGGER lead_search_ad AFTER DELETE ON lead_search BEGIN
      INSERT INTO lead_search_fts(lead_search_fts, rowid, body) VALUES ('delete', old.rowid, old.body); END`.execute(db)
    await sql`CREATE TRIGGER lead_search_au AFTER UPDATE ON lead_search BEGIN
      INSERT INTO lead_search_fts(lead_search_fts, rowid, body) VALUES ('delete', old.rowid, old.body);
      INSERT INTO lead_search_fts(rowid, body) VALUES (new.rowid, new.body); END`.execute(db)
  } else {
    await db.schema
      .createTable('lead_search')
      .addColumn('lead_id', 'varchar(64)', (c) => c.primaryKey().references('lead.id').onDelete('cascade'))
      .addColumn('organization_id', 'varchar(64)', (c) => c.notNull())
      .addColumn('body', 'text', (c) => c.notNull())
      .execute()
    await sql`CREATE EXTENSION IF NOT EXISTS pg_trgm`.execute(db)
    await sql`CREATE INDEX lead_search_body_trgm ON lead_search USING gin (body gin_trgm_ops)`.execute(db)
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (isSqlite(db)) await sql`DROP TABLE IF EXISTS lead_search_fts`.execute(db)
  for (const table of [
    'lead_search',
    'activity',
    'custom_value',
    'custom_field',
    'contact_url',
    'contact_phone',
    'contact_email',
    'contact',
    'lead_address',
    'lead',
  ]) {
    await db.schema.dropTable(table).execute()
  }
}
