import { sql, SqliteAdapter, type Kysely } from 'kysely'

// Frozen: this migration imports no app code and must never change once released.
// Version counters that let every api process cache safely (docs/decisions/0010-hot-path-caches.md):
// - organization.meta_version goes up with any change to what describes an organization (its row, statuses,
//   pipelines, custom field definitions, memberships, phone numbers, its members' user rows);
// - lead.revision goes up with any change to a lead or to a row its view is built from.
// Triggers bump them in the same transaction as the change, so no code path can forget to, and a cache that reads
// the counter before it reads the data never keeps data older than the counter it is filed under.

function isSqlite(db: Kysely<unknown>): boolean {
  return db.getExecutor().adapter instanceof SqliteAdapter
}

const ORGANIZATION_PARTS = [
  'lead_status',
  'pipeline',
  'opportunity_status',
  'custom_field',
  'membership',
  'phone_number',
]
const LEAD_PARTS = ['lead_address', 'contact', 'contact_email', 'contact_phone', 'contact_url', 'custom_value']

async function sqliteTriggers(db: Kysely<unknown>): Promise<void> {
  const bumpOrganization = (id: string) => `UPDATE organization SET meta_version = meta_version + 1 WHERE id = ${id};`
  const bumpLead = (id: string) => `UPDATE lead SET revision = revision + 1 WHERE id = ${id};`
  const statements = [
    `CREATE TRIGGER organization_meta_au AFTER UPDATE ON organization WHEN new.meta_version = old.meta_version
       BEGIN ${bumpOrganization('new.id')} END`,
    `CREATE TRIGGER user_meta_au AFTER UPDATE ON "user" BEGIN
       UPDATE organization SET meta_version = meta_version + 1
         WHERE id IN (SELECT organization_id FROM membership WHERE user_id = new.id); END`,
    `CREATE TRIGGER lead_revision_au AFTER UPDATE ON lead WHEN new.revision = old.revision
       BEGIN ${bumpLead('new.id')} END`,
  ]
  for (const table of ORGANIZATION_PARTS) {
    statements.push(
      `CREATE TRIGGER ${table}_meta_ai AFTER INSERT ON ${table} BEGIN ${bumpOrganization('new.organization_id')} END`,
      `CREATE TRIGGER ${table}_meta_ad AFTER DELETE ON ${table} BEGIN ${bumpOrganization('old.organization_id')} END`,
      `CREATE TRIGGER ${table}_meta_au AFTER UPDATE ON ${table} BEGIN
         UPDATE organization SET meta_version = meta_version + 1 WHERE id IN (old.organization_id, new.organization_id); END`,
    )
  }
  for (const table of LEAD_PARTS) {
    statements.push(
      `CREATE TRIGGER ${table}_revision_ai AFTER INSERT ON ${table} BEGIN ${bumpLead('new.lead_id')} END`,
      `CREATE TRIGGER ${table}_revision_ad AFTER DELETE ON ${table} BEGIN ${bumpLead('old.lead_id')} END`,
      `CREATE TRIGGER ${table}_revision_au AFTER UPDATE ON ${table} BEGIN
         UPDATE lead SET revision = revision + 1 WHERE id IN (old.lead_id, new.lead_id); END`,
    )
  }
  for (const statement of statements) await sql.raw(statement).execute(db)
}

async function postgresTriggers(db: Kysely<unknown>): Promise<void> {
  const statements = [
    `CREATE FUNCTION leadline_organization_meta_bump() RETURNS trigger LANGUAGE plpgsql AS $$
     BEGIN
       IF NEW.meta_version = OLD.meta_version THEN NEW.meta_version := OLD.meta_version + 1; END IF;
       RETURN NEW;
     END $$`,
    `CREATE TRIGGER organization_meta_bu BEFORE UPDATE ON organization
       FOR EACH ROW EXECUTE FUNCTION leadline_organization_meta_bump()`,
    `CREATE FUNCTION leadline_user_meta_bump() RETURNS trigger LANGUAGE plpgsql AS $$
     BEGIN
       UPDATE organization SET meta_version = meta_version + 1
         WHERE id IN (SELECT organization_id FROM membership WHERE user_id = NEW.id);
       RETURN NULL;
     END $$`,
    `CREATE TRIGGER user_meta_au AFTER UPDATE ON "user" FOR EACH ROW EXECUTE FUNCTION leadline_user_meta_bump()`,
    `CREATE FUNCTION leadline_lead_revision_bump() RETURNS trigger LANGUAGE plpgsql AS $$
     BEGIN
       IF NEW.revision = OLD.revision THEN NEW.revision := OLD.revision + 1; END IF;
       RETURN NEW;
     END $$`,
    `CREATE TRIGGER lead_revision_bu BEFORE UPDATE ON lead FOR EACH ROW EXECUTE FUNCTION leadline_lead_revision_bump()`,
    `CREATE FUNCTION leadline_part_meta_bump() RETURNS trigger LANGUAGE plpgsql AS $$
     BEGIN
       IF TG_OP <> 'INSERT' THEN
         UPDATE organization SET meta_version = meta_version + 1 WHERE id = OLD.organization_id;
       END IF;
       IF TG_OP = 'INSERT' OR (TG_OP = 'UPDATE' AND NEW.organization_id IS DISTINCT FROM OLD.organization_id) THEN
         UPDATE organization SET meta_version = meta_version + 1 WHERE id = NEW.organization_id;
       END IF;
       RETURN NULL;
     END $$`,
    `CREATE FUNCTION leadline_part_revision_bump() RETURNS trigger LANGUAGE plpgsql AS $$
     BEGIN
       IF TG_OP <> 'INSERT' THEN
         UPDATE lead SET revision = revision + 1 WHERE id = OLD.lead_id;
       END IF;
       IF TG_OP = 'INSERT' OR (TG_OP = 'UPDATE' AND NEW.lead_id IS DISTINCT FROM OLD.lead_id) THEN
         UPDATE lead SET revision = revision + 1 WHERE id = NEW.lead_id;
       END IF;
       RETURN NULL;
     END $$`,
  ]
  for (const table of ORGANIZATION_PARTS) {
    statements.push(`CREATE TRIGGER ${table}_meta_aiud AFTER INSERT OR UPDATE OR DELETE ON ${table}
      FOR EACH ROW EXECUTE FUNCTION leadline_part_meta_bump()`)
  }
  for (const table of LEAD_PARTS) {
    statements.push(`CREATE TRIGGER ${table}_revision_aiud AFTER INSERT OR UPDATE OR DELETE ON ${table}
      FOR EACH ROW EXECUTE FUNCTION leadline_part_revision_bump()`)
  }
  for (const statement of statements) await sql.raw(statement).execute(db)
}

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('organization')
    .addColumn('meta_version', 'integer', (c) => c.notNull().defaultTo(0))
    .execute()
  await db.schema
    .alterTable('lead')
    .addColumn('revision', 'integer', (c) => c.notNull().defaultTo(0))
    .execute()
  if (isSqlite(db)) await sqliteTriggers(db)
  else await postgresTriggers(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (isSqlite(db)) {
    const names = ['organization_meta_au', 'user_meta_au', 'lead_revision_au']
    for (const table of ORGANIZATION_PARTS) names.push(`${table}_meta_ai`, `${table}_meta_ad`, `${table}_meta_au`)
    for (const table of LEAD_PARTS) names.push(`${table}_revision_ai`, `${table}_revision_ad`, `${table}_revision_au`)
    for (const name of names) await sql.raw(`DROP TRIGGER IF EXISTS ${name}`).execute(db)
  } else {
    const functions = [
      'leadline_organization_meta_bump',
      'leadline_user_meta_bump',
      'leadline_lead_revision_bump',
      'leadline_part_meta_bump',
      'leadline_part_revision_bump',
    ]
    for (const name of functions) await sql.raw(`DROP FUNCTION IF EXISTS ${name}() CASCADE`).execute(db)
  }
  await db.schema.alterTable('lead').dropColumn('revision').execute()
  await db.schema.alterTable('organization').dropColumn('meta_version').execute()
}
