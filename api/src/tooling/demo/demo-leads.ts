import { sql } from 'kysely'
import { inTransaction, type CustomObjectType, type Db } from '../../platform/data/database.js'
import { newId } from '../../platform/security/ids.js'
import { formatTimestamp, type Clock } from '../../platform/data/time.js'
import { addSearchRowsInBulk, nextSearchRowid } from '../../crm/leads/lead-search-index.js'
import { loadOpportunitySetting } from '../../crm/opportunities/opportunity-input.js'
import { insertRows, isSqlite } from '../../platform/data/bulk-insert.js'
import { withBulkLoadSchema, withBulkLoadSettings } from './demo-bulk-write.js'
import { DECISION_ROLES, INDUSTRIES, SEEDED_TABLES, type DemoLeadSetting } from './demo-lead-rows.js'
import { demoLeadSource, type DemoLeadSource } from './demo-lead-source.js'

// Seeds demo leads in bulk: batches of leads generated in memory (on a worker thread when it can run) and written
// in one transaction of multi-row inserts, with nothing read back.

/**
 * Leads generated and written per batch: a batch's values live until they are written, and garbage collection
 * copies what is alive in young memory, so fewer leads a batch cost the worker and the writer less.
 */
const LEADS_PER_BATCH = 1000

async function ensureDemoFields(db: Db, organizationId: string, now: string): Promise<DemoLeadSetting['fields']> {
  const wanted: { objectType: CustomObjectType; name: string; type: string; choices: string | null }[] = [
    { objectType: 'lead', name: 'Industry', type: 'choices', choices: JSON.stringify(INDUSTRIES) },
    { objectType: 'lead', name: 'Employees', type: 'number', choices: null },
    { objectType: 'lead', name: 'Renewal date', type: 'date', choices: null },
    { objectType: 'lead', name: 'Account owner', type: 'user', choices: null },
    { objectType: 'contact', name: 'Decision role', type: 'choices', choices: JSON.stringify(DECISION_ROLES) },
  ]
  const existing = await db
    .selectFrom('custom_field')
    .select(['id', 'name', 'object_type', 'position'])
    .where('organization_id', '=', organizationId)
    .execute()
  const ids: Record<string, string> = {}
  // New fields go last, in the order listed here.
  const next = (objectType: CustomObjectType) =>
    Math.max(-1, ...existing.filter((f) => f.object_type === objectType).map((f) => f.position)) + 1
  for (const field of wanted) {
    const found = existing.find((f) => f.name === field.name && f.object_type === field.objectType)
    if (found !== undefined) {
      ids[field.name] = found.id
      continue
    }
    const id = newId('customField')
    const position = next(field.objectType)
    existing.push({ id, name: field.name, object_type: field.objectType, position })
    await db
      .insertInto('custom_field')
      .values({
        id,
        organization_id: organizationId,
        object_type: field.objectType,
        name: field.name,
        description: null,
        type: field.type,
        choices: field.choices,
        accepts_multiple_values: 0,
        position,
        created_by: null,
        updated_by: null,
        date_created: now,
        date_updated: now,
      })
      .execute()
    ids[field.name] = id
  }
  return {
    industry: ids.Industry ?? '',
    employees: ids.Employees ?? '',
    renewal: ids['Renewal date'] ?? '',
    owner: ids['Account owner'] ?? '',
    decisionRole: ids['Decision role'] ?? '',
  }
}

/** A bulk load pays off when the seed adds at least as many leads as the database already holds. */
async function isBulkLoad(db: Db, count: number): Promise<boolean> {
  const beyond = await db.selectFrom('lead').select('id').orderBy('id').limit(1).offset(count).executeTakeFirst()
  return beyond === undefined
}

export interface SeedDemoLeadsOptions {
  /** Hears the leads written so far and the total, after each batch. */
  onProgress?: (created: number, total: number) => void
  /** Hears that every lead is written and the indexes and the planner's statistics are being built. */
  onFinishing?: () => void
  /** Where the leads are generated; by default on a worker thread when one can run (demo-lead-source.ts). */
  source?: (setting: DemoLeadSetting) => DemoLeadSource
  /** Leads per batch; LEADS_PER_BATCH unless a test wants several batches of a few leads. */
  batchSize?: number
}

/**
 * Creates `count` realistic leads with contacts, addresses, custom values, notes, status changes and opportunities
 * (over the organization's pipelines, with their status changes), and their search rows, in one transaction (the
 * caller's, when `db` is one): an interrupted seed leaves nothing behind.
 */
export async function seedDemoLeads(
  db: Db,
  clock: Clock,
  organizationId: string,
  count: number,
  options: SeedDemoLeadsOptions = {},
): Promise<number> {
  if (count === 0) return 0
  await inTransaction(db, (tx) =>
    withBulkLoadSettings(tx, count, async () => {
      const setting = await demoLeadSetting(tx, clock, organizationId, count)
      const source = (options.source ?? demoLeadSource)(setting)
      try {
        const batchSize = options.batchSize ?? LEADS_PER_BATCH
        const write = () => loadDemoLeads(tx, source, count, batchSize, options.onProgress)
        const load = async () => {
          if (await isBulkLoad(tx, count)) await withBulkLoadSchema(tx, SEEDED_TABLES, write, options.onFinishing)
          else {
            await write()
            options.onFinishing?.()
          }
        }
        const first = setting.firstSearchRowid
        // SQLite: the trigram index takes the search rows together, once they are all in.
        await (first === undefined ? load() : addSearchRowsInBulk(tx, { first, last: first + count - 1 }, load))
      } finally {
        await source.close()
      }
      // A bulk load changes the tables' shape: give the query planner fresh statistics.
      await sql`analyze`.execute(tx)
    }),
  )
  return count
}

async function demoLeadSetting(db: Db, clock: Clock, organizationId: string, count: number): Promise<DemoLeadSetting> {
  const nowMs = clock.now().getTime()
  const [members, statuses, opportunities] = await Promise.all([
    db.selectFrom('membership').select('user_id').where('organization_id', '=', organizationId).execute(),
    db
      .selectFrom('lead_status')
      .select(['id', 'label'])
      .where('organization_id', '=', organizationId)
      .orderBy('position')
      .execute(),
    // Its currency, and its pipelines' statuses in order, as an opportunity write reads them.
    loadOpportunitySetting(db, organizationId),
  ])
  const userIds = members.map((m) => m.user_id)
  if (userIds.length === 0 || statuses.length === 0)
    throw new Error('The organization needs users and lead statuses first.')
  const fields = await ensureDemoFields(db, organizationId, formatTimestamp(new Date(nowMs)))
  const firstSearchRowid = isSqlite(db) ? await nextSearchRowid(db, organizationId, count) : undefined
  return {
    organizationId,
    nowMs,
    userIds,
    statuses,
    currency: opportunities.currency,
    opportunityStatuses: opportunities.statuses,
    fields,
    seed: count * 7919 + 17,
    leads: count,
    firstSearchRowid,
  }
}

/** Writes the leads a batch at a time; the next batch is generated while one is written. */
async function loadDemoLeads(
  db: Db,
  source: DemoLeadSource,
  count: number,
  batchSize: number,
  onProgress: ((created: number, total: number) => void) | undefined,
): Promise<void> {
  const request = (done: number) => {
    const batch = source.next(Math.min(batchSize, count - done))
    // Awaited later; until then a failure must not count as unhandled.
    batch.catch(() => undefined)
    return batch
  }
  let created = 0
  let pending = request(0)
  while (created < count) {
    const batch = await pending
    if (batch.leads === 0) throw new Error('the demo lead source ran dry')
    const written = created + batch.leads
    if (written < count) pending = request(written)
    for (const { table, rows } of batch.tables) await insertRows(db, table, rows)
    created = written
    onProgress?.(created, count)
  }
}
