import { sql } from 'kysely'
import {
  DUPLICATE_REASONS,
  LEAD_DUPLICATES_MAX,
  NAME_SIMILARITY_THRESHOLD,
  type DuplicateCluster,
  type DuplicateLead,
  type DuplicateReason,
  type LeadDuplicate,
} from '@leadline/shared/lead-duplicate-schema'
import type { Db, Dialect } from '../../platform/data/database.js'
import { groupBy } from '../../platform/data/collections.js'
import { leadSearchRowids } from './lead-search-index.js'
import { nameTrigrams, rawTrigrams, trigramSimilarity } from './name-trigrams.js'

// Likely duplicates of leads (decision 0058): leads that share a contact email or phone, a web domain (the search
// row's `url_domain`, migration 0043), or have a very similar name. Every read is bounded: each reason names at most
// CANDIDATES leads, each cluster at most CLUSTER_LEADS, whatever the organization's size. Merged leads are deleted,
// so they are never named.

/** The most leads each reason proposes for one lead, before they are scored and the best kept. */
const CANDIDATES = 50
/** The most of a lead's emails (or phones) looked up. */
const VALUES_PER_LEAD = 50
/** The most trigrams of a name SQLite looks up (a name's first ones): enough to find its near twins. */
const NAME_TRIGRAMS = 40
/**
 * Postgres's trigram index finds names at least this similar (`%`); the app then keeps those at or above the
 * threshold by its own measure, which can differ from pg_trgm's in the last decimals (and on letters outside ASCII).
 */
const POSTGRES_NAME_CUTOFF = NAME_SIMILARITY_THRESHOLD - 0.1
/** The most leads a cluster lists (`lead_count` says how many share it). */
export const CLUSTER_LEADS = 20

interface Candidate {
  id: string
  reasons: Set<DuplicateReason>
}

async function sharedContactValues(
  db: Db,
  table: 'contact_email' | 'contact_phone',
  organizationId: string,
  leadId: string,
): Promise<string[]> {
  // Two reads, not a self-join, so that no planner may walk the organization's values to reach the lead's.
  const mine = await db
    .selectFrom(table)
    .select('value_lower')
    .where('organization_id', '=', organizationId)
    .where('lead_id', '=', leadId)
    .limit(VALUES_PER_LEAD)
    .execute()
  if (mine.length === 0) return []
  const rows = await db
    .selectFrom(table)
    .select('lead_id')
    .distinct()
    .where('organization_id', '=', organizationId)
    .where(
      'value_lower',
      'in',
      mine.map((m) => m.value_lower),
    )
    .where('lead_id', '<>', leadId)
    .limit(CANDIDATES)
    .execute()
  return rows.map((r) => r.lead_id)
}

async function sameDomain(db: Db, organizationId: string, leadId: string, domain: string | null): Promise<string[]> {
  if (domain === null) return []
  const rows = await db
    .selectFrom('lead_search')
    .select('lead_id')
    .where('organization_id', '=', organizationId)
    .where('url_domain', '=', domain)
    .where('lead_id', '<>', leadId)
    .limit(CANDIDATES)
    .execute()
  return rows.map((r) => r.lead_id)
}

/** FTS5's query for texts of the `name` column holding any of `pieces`. */
function anyPieceOfName(pieces: string[]): string {
  return pieces.map((piece) => `{name} : "${piece.replace(/"/g, '""')}"`).join(' OR ')
}

/**
 * Leads whose names look like `name` (folded), best first: Postgres asks its trigram index for names similar by
 * pg_trgm; SQLite asks its trigram index for names sharing the most pieces of it (FTS5's rank), within the
 * organization's rowids. The caller measures each and keeps the similar ones.
 */
async function similarNames(
  db: Db,
  dialect: Dialect,
  organizationId: string,
  leadId: string,
  name: string,
): Promise<string[]> {
  // Too short for a trigram index to find; such a name is not a reason (on either database).
  if (Array.from(name).length < 3) return []
  if (dialect === 'postgres') {
    return db.transaction().execute(async (tx) => {
      await sql`select set_config('pg_trgm.similarity_threshold', ${String(POSTGRES_NAME_CUTOFF)}, true)`.execute(tx)
      const rows = await sql<{ lead_id: string }>`select lead_id from lead_search
        where organization_id = ${organizationId} and name % ${name} and lead_id <> ${leadId}
        order by similarity(name, ${name}) desc, lead_id limit ${CANDIDATES}`.execute(tx)
      return rows.rows.map((r) => r.lead_id)
    })
  }
  const range = await leadSearchRowids(db, organizationId)
  if (range === undefined) return []
  const rows = await sql<{ lead_id: string }>`select lead_id from lead_search where rowid in (
      select rowid from lead_search_fts where lead_search_fts match ${anyPieceOfName(rawTrigrams(name, NAME_TRIGRAMS))}
      and rowid between ${range.first} and ${range.last} order by rank limit ${CANDIDATES + 1})`.execute(db)
  return rows.rows.map((r) => r.lead_id).filter((id) => id !== leadId)
}

interface LeadFacts {
  id: string
  name: string | null
  url: string | null
  status_id: string
  status_label: string
  date_created: string
  folded_name: string | null
}

/** What the duplicate lists show of some of the organization's leads, with their folded names, by id. */
async function leadFacts(
  db: Db,
  organizationId: string,
  ids: string[],
): Promise<Map<string, { view: DuplicateLead; folded: string }>> {
  if (ids.length === 0) return new Map()
  const rows: LeadFacts[] = await db
    .selectFrom('lead')
    .innerJoin('lead_status', 'lead_status.id', 'lead.status_id')
    .leftJoin('lead_search', 'lead_search.lead_id', 'lead.id')
    .select([
      'lead.id',
      'lead.name',
      'lead.url',
      'lead.status_id',
      'lead_status.label as status_label',
      'lead.date_created',
      'lead_search.name as folded_name',
    ])
    .where('lead.organization_id', '=', organizationId)
    .where('lead.id', 'in', ids)
    .execute()
  // A lead without a name is shown by its first contact's, as the lead itself is.
  const unnamed = rows.filter((r) => r.name === null || r.name === '').map((r) => r.id)
  const contacts =
    unnamed.length === 0
      ? []
      : await db
          .selectFrom('contact')
          .select(['lead_id', 'name'])
          .where('organization_id', '=', organizationId)
          .where('lead_id', 'in', unnamed)
          .where('name', 'is not', null)
          .orderBy('date_created')
          .orderBy('position')
          .orderBy('id')
          .execute()
  const contactNames = groupBy(contacts, (c) => c.lead_id)
  return new Map(
    rows.map((r) => [
      r.id,
      {
        view: {
          id: r.id,
          display_name: r.name !== null && r.name !== '' ? r.name : (contactNames.get(r.id)?.[0]?.name ?? ''),
          url: r.url,
          status_id: r.status_id,
          status_label: r.status_label,
          date_created: r.date_created,
        },
        folded: r.folded_name ?? '',
      },
    ]),
  )
}

/**
 * The organization's leads most likely the same as `leadId` (at most LEAD_DUPLICATES_MAX, the most reasons first,
 * then the most similar names); undefined when the organization has no such lead.
 */
export async function findLeadDuplicates(
  db: Db,
  dialect: Dialect,
  organizationId: string,
  leadId: string,
): Promise<LeadDuplicate[] | undefined> {
  const lead = await db
    .selectFrom('lead')
    .leftJoin('lead_search', 'lead_search.lead_id', 'lead.id')
    .select(['lead.id', 'lead_search.name', 'lead_search.url_domain'])
    .where('lead.organization_id', '=', organizationId)
    .where('lead.id', '=', leadId)
    .executeTakeFirst()
  if (lead === undefined) return undefined
  const name = lead.name ?? ''
  const [emails, phones, domains, names] = await Promise.all([
    sharedContactValues(db, 'contact_email', organizationId, leadId),
    sharedContactValues(db, 'contact_phone', organizationId, leadId),
    sameDomain(db, organizationId, leadId, lead.url_domain ?? null),
    similarNames(db, dialect, organizationId, leadId, name),
  ])
  const candidates = new Map<string, Candidate>()
  const add = (ids: string[], reason: DuplicateReason) => {
    for (const id of ids) {
      const candidate = candidates.get(id) ?? { id, reasons: new Set() }
      candidate.reasons.add(reason)
      candidates.set(id, candidate)
    }
  }
  add(emails, 'email')
  add(phones, 'phone')
  add(domains, 'url')
  const facts = await leadFacts(db, organizationId, [...new Set([...candidates.keys(), ...names])])
  const mine = nameTrigrams(name)
  const similarity = (id: string) => trigramSimilarity(mine, nameTrigrams(facts.get(id)?.folded ?? ''))
  add(
    names.filter((id) => similarity(id) >= NAME_SIMILARITY_THRESHOLD),
    'name',
  )
  const scored = [...candidates.values()].flatMap((c) => {
    const shown = facts.get(c.id)
    if (shown === undefined) return []
    const reasons = DUPLICATE_REASONS.filter((r) => c.reasons.has(r))
    return [{ lead: shown.view, reasons, similarity: Math.round(similarity(c.id) * 1000) / 1000 }]
  })
  return scored
    .sort(
      (a, b) =>
        b.reasons.length - a.reasons.length ||
        b.similarity - a.similarity ||
        (a.lead.id < b.lead.id ? -1 : a.lead.id > b.lead.id ? 1 : 0),
    )
    .slice(0, LEAD_DUPLICATES_MAX)
}

interface ClusterRow {
  reason: DuplicateReason
  value: string
  lead_count: number | string
}

/**
 * A page of the organization's clusters: each email, phone, web domain or folded name that two leads or more share,
 * by reason then value. Each reason's clusters are counted by one walk of an index that holds the value and the lead
 * (the lookup indexes of emails and phones, the domain and name indexes of the search rows); then each cluster on
 * the page lists its first CLUSTER_LEADS leads, in id order (which is creation order, decision 0055).
 */
export async function listDuplicateClusters(
  db: Db,
  dialect: Dialect,
  organizationId: string,
  page: { skip: number; limit: number },
): Promise<{ has_more: boolean; data: DuplicateCluster[] }> {
  const byCode = dialect === 'postgres' ? sql` collate "C"` : sql``
  const shared = (table: 'contact_email' | 'contact_phone', reason: DuplicateReason, key: number) =>
    sql`select ${sql.lit(key)} as k, ${sql.lit(reason)} as reason, value_lower as value, count(distinct lead_id) as lead_count
      from ${sql.table(table)} where organization_id = ${organizationId}
      group by value_lower having count(distinct lead_id) > 1`
  const rows = await sql<ClusterRow>`select reason, value, lead_count from (
      ${shared('contact_email', 'email', 1)}
      union all ${shared('contact_phone', 'phone', 2)}
      union all select 3 as k, 'url' as reason, url_domain as value, count(*) as lead_count from lead_search
        where organization_id = ${organizationId} and url_domain is not null
        group by url_domain having count(*) > 1
      union all select 4 as k, 'name' as reason, name${byCode} as value, count(*) as lead_count from lead_search
        where organization_id = ${organizationId} and name <> ''
        group by name${byCode} having count(*) > 1
    ) clusters order by k, value${byCode} limit ${page.limit + 1} offset ${page.skip}`.execute(db)
  const clusters = rows.rows.slice(0, page.limit)
  const members = await Promise.all(clusters.map((c) => clusterLeadIds(db, dialect, organizationId, c)))
  const facts = await leadFacts(db, organizationId, [...new Set(members.flat())])
  return {
    has_more: rows.rows.length > page.limit,
    data: clusters.map((c, i) => ({
      reason: c.reason,
      value: c.value,
      lead_count: Number(c.lead_count),
      leads: (members[i] ?? []).flatMap((id) => {
        const shown = facts.get(id)
        return shown === undefined ? [] : [shown.view]
      }),
    })),
  }
}

/** The first CLUSTER_LEADS leads of a cluster, in id order. */
async function clusterLeadIds(
  db: Db,
  dialect: Dialect,
  organizationId: string,
  cluster: ClusterRow,
): Promise<string[]> {
  const { reason, value } = cluster
  if (reason === 'email' || reason === 'phone') {
    const rows = await db
      .selectFrom(reason === 'email' ? 'contact_email' : 'contact_phone')
      .select('lead_id')
      .distinct()
      .where('organization_id', '=', organizationId)
      .where('value_lower', '=', value)
      .orderBy('lead_id')
      .limit(CLUSTER_LEADS)
      .execute()
    return rows.map((r) => r.lead_id)
  }
  const base = db.selectFrom('lead_search').select('lead_id').where('organization_id', '=', organizationId)
  const rows =
    reason === 'url'
      ? await base.where('url_domain', '=', value).orderBy('lead_id').limit(CLUSTER_LEADS).execute()
      : await base
          .where(dialect === 'postgres' ? sql`name collate "C"` : sql.ref('name'), '=', value)
          .orderBy('lead_id')
          .limit(CLUSTER_LEADS)
          .execute()
  return rows.map((r) => r.lead_id)
}
