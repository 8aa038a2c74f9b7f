import { sql, SqliteAdapter, type Kysely } from 'kysely'

// Frozen: this migration imports no app code and must never change once released.
// Likely duplicate leads (decision 0058). Each search row gets the web domain of its lead's URL, worked out by the
// database from the folded URL the row already holds (`url_domain`: the host, without scheme, port, path or leading
// `www.`; null when there is none), indexed with the organization and the lead: the leads of one domain are one
// index lookup, in id order, and an organization's shared domains one walk of the index. The index is partial (rows
// with a domain): whole, it would lead with the organization and Postgres would walk it, rather than the trigram
// index, for a text search of a small organization. The lookup index of contact emails also gets the lead, so that an
// organization's shared addresses are counted from the index (the phones' is left as it is: it serves inbound calls
// and texts, whose plans must not move).

function isSqlite(db: Kysely<unknown>): boolean {
  return db.getExecutor().adapter instanceof SqliteAdapter
}

/**
 * SQLite (no regular expressions, no split_part): what follows the first `://`, cut at the first `/`, `:` or `?`,
 * less a leading `www.`. Each step names its input a few times; the expression is long, and cheap.
 */
function sqliteDomain(url: string): string {
  const scheme = `instr(${url}, '://')`
  const rest = `substr(${url}, 1 + (${scheme} + 2) * (${scheme} > 0))`
  const end = `min(instr(${rest} || '/', '/'), instr(${rest} || ':', ':'), instr(${rest} || '?', '?'))`
  const host = `substr(${rest}, 1, ${end} - 1)`
  return `nullif(substr(${host}, 1 + 4 * (substr(${host}, 1, 4) = 'www.')), '')`
}

/** Postgres: the same steps. */
function postgresDomain(url: string): string {
  const rest = `CASE WHEN strpos(${url}, '://') > 0 THEN substr(${url}, strpos(${url}, '://') + 3) ELSE ${url} END`
  const host = `split_part(split_part(split_part(${rest}, '/', 1), ':', 1), '?', 1)`
  return `nullif(CASE WHEN left(${host}, 4) = 'www.' THEN substr(${host}, 5) ELSE ${host} END, '')`
}

async function lookupIndexes(db: Kysely<unknown>, columns: (table: string) => string[]): Promise<void> {
  for (const table of ['contact_email']) {
    await db.schema.dropIndex(`${table}_lookup_idx`).execute()
    await db.schema.createIndex(`${table}_lookup_idx`).on(table).columns(columns(table)).execute()
  }
}

export async function up(db: Kysely<unknown>): Promise<void> {
  if (isSqlite(db)) {
    // A virtual column: computed when read, and stored in its index only.
    await sql
      .raw(`ALTER TABLE lead_search ADD COLUMN url_domain text GENERATED ALWAYS AS (${sqliteDomain('url')}) VIRTUAL`)
      .execute(db)
  } else {
    await sql
      .raw(`ALTER TABLE lead_search ADD COLUMN url_domain text GENERATED ALWAYS AS (${postgresDomain('url')}) STORED`)
      .execute(db)
  }
  await db.schema
    .createIndex('lead_search_org_domain_idx')
    .on('lead_search')
    .columns(['organization_id', 'url_domain', 'lead_id'])
    .where(sql.ref('url_domain'), 'is not', null)
    .execute()
  await lookupIndexes(db, () => ['organization_id', 'value_lower', 'lead_id'])
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await lookupIndexes(db, () => ['organization_id', 'value_lower'])
  await db.schema.dropIndex('lead_search_org_domain_idx').execute()
  await db.schema.alterTable('lead_search').dropColumn('url_domain').execute()
}
