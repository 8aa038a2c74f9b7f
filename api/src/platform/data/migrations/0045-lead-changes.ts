import { sql, SqliteAdapter, type Kysely } from 'kysely'

// Frozen: this migration imports no app code and must never change once released.
// A feed of lead changes (decision 0061), from which an api process's in-memory search index catches up exactly
// before each search: which leads changed, or went, since it last looked.
//
// SQLite: `lead.change_seq` is an organization's clock, set by triggers to one more than any value it has given out
// whenever a lead is inserted or its revision moves (every change to the lead or to a row its view is built from,
// migrations 0005, 0009 and 0012). SQLite has one writer at a time, so the values commit in the order they are
// given: a reader that has seen everything up to N finds every later change above N. A deleted lead leaves a
// tombstone with a value of the same clock (above its own last one). Indexed by (organization_id, change_seq) both.
//
// Postgres: transactions commit in another order than they start, so no counter can do; each lead row keeps the
// transaction that last wrote it (`change_xid`, by a BEFORE trigger), and so does each tombstone. A reader keeps the
// snapshot it last read under; what changed since is what is written by transactions that snapshot did not see.
//
// Neither column is read by the app's lead views: both are in the table only, not in its type.

function isSqlite(db: Kysely<unknown>): boolean {
  return db.getExecutor().adapter instanceof SqliteAdapter
}

/** SQLite: the next value of organization `org`'s clock, above every lead's and every tombstone's. */
function clock(org: string, floor = '0'): string {
  return `(max(${floor},
    coalesce((SELECT max(change_seq) FROM lead WHERE organization_id = ${org}), 0),
    coalesce((SELECT max(change_seq) FROM lead_tombstone WHERE organization_id = ${org}), 0)) + 1)`
}

async function sqliteUp(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE lead ADD COLUMN change_seq integer NOT NULL DEFAULT 0`.execute(db)
  await sql`CREATE INDEX lead_org_change_idx ON lead (organization_id, change_seq)`.execute(db)
  await sql`CREATE TABLE lead_tombstone (
    organization_id varchar(64) NOT NULL,
    change_seq integer NOT NULL,
    lead_id varchar(64) NOT NULL,
    date_deleted varchar(32) NOT NULL,
    PRIMARY KEY (organization_id, change_seq)) WITHOUT ROWID`.execute(db)
  const statements = [
    // Migration 0005's trigger, which bumps the revision of a lead updated without it, now leaves alone an update of
    // the clock alone (which the triggers below make).
    `DROP TRIGGER lead_revision_au`,
    `CREATE TRIGGER lead_revision_au AFTER UPDATE ON lead
       WHEN new.revision = old.revision AND new.change_seq = old.change_seq
       BEGIN UPDATE lead SET revision = revision + 1 WHERE id = new.id; END`,
    `CREATE TRIGGER lead_change_ai AFTER INSERT ON lead WHEN new.change_seq = 0
       BEGIN UPDATE lead SET change_seq = ${clock('new.organization_id')} WHERE id = new.id; END`,
    `CREATE TRIGGER lead_change_au AFTER UPDATE OF revision ON lead
       BEGIN UPDATE lead SET change_seq = ${clock('new.organization_id')} WHERE id = new.id; END`,
    `CREATE TRIGGER lead_change_ad AFTER DELETE ON lead BEGIN
       INSERT INTO lead_tombstone (organization_id, change_seq, lead_id, date_deleted)
       VALUES (old.organization_id, ${clock('old.organization_id', 'old.change_seq')}, old.id,
         strftime('%Y-%m-%dT%H:%M:%fZ', 'now'));
     END`,
  ]
  // Leads already there keep 0: older than any value the clock gives (no table rewrite).
  for (const statement of statements) await sql.raw(statement).execute(db)
}

async function postgresUp(db: Kysely<unknown>): Promise<void> {
  // Rows already there keep a null: written before any snapshot a reader will hold.
  await sql`ALTER TABLE lead ADD COLUMN change_xid xid8`.execute(db)
  await sql`CREATE INDEX lead_org_change_idx ON lead (organization_id, change_xid)`.execute(db)
  await sql`CREATE TABLE lead_tombstone (
    organization_id varchar(64) NOT NULL,
    change_xid xid8 NOT NULL DEFAULT pg_current_xact_id(),
    lead_id varchar(64) NOT NULL,
    date_deleted timestamptz NOT NULL DEFAULT now())`.execute(db)
  await sql`CREATE INDEX lead_tombstone_org_change_idx ON lead_tombstone (organization_id, change_xid)`.execute(db)
  const statements = [
    `CREATE FUNCTION leadline_lead_change() RETURNS trigger LANGUAGE plpgsql AS $$
     BEGIN
       NEW.change_xid := pg_current_xact_id();
       RETURN NEW;
     END $$`,
    `CREATE TRIGGER lead_change_biu BEFORE INSERT OR UPDATE ON lead
       FOR EACH ROW EXECUTE FUNCTION leadline_lead_change()`,
    `CREATE FUNCTION leadline_lead_tombstone() RETURNS trigger LANGUAGE plpgsql AS $$
     BEGIN
       INSERT INTO lead_tombstone (organization_id, lead_id) VALUES (OLD.organization_id, OLD.id);
       RETURN NULL;
     END $$`,
    `CREATE TRIGGER lead_change_ad AFTER DELETE ON lead FOR EACH ROW EXECUTE FUNCTION leadline_lead_tombstone()`,
  ]
  for (const statement of statements) await sql.raw(statement).execute(db)
}

export async function up(db: Kysely<unknown>): Promise<void> {
  if (isSqlite(db)) await sqliteUp(db)
  else await postgresUp(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (isSqlite(db)) {
    for (const name of ['lead_change_ai', 'lead_change_au', 'lead_change_ad', 'lead_revision_au']) {
      await sql.raw(`DROP TRIGGER IF EXISTS ${name}`).execute(db)
    }
    await sql`CREATE TRIGGER lead_revision_au AFTER UPDATE ON lead WHEN new.revision = old.revision
      BEGIN UPDATE lead SET revision = revision + 1 WHERE id = new.id; END`.execute(db)
    await sql`DROP INDEX lead_org_change_idx`.execute(db)
  } else {
    for (const name of ['leadline_lead_change', 'leadline_lead_tombstone']) {
      await sql.raw(`DROP FUNCTION IF EXISTS ${name}() CASCADE`).execute(db)
    }
    await sql`DROP INDEX lead_org_change_idx`.execute(db)
  }
  await sql`DROP TABLE lead_tombstone`.execute(db)
  await db.schema
    .alterTable('lead')
    .dropColumn(isSqlite(db) ? 'change_seq' : 'change_xid')
    .execute()
}
