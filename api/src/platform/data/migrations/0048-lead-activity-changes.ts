import { sql, SqliteAdapter, type Kysely } from 'kysely'

// Frozen: this migration imports no app code and must never change once released.
// A feed of the leads whose activities changed (decision 0061), beside migration 0045's feed of lead changes:
// activities are no part of a lead's view and move no revision, yet a sort by last activity reads them. One row a
// lead whose calls, emails, notes or texts (the kinds its last activity is made of: LAST_ACTIVITY_TYPES, which a
// test holds equal to this list) were ever written, marked by triggers on activity with when they last changed: one
// added, deleted, moved to another lead (a merge), or given another date or type. Status changes and the other
// records a bulk edit or the demo seed writes by the hundred thousand mark nothing.
//
// SQLite: `change_seq`, an organization's clock of its own, one more than its largest; one writer at a time, so a
// reader that has seen up to N finds every later change above N. Postgres: the transaction that last marked the
// row (`change_xid`), read against a snapshot as the lead feed is.

/** The activity types a lead's last activity is made of. */
export const MARKED_TYPES = ['Call', 'Email', 'Note', 'SMS'] as const
const MARKED = MARKED_TYPES.map((type) => `'${type}'`).join(', ')

function isSqlite(db: Kysely<unknown>): boolean {
  return db.getExecutor().adapter instanceof SqliteAdapter
}

/** SQLite: marks the lead of the activity row `row` (new or old). */
function mark(row: 'new' | 'old'): string {
  return `INSERT INTO lead_activity_change (organization_id, lead_id, change_seq)
    VALUES (${row}.organization_id, ${row}.lead_id,
      (SELECT coalesce(max(change_seq), 0) + 1 FROM lead_activity_change WHERE organization_id = ${row}.organization_id))
    ON CONFLICT (organization_id, lead_id) DO UPDATE SET change_seq = excluded.change_seq;`
}

async function sqliteUp(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE TABLE lead_activity_change (
    organization_id varchar(64) NOT NULL,
    lead_id varchar(64) NOT NULL,
    change_seq integer NOT NULL,
    PRIMARY KEY (organization_id, lead_id)) WITHOUT ROWID`.execute(db)
  await sql`CREATE INDEX lead_activity_change_seq_idx ON lead_activity_change (organization_id, change_seq)`.execute(db)
  const statements = [
    `CREATE TRIGGER activity_change_ai AFTER INSERT ON activity WHEN new.type IN (${MARKED})
       BEGIN ${mark('new')} END`,
    `CREATE TRIGGER activity_change_ad AFTER DELETE ON activity WHEN old.type IN (${MARKED})
       BEGIN ${mark('old')} END`,
    `CREATE TRIGGER activity_change_au AFTER UPDATE OF lead_id, date_created, type ON activity
       WHEN old.type IN (${MARKED}) OR new.type IN (${MARKED})
       BEGIN ${mark('old')} ${mark('new')} END`,
  ]
  for (const statement of statements) await sql.raw(statement).execute(db)
}

async function postgresUp(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE TABLE lead_activity_change (
    organization_id varchar(64) NOT NULL,
    lead_id varchar(64) NOT NULL,
    change_xid xid8 NOT NULL DEFAULT pg_current_xact_id(),
    PRIMARY KEY (organization_id, lead_id))`.execute(db)
  await sql`CREATE INDEX lead_activity_change_xid_idx ON lead_activity_change (organization_id, change_xid)`.execute(db)
  const statements = [
    `CREATE FUNCTION leadline_activity_change() RETURNS trigger LANGUAGE plpgsql AS $$
     BEGIN
       IF TG_OP <> 'INSERT' AND OLD.type IN (${MARKED}) THEN
         INSERT INTO lead_activity_change (organization_id, lead_id) VALUES (OLD.organization_id, OLD.lead_id)
         ON CONFLICT (organization_id, lead_id) DO UPDATE SET change_xid = pg_current_xact_id();
       END IF;
       IF TG_OP <> 'DELETE' AND NEW.type IN (${MARKED}) THEN
         INSERT INTO lead_activity_change (organization_id, lead_id) VALUES (NEW.organization_id, NEW.lead_id)
         ON CONFLICT (organization_id, lead_id) DO UPDATE SET change_xid = pg_current_xact_id();
       END IF;
       RETURN NULL;
     END $$`,
    `CREATE TRIGGER activity_change_aiud AFTER INSERT OR DELETE OR UPDATE OF lead_id, date_created, type ON activity
       FOR EACH ROW EXECUTE FUNCTION leadline_activity_change()`,
  ]
  for (const statement of statements) await sql.raw(statement).execute(db)
}

export async function up(db: Kysely<unknown>): Promise<void> {
  if (isSqlite(db)) await sqliteUp(db)
  else await postgresUp(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (isSqlite(db)) {
    for (const name of ['activity_change_ai', 'activity_change_ad', 'activity_change_au']) {
      await sql.raw(`DROP TRIGGER IF EXISTS ${name}`).execute(db)
    }
  } else {
    await sql`DROP FUNCTION IF EXISTS leadline_activity_change() CASCADE`.execute(db)
  }
  await sql`DROP TABLE lead_activity_change`.execute(db)
}
