import { sql, SqliteAdapter, type Kysely } from 'kysely'

// Frozen: this migration imports no app code and must never change once released.
// How many leads each organization has, kept by triggers in the same transaction as every lead insert and delete:
// the unfiltered lead list shows `total_results`, and counting 100 000 index entries for it took longer than the
// rest of the page.

function isSqlite(db: Kysely<unknown>): boolean {
  return db.getExecutor().adapter instanceof SqliteAdapter
}

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('organization_lead_count')
    .addColumn('organization_id', 'varchar(64)', (c) =>
      c.primaryKey().references('organization.id').onDelete('cascade'),
    )
    .addColumn('leads', 'integer', (c) => c.notNull())
    .execute()
  await sql`INSERT INTO organization_lead_count (organization_id, leads)
    SELECT organization_id, count(*) FROM lead GROUP BY organization_id`.execute(db)
  const add = `INSERT INTO organization_lead_count (organization_id, leads) VALUES (NEW.organization_id, 1)
    ON CONFLICT (organization_id) DO UPDATE SET leads = organization_lead_count.leads + 1;`
  const remove = `UPDATE organization_lead_count SET leads = leads - 1 WHERE organization_id = OLD.organization_id;`
  if (isSqlite(db)) {
    await sql.raw(`CREATE TRIGGER lead_count_ai AFTER INSERT ON lead BEGIN ${add} END`).execute(db)
    await sql.raw(`CREATE TRIGGER lead_count_ad AFTER DELETE ON lead BEGIN ${remove} END`).execute(db)
  } else {
    await sql
      .raw(
        `CREATE FUNCTION leadline_lead_count() RETURNS trigger LANGUAGE plpgsql AS $$
         BEGIN
           IF TG_OP = 'INSERT' THEN ${add} ELSE ${remove} END IF;
           RETURN NULL;
         END $$`,
      )
      .execute(db)
    await sql
      .raw(
        `CREATE TRIGGER lead_count_aid AFTER INSERT OR DELETE ON lead FOR EACH ROW EXECUTE FUNCTION leadline_lead_count()`,
      )
      .execute(db)
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (isSqlite(db)) {
    await sql`DROP TRIGGER IF EXISTS lead_count_ai`.execute(db)
    await sql`DROP TRIGGER IF EXISTS lead_count_ad`.execute(db)
  } else {
    await sql`DROP FUNCTION IF EXISTS leadline_lead_count() CASCADE`.execute(db)
  }
  await db.schema.dropTable('organization_lead_count').execute()
}
