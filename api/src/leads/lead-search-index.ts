import { PostgresAdapter, sql } from 'kysely'
import { readAppState, writeAppState } from '../db/app-state.js'
import type { Db, LeadSearchColumns } from '../db/database.js'
import { formatPhoneNumber, phoneSearchForms } from '../phone-numbers/phone-number-repo.js'
import { foldCase } from '../platform/text.js'

/**
 * The format of the rows `searchColumns` builds. Bump it whenever its output changes (another field, another
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

export interface SearchableLead {
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
] as const satisfies readonly (keyof LeadSearchColumns)[]
export type SearchColumn = (typeof SEARCH_COLUMNS)[number]

/** Values folded, one per line: a term without a line break is found in one of them or in none. */
function lines(values: Text[]): string {
  return foldCase(values.filter((v): v is string => v !== null && v !== '').join('\n'))
}

/** The free-text search document of a lead: every searchable text, lower-cased, one per line. */
export function searchDocument(lead: SearchableLead): string {
  return lines([
    lead.name,
    lead.description,
    lead.url,
    ...lead.contacts.flatMap((c) => [c.name, c.title]),
    ...lead.emails,
    ...lead.phones.flatMap((p) => [p, formatPhoneNumber(p), ...phoneSearchForms(p)]),
    ...lead.urls,
    ...lead.addresses.flatMap((a) => [a.address_1, a.address_2, a.city, a.state, a.zipcode, a.country]),
  ])
}

/** A lead's search row: the free-text document, and each field that `field:` searches look in. */
export function searchColumns(lead: SearchableLead): LeadSearchColumns {
  return {
    body: searchDocument(lead),
    name: lines([lead.name]),
    description: lines([lead.description]),
    url: lines([lead.url]),
    contact_name: lines(lead.contacts.map((c) => c.name)),
    city: lines(lead.addresses.map((a) => a.city)),
    state: lines(lead.addresses.map((a) => a.state)),
    zipcode: lines(lead.addresses.map((a) => a.zipcode)),
    address: lines(lead.addresses.flatMap((a) => [a.address_1, a.address_2, a.city, a.state, a.zipcode, a.country])),
    custom: lines(lead.custom),
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

type SearchRow = LeadSearchColumns & { lead_id: string; status_id: string }

/** The search rows of some of an organization's leads, read in seven queries however many leads there are. */
async function buildLeadSearchRows(db: Db, organizationId: string, leads: LeadTexts[]): Promise<SearchRow[]> {
  if (leads.length === 0) return []
  const ids = leads.map((l) => l.id)
  const [contacts, emails, phones, urls, addresses, custom] = await Promise.all([
    db
      .selectFrom('contact')
      .select(['lead_id', 'name', 'title'])
      .where('organization_id', '=', organizationId)
      .where('lead_id', 'in', ids)
      .orderBy('date_created')
      .orderBy('id')
      .execute(),
    db
      .selectFrom('contact_email')
      .select(['lead_id', 'email'])
      .where('organization_id', '=', organizationId)
      .where('lead_id', 'in', ids)
      .orderBy('contact_id')
      .orderBy('position')
      .execute(),
    db
      .selectFrom('contact_phone')
      .select(['lead_id', 'phone'])
      .where('organization_id', '=', organizationId)
      .where('lead_id', 'in', ids)
      .orderBy('contact_id')
      .orderBy('position')
      .execute(),
    db
      .selectFrom('contact_url')
      .select(['lead_id', 'url'])
      .where('organization_id', '=', organizationId)
      .where('lead_id', 'in', ids)
      .orderBy('contact_id')
      .orderBy('position')
      .execute(),
    db
      .selectFrom('lead_address')
      .select(['lead_id', 'address_1', 'address_2', 'city', 'state', 'zipcode', 'country'])
      .where('organization_id', '=', organizationId)
      .where('lead_id', 'in', ids)
      .orderBy('lead_id')
      .orderBy('position')
      .execute(),
    db
      .selectFrom('custom_value')
      .select(['lead_id', 'value_text'])
      .where('organization_id', '=', organizationId)
      .where('lead_id', 'in', ids)
      .whereRef('object_id', '=', 'lead_id')
      .orderBy('field_id')
      .orderBy('position')
      .execute(),
  ])
  const byLead = new Map<string, SearchableLead>(
    leads.map((l) => [
      l.id,
      {
        name: l.name,
        description: l.description,
        url: l.url,
        contacts: [],
        emails: [],
        phones: [],
        urls: [],
        addresses: [],
        custom: [],
      },
    ]),
  )
  for (const { lead_id, ...contact } of contacts) byLead.get(lead_id)?.contacts.push(contact)
  for (const e of emails) byLead.get(e.lead_id)?.emails.push(e.email)
  for (const p of phones) byLead.get(p.lead_id)?.phones.push(p.phone)
  for (const u of urls) byLead.get(u.lead_id)?.urls.push(u.url)
  for (const { lead_id, ...address } of addresses) byLead.get(lead_id)?.addresses.push(address)
  for (const v of custom) byLead.get(v.lead_id)?.custom.push(v.value_text)
  const statuses = new Map(leads.map((l) => [l.id, l.status_id]))
  return [...byLead].map(([leadId, lead]) => ({
    lead_id: leadId,
    status_id: statuses.get(leadId) ?? '',
    ...searchColumns(lead),
  }))
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

/** SQLite: new search rows take the next rowids of their organization's range, and their leads record them. */
async function insertSqliteRows(db: Db, organizationId: string, rows: SearchRow[]): Promise<void> {
  const range = await leadSearchRowids(db, organizationId, true)
  if (range === undefined) throw new Error('The organization has no lead search rowids')
  const next = (await topSearchRowid(db, range)) + 1
  if (next + rows.length > range.last) throw new Error('The organization has no lead search rowids left')
  const numbered = rows.map((row, i) => ({ ...row, rowid: next + i, organization_id: organizationId }))
  for (let i = 0; i < numbered.length; i += WRITE_ROWS) {
    const part = numbered.slice(i, i + WRITE_ROWS)
    await db.insertInto('lead_search').values(part).execute()
    await sql`update lead set search_rowid = (select s.rowid from lead_search s where s.lead_id = lead.id)
      where organization_id = ${organizationId} and id in (${sql.join(part.map((r) => r.lead_id))})`.execute(db)
  }
}

function isPostgres(db: Db): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter
}

/**
 * Brings the documents of some of an organization's leads up to date in a handful of queries however many leads
 * there are, writing only those that changed (each write is a delete and an insert in the trigram index).
 * The one path for a lead's writes, the demo seeder and rebuilds. Resolves to the number of documents written.
 */
export async function refreshLeadSearchOf(db: Db, organizationId: string, leads: LeadTexts[]): Promise<number> {
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
  return changed.length
}

/**
 * Rebuilds a lead's search document. Called in the same transaction as every write that changes a searchable
 * text, so search never sees a half-written lead.
 */
export async function refreshLeadSearch(db: Db, organizationId: string, leadId: string): Promise<void> {
  const lead = await db
    .selectFrom('lead')
    .select(['id', 'name', 'description', 'url', 'status_id'])
    .where('organization_id', '=', organizationId)
    .where('id', '=', leadId)
    .executeTakeFirst()
  if (lead !== undefined) await refreshLeadSearchOf(db, organizationId, [lead])
}

export interface RebuildOptions {
  /** Called after each batch with the leads done so far and the total. */
  onProgress?: (done: number, total: number) => void
  batchSize?: number
}

/** The next `limit` leads of an organization after the id `after`, in id order (a keyset walk over its leads). */
export async function leadTextsAfter(
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
        await refreshLeadSearchOf(tx, organizationId, leads)
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
