import { PostgresAdapter, sql } from 'kysely'
import { readAppState, writeAppState } from '../../platform/data/app-state.js'
import type {
  ContactEmailTable,
  ContactPhoneTable,
  ContactTable,
  ContactUrlTable,
  CustomValueTable,
  Db,
  LeadAddressTable,
  LeadSearchColumns,
} from '../../platform/data/database.js'
import { groupBy, readInChunks } from '../../platform/data/collections.js'
import { underLeads } from './lead-rows.js'
import { foldCase } from '../../platform/text/text.js'
import { formatPhoneNumber, phoneSearchForms } from '../../platform/text/phone-format.js'

/**
 * The format of the rows `leadSearchRow` builds. Bump it whenever its output changes (another field, another
 * form of a value, other folding): a database whose documents are older is rebuilt at the next start-up or
 * `leadline migrate` (`ensureLeadSearchCurrent`), since a migration cannot build documents.
 * 1: the first format (no stored version). 2: phones also as digits, national digits and national format; foldCase.
 * 3: each text field in a column of its own (migration 0006).
 */
export const SEARCH_DOCUMENT_VERSION = 3

const VERSION_KEY = 'lead_search_document_version'
/** Leads per rebuild batch: each batch is a handful of queries and one transaction. */
const REBUILD_BATCH = 500
/** Rows per insert statement, well under both dialects' limits on bound parameters. */
const WRITE_ROWS = 150

type Text = string | null

/** A lead's own texts, the way searchColumns reads them: its contacts', addresses' and values in search order. */
interface SearchableLead {
  name: Text
  description: Text
  url: Text
  contacts: { name: Text; title: Text }[]
  emails: string[]
  /** E.164 numbers; their formatted, digits-only and national forms are indexed too. */
  phones: string[]
  urls: string[]
  addresses: { address_1: Text; address_2: Text; city: Text; state: Text; zipcode: Text; country: Text }[]
  /** The lead's own custom values (not its contacts'), of any type, as stored. */
  custom: string[]
}

/** The columns of `lead_search`, in the order the trigram index holds them. */
export const SEARCH_COLUMNS = [
  'body',
  'name',
  'description',
  'url',
  'contact_name',
  'city',
  'state',
  'zipcode',
  'address',
  'custom',
  'phone',
] as const satisfies readonly (keyof LeadSearchColumns)[]
export type SearchColumn = (typeof SEARCH_COLUMNS)[number]

/** Values folded, one per line: a term without a line break is found in one of them or in none. */
function lines(values: Text[]): string {
  return foldCase(values.filter((v): v is string => v !== null && v !== '').join('\n'))
}

/** The texts a stored phone number is found by: itself, formatted, and the other forms people type it in. */
export function phoneTexts(e164: string): string[] {
  return [e164, formatPhoneNumber(e164), ...phoneSearchForms(e164)]
}

/** The free-text search document of a lead: every searchable text, lower-cased, one per line. */
function searchDocument(lead: SearchableLead, textsOfPhone: (e164: string) => string[]): string {
  return lines([
    lead.name,
    lead.description,
    lead.url,
    ...lead.contacts.flatMap((c) => [c.name, c.title]),
    ...lead.emails,
    ...lead.phones.flatMap(textsOfPhone),
    ...lead.urls,
    ...lead.addresses.flatMap((a) => [a.address_1, a.address_2, a.city, a.state, a.zipcode, a.country]),
  ])
}

/** A lead's search row: the free-text document, and each field that `field:` searches look in. */
function searchColumns(lead: SearchableLead, textsOfPhone: (e164: string) => string[]): LeadSearchColumns {
  return {
    body: searchDocument(lead, textsOfPhone),
    name: lines([lead.name]),
    description: lines([lead.description]),
    url: lines([lead.url]),
    contact_name: lines(lead.contacts.map((c) => c.name)),
    city: lines(lead.addresses.map((a) => a.city)),
    state: lines(lead.addresses.map((a) => a.state)),
    zipcode: lines(lead.addresses.map((a) => a.zipcode)),
    address: lines(lead.addresses.flatMap((a) => [a.address_1, a.address_2, a.city, a.state, a.zipcode, a.country])),
    custom: lines(lead.custom),
    phone: lines(lead.phones),
  }
}

/** The lead's own searchable columns, as the caller already read (or wrote) them. */
export interface LeadTexts {
  id: string
  name: string | null
  description: string
  url: string | null
  status_id: string
}

type ContactValue = Pick<ContactEmailTable, 'contact_id' | 'position'>

/** What a lead's search row is made of: the lead and the rows under it, as stored, in any order. */
export interface LeadSearchSource {
  lead: LeadTexts
  contacts: readonly Pick<ContactTable, 'id' | 'date_created' | 'name' | 'title'>[]
  emails: readonly (ContactValue & Pick<ContactEmailTable, 'email'>)[]
  phones: readonly (ContactValue & Pick<ContactPhoneTable, 'phone'>)[]
  urls: readonly (ContactValue & Pick<ContactUrlTable, 'url'>)[]
  addresses: readonly Omit<LeadAddressTable, 'lead_id' | 'organization_id' | 'label'>[]
  /** Every custom value under the lead, its contacts' too: only the lead's own are searched. */
  custom: readonly Pick<CustomValueTable, 'object_id' | 'field_id' | 'position' | 'value_text'>[]
}

/** A lead's row in `lead_search` (but its SQLite rowid). */
export type LeadSearchRow = LeadSearchColumns & { lead_id: string; status_id: string }

/** Code-unit order, which is SQLite's BINARY order for the ASCII ids and timestamps these sort on. */
function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0
}

function byContactValue(a: ContactValue, b: ContactValue): number {
  return compare(a.contact_id, b.contact_id) || a.position - b.position
}

/**
 * A lead's search row, from the lead and its rows alone: the one definition of a row, for every write of a lead
 * (refreshLeadSearchOf, which reads the rows) and the demo seed (which generated them). Contacts are taken in the
 * order a lead shows them (created, then id), their values by contact id and position, addresses by position,
 * custom values by field id and position. `textsOfPhone` may be a cache of `phoneTexts`.
 */
export function leadSearchRow(
  source: LeadSearchSource,
  textsOfPhone: (e164: string) => string[] = phoneTexts,
): LeadSearchRow {
  const { lead } = source
  const searchable: SearchableLead = {
    name: lead.name,
    description: lead.description,
    url: lead.url,
    contacts: source.contacts.toSorted((a, b) => compare(a.date_created, b.date_created) || compare(a.id, b.id)),
    emails: source.emails.toSorted(byContactValue).map((e) => e.email),
    phones: source.phones.toSorted(byContactValue).map((p) => p.phone),
    urls: source.urls.toSorted(byContactValue).map((u) => u.url),
    addresses: source.addresses.toSorted((a, b) => a.position - b.position),
    custom: source.custom
      .filter((v) => v.object_id === lead.id)
      .toSorted((a, b) => compare(a.field_id, b.field_id) || a.position - b.position)
      .map((v) => v.value_text),
  }
  return { lead_id: lead.id, status_id: lead.status_id, ...searchColumns(searchable, textsOfPhone) }
}

/** The search rows of some of an organization's leads, read in six queries however many leads there are. */
async function buildLeadSearchRows(db: Db, organizationId: string, leads: LeadTexts[]): Promise<LeadSearchRow[]> {
  if (leads.length === 0) return []
  const ids = leads.map((l) => l.id)
  const [contacts, emails, phones, urls, addresses, custom] = await Promise.all([
    underLeads(db, 'contact', organizationId, ids).select(['lead_id', 'id', 'date_created', 'name', 'title']).execute(),
    underLeads(db, 'contact_email', organizationId, ids)
      .select(['lead_id', 'contact_id', 'position', 'email'])
      .execute(),
    underLeads(db, 'contact_phone', organizationId, ids)
      .select(['lead_id', 'contact_id', 'position', 'phone'])
      .execute(),
    underLeads(db, 'contact_url', organizationId, ids).select(['lead_id', 'contact_id', 'position', 'url']).execute(),
    underLeads(db, 'lead_address', organizationId, ids)
      .select(['lead_id', 'position', 'address_1', 'address_2', 'city', 'state', 'zipcode', 'country'])
      .execute(),
    underLeads(db, 'custom_value', organizationId, ids)
      .select(['lead_id', 'object_id', 'field_id', 'position', 'value_text'])
      .execute(),
  ])
  const byLead = <Row extends { lead_id: string }>(rows: Row[]) => groupBy(rows, (row) => row.lead_id)
  const parts = {
    contacts: byLead(contacts),
    emails: byLead(emails),
    phones: byLead(phones),
    urls: byLead(urls),
    addresses: byLead(addresses),
    custom: byLead(custom),
  }
  // One row per lead, however often the caller named it.
  return [...new Map(leads.map((lead) => [lead.id, lead])).values()].map((lead) =>
    leadSearchRow({
      lead,
      contacts: parts.contacts.get(lead.id) ?? [],
      emails: parts.emails.get(lead.id) ?? [],
      phones: parts.phones.get(lead.id) ?? [],
      urls: parts.urls.get(lead.id) ?? [],
      addresses: parts.addresses.get(lead.id) ?? [],
      custom: parts.custom.get(lead.id) ?? [],
    }),
  )
}

/** SQLite: each organization's search rows take rowids `search_key` × 2^32 onwards (migration 0006). */
const ORGANIZATION_ROWIDS = 2 ** 32
/** Keeps every rowid a safe JavaScript integer. */
const MAX_SEARCH_KEY = 2 ** 21 - 1

export interface SearchRowids {
  first: number
  last: number
}

/**
 * SQLite: the rowids an organization's search rows are in, so that trigram lookups read that range only; undefined
 * when the organization has none yet (`create` allots it one).
 */
export async function leadSearchRowids(
  db: Db,
  organizationId: string,
  create = false,
): Promise<SearchRowids | undefined> {
  const read = () =>
    db
      .selectFrom('lead_search_org')
      .select('search_key')
      .where('organization_id', '=', organizationId)
      .executeTakeFirst()
  let row = await read()
  if (row === undefined && create) {
    await sql`insert into lead_search_org (organization_id, search_key)
      select ${organizationId}, coalesce(max(search_key), 0) + 1 from lead_search_org`.execute(db)
    row = await read()
  }
  if (row === undefined) return undefined
  if (row.search_key > MAX_SEARCH_KEY) throw new Error('No lead search rowids left for another organization')
  return { first: row.search_key * ORGANIZATION_ROWIDS, last: (row.search_key + 1) * ORGANIZATION_ROWIDS - 1 }
}

/** SQLite: the highest rowid the organization's search rows use (the range's first when it has none). */
export async function topSearchRowid(db: Db, range: SearchRowids): Promise<number> {
  const top = await db
    .selectFrom('lead_search')
    .select((eb) => eb.fn.max('rowid').as('rowid'))
    .where('rowid', '>=', range.first)
    .where('rowid', '<=', range.last)
    .executeTakeFirst()
  return top?.rowid ?? range.first
}

/**
 * SQLite: the first of `count` rowids for new search rows of the organization, after those it has (allotting it a
 * range when it has none).
 */
export async function nextSearchRowid(db: Db, organizationId: string, count: number): Promise<number> {
  const range = await leadSearchRowids(db, organizationId, true)
  if (range === undefined) throw new Error('The organization has no lead search rowids')
  const next = (await topSearchRowid(db, range)) + 1
  if (next + count > range.last) throw new Error('The organization has no lead search rowids left')
  return next
}

/** SQLite: new search rows take the next rowids of their organization's range, and their leads record them. */
async function insertSqliteRows(db: Db, organizationId: string, rows: LeadSearchRow[]): Promise<void> {
  const next = await nextSearchRowid(db, organizationId, rows.length)
  const numbered = rows.map((row, i) => ({ ...row, rowid: next + i, organization_id: organizationId }))
  for (let i = 0; i < numbered.length; i += WRITE_ROWS) {
    const part = numbered.slice(i, i + WRITE_ROWS)
    await db.insertInto('lead_search').values(part).execute()
    await sql`update lead set search_rowid = (select s.rowid from lead_search s where s.lead_id = lead.id)
      where organization_id = ${organizationId} and id in (${sql.join(part.map((r) => r.lead_id))})`.execute(db)
  }
}

/** The trigger that adds each new search row to the trigram index (migration 0006). */
const FTS_INSERT_TRIGGER = 'lead_search_ai'
/** FTS5's own limit on the index entries it holds in memory before it writes them out (FTS5_DEFAULT_HASHSIZE). */
const FTS_DEFAULT_HASHSIZE = 1024 * 1024
/** The most index entries a bulk load holds in memory, in bytes, and about what a search row adds to them. */
const FTS_BULK_HASHSIZE = 256 * 1024 * 1024
const FTS_BYTES_PER_ROW = 4096

/**
 * SQLite: runs `write`, which adds new search rows with the rowids `rowids`, with the trigram index's insert trigger
 * set aside, and then indexes those rows in one statement. Row by row, FTS5 writes the entries it holds as a new
 * segment at every statement's end and at every MiB (its `hashsize`), and merges those segments again and again;
 * here it holds up to FTS_BULK_HASHSIZE, so the rows of a large seed make one or a few segments, for half the work.
 * The index then holds exactly what the trigger would have put in it. Inside the caller's transaction: a failure
 * leaves the trigger and the setting as they were.
 */
export async function addSearchRowsInBulk<T>(db: Db, rowids: SearchRowids, write: () => Promise<T>): Promise<T> {
  const trigger = await sql<{ definition: string }>`select sql as definition from sqlite_master
    where type = 'trigger' and name = ${FTS_INSERT_TRIGGER}`.execute(db)
  const definition = trigger.rows[0]?.definition
  if (definition === undefined) throw new Error(`The trigram index has no ${FTS_INSERT_TRIGGER} trigger`)
  const setting = await sql<{ v: number }>`select v from lead_search_fts_config where k = 'hashsize'`.execute(db)
  const hashsize = (bytes: number) =>
    sql`insert into lead_search_fts (lead_search_fts, rank) values ('hashsize', ${sql.lit(Math.trunc(bytes))})`
  await sql`drop trigger ${sql.id(FTS_INSERT_TRIGGER)}`.execute(db)
  const result = await write()
  await sql.raw(definition).execute(db)
  const rows = rowids.last - rowids.first + 1
  await hashsize(Math.min(FTS_BULK_HASHSIZE, Math.max(FTS_DEFAULT_HASHSIZE, rows * FTS_BYTES_PER_ROW))).execute(db)
  const columns = sql.join(SEARCH_COLUMNS.map((column) => sql.id(column)))
  await sql`insert into lead_search_fts (rowid, ${columns}) select rowid, ${columns} from lead_search
    where rowid between ${rowids.first} and ${rowids.last}`.execute(db)
  // FTS5 keeps its settings in the index: put its own back (the default, unless the index had another).
  await hashsize(setting.rows[0]?.v ?? FTS_DEFAULT_HASHSIZE).execute(db)
  return result
}

function isPostgres(db: Db): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter
}

/**
 * Brings the documents of some of an organization's leads up to date in a handful of queries however many leads
 * there are, writing only those that changed (each write is a delete and an insert in the trigram index).
 * The one path for a lead's writes and rebuilds (the demo seed builds the same rows with `leadSearchRow` from the
 * rows it generated). Resolves to the number of documents written.
 */
export async function refreshLeadSearchOf(
  db: Db,
  organizationId: string,
  leads: LeadTexts[],
  options: { moveRevisions?: boolean } = {},
): Promise<number> {
  if (leads.length === 0) return 0
  const [rows, stored] = await Promise.all([
    buildLeadSearchRows(db, organizationId, leads),
    db
      .selectFrom('lead_search')
      .select(['lead_id', 'status_id', ...SEARCH_COLUMNS])
      .where('organization_id', '=', organizationId)
      .where(
        'lead_id',
        'in',
        leads.map((l) => l.id),
      )
      .execute(),
  ])
  const current = new Map(stored.map((s) => [s.lead_id, s]))
  const changed = rows.filter((row) => {
    const old = current.get(row.lead_id)
    return old === undefined || old.status_id !== row.status_id || SEARCH_COLUMNS.some((c) => old[c] !== row[c])
  })
  const added = isPostgres(db) ? [] : changed.filter((row) => !current.has(row.lead_id))
  if (added.length > 0) await insertSqliteRows(db, organizationId, added)
  const upserts = changed
    .filter((row) => !added.includes(row))
    .map((row) => ({ ...row, organization_id: organizationId }))
  for (let i = 0; i < upserts.length; i += WRITE_ROWS) {
    await db
      .insertInto('lead_search')
      .values(upserts.slice(i, i + WRITE_ROWS))
      .onConflict((oc) =>
        oc
          .column('lead_id')
          .doUpdateSet((eb) =>
            Object.fromEntries(([...SEARCH_COLUMNS, 'status_id'] as const).map((c) => [c, eb.ref(`excluded.${c}`)])),
          ),
      )
      .execute()
  }
  if (options.moveRevisions === true && changed.length > 0) {
    // A search row is written with its lead's revision moved: the leads' change feed then lists the lead, and every
    // api process's index tests its kept text terms on the new row (decision 0065). A write to the lead does that
    // already; a rebuild, which writes no lead, asks for it.
    await db
      .updateTable('lead')
      .set((eb) => ({ revision: eb('revision', '+', 1) }))
      .where('organization_id', '=', organizationId)
      .where(
        'id',
        'in',
        changed.map((row) => row.lead_id),
      )
      .execute()
  }
  return changed.length
}

/**
 * Rebuilds a lead's search document. Called in the same transaction as every write that changes a searchable
 * text, so search never sees a half-written lead.
 */
export async function refreshLeadSearch(db: Db, organizationId: string, leadId: string): Promise<void> {
  await refreshLeadSearchOfIds(db, organizationId, [leadId])
}

/** Rebuilds the search documents of some of an organization's leads, by id (those not found are left alone). */
export async function refreshLeadSearchOfIds(
  db: Db,
  organizationId: string,
  leadIds: readonly string[],
): Promise<void> {
  const leads = await readInChunks(leadIds, (ids) =>
    db
      .selectFrom('lead')
      .select(['id', 'name', 'description', 'url', 'status_id'])
      .where('organization_id', '=', organizationId)
      .where('id', 'in', ids)
      .execute(),
  )
  await refreshLeadSearchOf(db, organizationId, leads)
}

export interface RebuildOptions {
  /** Called after each batch with the leads done so far and the total. */
  onProgress?: (done: number, total: number) => void
  batchSize?: number
}

/** The next `limit` leads of an organization after the id `after`, in id order (a keyset walk over its leads). */
async function leadTextsAfter(
  db: Db,
  organizationId: string,
  after: string,
  limit: number,
  lock = false,
): Promise<LeadTexts[]> {
  return db
    .selectFrom('lead')
    .select(['id', 'name', 'description', 'url', 'status_id'])
    .where('organization_id', '=', organizationId)
    .where('id', '>', after)
    .orderBy('id')
    .limit(limit)
    .$if(lock, (q) => q.forUpdate())
    .execute()
}

/**
 * Rebuilds every lead's search document, organization by organization, a batch of leads per transaction, then
 * records SEARCH_DOCUMENT_VERSION. Resolves to the number of leads it went through. Safe while the api serves:
 * on Postgres a batch locks its leads, so a concurrent write to one of them (which updates the lead too) either
 * commits first and is read, or waits and then writes its own document.
 */
export async function rebuildLeadSearch(db: Db, options: RebuildOptions = {}): Promise<number> {
  const batchSize = options.batchSize ?? REBUILD_BATCH
  const lockRows = isPostgres(db)
  const organizations = await db.selectFrom('organization').select('id').orderBy('id').execute()
  let total = 0
  for (const organization of organizations) {
    const row = await db
      .selectFrom('lead')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('organization_id', '=', organization.id)
      .executeTakeFirstOrThrow()
    total += Number(row.n)
  }
  let done = 0
  for (const { id: organizationId } of organizations) {
    let after = ''
    for (;;) {
      const count = await db.transaction().execute(async (tx) => {
        const leads = await leadTextsAfter(tx, organizationId, after, batchSize, lockRows)
        const last = leads.at(-1)
        if (last === undefined) return 0
        after = last.id
        await refreshLeadSearchOf(tx, organizationId, leads, { moveRevisions: true })
        return leads.length
      })
      done += count
      if (count > 0) options.onProgress?.(done, Math.max(total, done))
      if (count < batchSize) break
    }
  }
  await writeAppState(db, VERSION_KEY, String(SEARCH_DOCUMENT_VERSION))
  return done
}

/** The format the stored documents are in; undefined when no version was ever recorded. */
export async function storedSearchDocumentVersion(db: Db): Promise<number | undefined> {
  const value = await readAppState(db, VERSION_KEY)
  return value === undefined ? undefined : Number(value)
}

/** The Postgres advisory lock that lets one api process rebuild while the others wait for it. */
const REBUILD_LOCK = 7_244_105_001

/**
 * Run after migrating: rebuilds every document when the stored format is older than this code's, or unknown
 * (a fresh database has no leads, so that only records the version). When it is current this is one read and no
 * write; a newer format (a newer api version wrote it) is left alone. Resolves to the leads rebuilt, or undefined.
 */
export async function ensureLeadSearchCurrent(db: Db, options: RebuildOptions = {}): Promise<number | undefined> {
  const isCurrent = async () => {
    const stored = await storedSearchDocumentVersion(db)
    return stored !== undefined && stored >= SEARCH_DOCUMENT_VERSION
  }
  if (await isCurrent()) return undefined
  if (!isPostgres(db)) return rebuildLeadSearch(db, options)
  // Several api processes starting together on one Postgres: the first rebuilds, the others wait and find it done.
  return db.connection().execute(async (connection) => {
    await sql`select pg_advisory_lock(${REBUILD_LOCK})`.execute(connection)
    try {
      return (await isCurrent()) ? undefined : await rebuildLeadSearch(db, options)
    } finally {
      await sql`select pg_advisory_unlock(${REBUILD_LOCK})`.execute(connection)
    }
  })
}
