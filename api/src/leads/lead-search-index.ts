import { PostgresAdapter, sql } from 'kysely'
import { readAppState, writeAppState } from '../db/app-state.js'
import type { Db, LeadSearchTable } from '../db/database.js'
import { formatPhoneNumber, phoneSearchForms } from '../phone-numbers/phone-number-repo.js'
import { foldCase } from '../platform/text.js'

/**
 * The format of the documents `searchDocument` builds. Bump it whenever its output changes (another field, another
 * form of a value, other folding): a database whose documents are older is rebuilt at the next start-up or
 * `leadline migrate` (`ensureLeadSearchCurrent`), since a migration cannot build documents.
 * 1: the first format (no stored version). 2: phones also as digits, national digits and national format; foldCase.
 */
export const SEARCH_DOCUMENT_VERSION = 2

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
}

/** The free-text search document of a lead: every searchable text, lower-cased, one per line. */
export function searchDocument(lead: SearchableLead): string {
  const parts: Text[] = [
    lead.name,
    lead.description,
    lead.url,
    ...lead.contacts.flatMap((c) => [c.name, c.title]),
    ...lead.emails,
    ...lead.phones.flatMap((p) => [p, formatPhoneNumber(p), ...phoneSearchForms(p)]),
    ...lead.urls,
    ...lead.addresses.flatMap((a) => [a.address_1, a.address_2, a.city, a.state, a.zipcode, a.country]),
  ]
  return foldCase(parts.filter((p): p is string => p !== null && p !== '').join('\n'))
}

/** The lead's own searchable columns, as the caller already read (or wrote) them. */
export interface LeadTexts {
  id: string
  name: string | null
  description: string
  url: string | null
}

/** The documents of some of an organization's leads, read in six queries however many leads there are. */
async function buildLeadSearchDocuments(
  db: Db,
  organizationId: string,
  leads: LeadTexts[],
): Promise<LeadSearchTable[]> {
  if (leads.length === 0) return []
  const ids = leads.map((l) => l.id)
  const [contacts, emails, phones, urls, addresses] = await Promise.all([
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
      },
    ]),
  )
  for (const { lead_id, ...contact } of contacts) byLead.get(lead_id)?.contacts.push(contact)
  for (const e of emails) byLead.get(e.lead_id)?.emails.push(e.email)
  for (const p of phones) byLead.get(p.lead_id)?.phones.push(p.phone)
  for (const u of urls) byLead.get(u.lead_id)?.urls.push(u.url)
  for (const { lead_id, ...address } of addresses) byLead.get(lead_id)?.addresses.push(address)
  return [...byLead].map(([leadId, lead]) => ({
    lead_id: leadId,
    organization_id: organizationId,
    body: searchDocument(lead),
  }))
}

/**
 * Brings the documents of some of an organization's leads up to date in a handful of queries however many leads
 * there are, writing only those that changed (each write is a delete and an insert in the trigram index).
 * The one path for a lead's writes, the demo seeder and rebuilds. Resolves to the number of documents written.
 */
export async function refreshLeadSearchOf(db: Db, organizationId: string, leads: LeadTexts[]): Promise<number> {
  if (leads.length === 0) return 0
  const [documents, stored] = await Promise.all([
    buildLeadSearchDocuments(db, organizationId, leads),
    db
      .selectFrom('lead_search')
      .select(['lead_id', 'body'])
      .where('organization_id', '=', organizationId)
      .where(
        'lead_id',
        'in',
        leads.map((l) => l.id),
      )
      .execute(),
  ])
  const current = new Map(stored.map((s) => [s.lead_id, s.body]))
  const changed = documents.filter((d) => current.get(d.lead_id) !== d.body)
  for (let i = 0; i < changed.length; i += WRITE_ROWS) {
    await db
      .insertInto('lead_search')
      .values(changed.slice(i, i + WRITE_ROWS))
      .onConflict((oc) => oc.column('lead_id').doUpdateSet((eb) => ({ body: eb.ref('excluded.body') })))
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
    .select(['id', 'name', 'description', 'url'])
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

/**
 * Rebuilds every lead's search document, organization by organization, a batch of leads per transaction, then
 * records SEARCH_DOCUMENT_VERSION. Resolves to the number of leads it went through. Safe while the api serves:
 * on Postgres a batch locks its leads, so a concurrent write to one of them (which updates the lead too) either
 * commits first and is read, or waits and then writes its own document.
 */
export async function rebuildLeadSearch(db: Db, options: RebuildOptions = {}): Promise<number> {
  const batchSize = options.batchSize ?? REBUILD_BATCH
  const lockRows = db.getExecutor().adapter instanceof PostgresAdapter
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
        const leads = await tx
          .selectFrom('lead')
          .select(['id', 'name', 'description', 'url'])
          .where('organization_id', '=', organizationId)
          .where('id', '>', after)
          .orderBy('id')
          .limit(batchSize)
          .$if(lockRows, (q) => q.forUpdate())
          .execute()
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
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return rebuildLeadSearch(db, options)
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
