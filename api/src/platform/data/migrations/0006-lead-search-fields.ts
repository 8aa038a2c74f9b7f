import { sql, SqliteAdapter, type Kysely } from 'kysely'

// Frozen: this migration imports no app code and must never change once released.
// Text-field searches (name:, contact_name:, city:, …) through the trigram index, like free text: each lead's search
// row also holds each searchable field, folded, one value per line. The app fills the new columns (the document
// format changes, so start-up and `leadline migrate` rebuild every document after this migration).
//
// SQLite: the search rows are recreated so that each organization's rows take a range of their own rowids
// (`lead_search_org.search_key` × 2^32 onwards): the trigram index is then read for one organization's rows
// only, by rowid range, and a lead records its row's rowid (`lead.search_rowid`) so that a search tests a lead
// against the index's matches without reading the search row. One FTS5 table indexes the document and the fields,
// folded by the app and compared as they are (`case_sensitive 1`), so a match is exactly a substring of the folded
// text. Postgres: a pg_trgm index on each new column.
// Both: the search row also keeps its lead's status, so that a search combining a status with text reads search
// rows alone (on Postgres, both indexes at once).

const FIELDS = ['name', 'description', 'url', 'contact_name', 'city', 'state', 'zipcode', 'address', 'custom']

function isSqlite(db: Kysely<unknown>): boolean {
  return db.getExecutor().adapter instanceof SqliteAdapter
}

async function createSqliteSearch(db: Kysely<unknown>, fields: string[]): Promise<void> {
  const columns = ['body', ...fields]
  const textColumns = sql.raw(
    fields.length === 0
      ? ''
      : `${fields.map((f) => `, ${f} text NOT NULL DEFAULT ''`).join('')}, status_id varchar(64) NOT NULL DEFAULT ''`,
  )
  await sql`CREATE TABLE lead_search (
    rowid INTEGER PRIMARY KEY,
    lead_id varchar(64) NOT NULL UNIQUE REFERENCES lead(id) ON DELETE CASCADE,
    organization_id varchar(64) NOT NULL,
    body text NOT NULL${textColumns})`.execute(db)
  const list = columns.join(', ')
  const tokenize = fields.length > 0 ? `'trigram case_sensitive 1'` : `'trigram'`
  await sql
    .raw(
      `CREATE VIRTUAL TABLE lead_search_fts USING fts5(${list}, content='lead_search', content_rowid='rowid', tokenize=${tokenize})`,
    )
    .execute(db)
  const values = (row: 'new' | 'old') => columns.map((c) => `${row}.${c}`).join(', ')
  await sql
    .raw(
      `CREATE TRIGGER lead_search_ai AFTER INSERT ON lead_search BEGIN
      INSERT INTO lead_search_fts(rowid, ${list}) VALUES (new.rowid, ${values('new')}); END`,
    )
    .execute(db)
  await sql
    .raw(
      `CREATE TRIGGER lead_search_ad AFTER DELETE ON lead_search BEGIN
      INSERT INTO lead_search_fts(lead_search_fts, rowid, ${list}) VALUES ('delete', old.rowid, ${values('old')}); END`,
    )
    .execute(db)
  await sql
    .raw(
      `CREATE TRIGGER lead_search_au AFTER UPDATE OF ${list} ON lead_search BEGIN
      INSERT INTO lead_search_fts(lead_search_fts, rowid, ${list}) VALUES ('delete', old.rowid, ${values('old')});
      INSERT INTO lead_search_fts(rowid, ${list}) VALUES (new.rowid, ${values('new')}); END`,
    )
    .execute(db)
}

async function dropSqliteSearch(db: Kysely<unknown>): Promise<void> {
  for (const trigger of ['lead_search_ai', 'lead_search_ad', 'lead_search_au']) {
    await sql.raw(`DROP TRIGGER IF EXISTS ${trigger}`).execute(db)
  }
  await sql`DROP TABLE IF EXISTS lead_search_fts`.execute(db)
  await sql`DROP TABLE IF EXISTS lead_search`.execute(db)
}

/**
 * Searches test has:email, has:phone and has:contacts per lead, and read a custom field's range of values for their
 * leads: indexes that answer those from the index alone.
 */
async function coveringIndexes(db: Kysely<unknown>, direction: 'up' | 'down'): Promise<void> {
  const indexes = [
    {
      name: 'contact_email_lead_idx',
      table: 'contact_email',
      before: ['lead_id'],
      after: ['lead_id', 'organization_id'],
    },
    {
      name: 'contact_phone_lead_idx',
      table: 'contact_phone',
      before: ['lead_id'],
      after: ['lead_id', 'organization_id'],
    },
    {
      name: 'custom_value_field_idx',
      table: 'custom_value',
      before: ['field_id', 'value_text'],
      after: ['field_id', 'value_text', 'lead_id', 'organization_id'],
    },
    {
      name: 'custom_value_number_idx',
      table: 'custom_value',
      before: ['field_id', 'value_number'],
      after: ['field_id', 'value_number', 'lead_id', 'organization_id'],
    },
  ]
  for (const index of indexes) {
    await db.schema.dropIndex(index.name).execute()
    await db.schema
      .createIndex(index.name)
      .on(index.table)
      .columns(direction === 'up' ? index.after : index.before)
      .execute()
  }
  if (direction === 'up') {
    await db.schema.createIndex('contact_lead_org_idx').on('contact').columns(['lead_id', 'organization_id']).execute()
  } else {
    await db.schema.dropIndex('contact_lead_org_idx').execute()
  }
}

export async function up(db: Kysely<unknown>): Promise<void> {
  await coveringIndexes(db, 'up')
  if (isSqlite(db)) {
    await dropSqliteSearch(db)
    await db.schema
      .createTable('lead_search_org')
      .addColumn('organization_id', 'varchar(64)', (c) =>
        c.primaryKey().references('organization.id').onDelete('cascade'),
      )
      .addColumn('search_key', 'integer', (c) => c.notNull().unique())
      .execute()
    await createSqliteSearch(db, FIELDS)
    // sort:name walks the organization's folded names.
    await db.schema
      .createIndex('lead_search_org_name_idx')
      .on('lead_search')
      .columns(['organization_id', 'name'])
      .execute()
    await sql`CREATE TRIGGER lead_search_status AFTER UPDATE OF status_id ON lead BEGIN
      UPDATE lead_search SET status_id = new.status_id WHERE lead_id = new.id; END`.execute(db)
    await db.schema.alterTable('lead').addColumn('search_rowid', 'integer').execute()
    // A page walks its sort index and tests each lead's search rowid and status there, without reading the lead.
    for (const column of ['date_updated', 'date_created']) {
      const short = column === 'date_updated' ? 'updated' : 'created'
      await db.schema.dropIndex(`lead_org_${short}_idx`).execute()
      await db.schema
        .createIndex(`lead_org_${short}_search_idx`)
        .on('lead')
        .columns(['organization_id', column, 'id', 'search_rowid', 'status_id'])
        .execute()
    }
    // A search's few matches are read by their search rowids; many are counted by status from the index alone.
    await db.schema
      .createIndex('lead_org_search_idx')
      .on('lead')
      .columns(['organization_id', 'search_rowid', 'status_id'])
      .execute()
    await db.schema
      .createIndex('lead_org_status_search_idx')
      .on('lead')
      .columns(['organization_id', 'status_id', 'search_rowid'])
      .execute()
  } else {
    for (const field of FIELDS) {
      await db.schema
        .alterTable('lead_search')
        .addColumn(field, 'text', (c) => c.notNull().defaultTo(''))
        .execute()
      await sql
        .raw(`CREATE INDEX lead_search_${field}_trgm ON lead_search USING gin (${field} gin_trgm_ops)`)
        .execute(db)
    }
    // sort:name walks the organization's folded names, by code point.
    await sql`CREATE INDEX lead_search_org_name_idx ON lead_search (organization_id, name COLLATE "C")`.execute(db)
    await db.schema
      .alterTable('lead_search')
      .addColumn('status_id', 'varchar(64)', (c) => c.notNull().defaultTo(''))
      .execute()
    await sql`UPDATE lead_search SET status_id = lead.status_id FROM lead WHERE lead.id = lead_search.lead_id`.execute(
      db,
    )
    await sql`CREATE FUNCTION lead_search_status() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN UPDATE lead_search SET status_id = NEW.status_id WHERE lead_id = NEW.id; RETURN NULL; END $$`.execute(db)
    await sql`CREATE TRIGGER lead_search_status AFTER UPDATE OF status_id ON lead FOR EACH ROW
      WHEN (OLD.status_id IS DISTINCT FROM NEW.status_id) EXECUTE FUNCTION lead_search_status()`.execute(db)
  }
  // The search row keeps its lead's status (a trigger follows every change), so that a search combining a status
  // with text reads the status's search rows alone.
  await db.schema
    .createIndex('lead_search_org_status_idx')
    .on('lead_search')
    .columns(['organization_id', 'status_id'])
    .execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await coveringIndexes(db, 'down')
  await db.schema.dropIndex('lead_search_org_status_idx').execute()
  await sql`DROP TRIGGER lead_search_status${sql.raw(isSqlite(db) ? '' : ' ON lead')}`.execute(db)
  if (isSqlite(db)) {
    await db.schema.dropIndex('lead_org_status_search_idx').execute()
    await db.schema.dropIndex('lead_org_search_idx').execute()
    for (const column of ['date_updated', 'date_created']) {
      const short = column === 'date_updated' ? 'updated' : 'created'
      await db.schema.dropIndex(`lead_org_${short}_search_idx`).execute()
      await db.schema
        .createIndex(`lead_org_${short}_idx`)
        .on('lead')
        .columns(['organization_id', column, 'id'])
        .execute()
    }
    await db.schema.alterTable('lead').dropColumn('search_rowid').execute()
    await dropSqliteSearch(db)
    await db.schema.dropTable('lead_search_org').execute()
    await createSqliteSearch(db, [])
    await db.schema.createIndex('lead_search_org_idx').on('lead_search').columns(['organization_id']).execute()
  } else {
    await sql`DROP FUNCTION lead_search_status`.execute(db)
    await db.schema.alterTable('lead_search').dropColumn('status_id').execute()
    await sql`DROP INDEX lead_search_org_name_idx`.execute(db)
    for (const field of FIELDS) {
      await sql.raw(`DROP INDEX lead_search_${field}_trgm`).execute(db)
      await db.schema.alterTable('lead_search').dropColumn(field).execute()
    }
  }
}
