import { sql, type Insertable } from 'kysely'
import { IMPORT_LIMITS, type DuplicateRule, type ImportProblem } from '@leadline/shared/import-schema'
import type {
  ActivityTable,
  ContactEmailTable,
  ContactPhoneTable,
  ContactUrlTable,
  CustomValueTable,
  Db,
  LeadRow,
  Tables,
} from '../../platform/data/database.js'
import { refreshPlannerStatistics } from '../../platform/data/database.js'
import { formatTimestamp } from '../../platform/data/time.js'
import { newId } from '../../platform/security/ids.js'
import { createdStamps } from '../../platform/data/stamps.js'
import {
  createJobLoop,
  createLeaseKeeper,
  jobRequests,
  LeaseLost,
  Stopping,
  type JobWorker,
  type JobWorkerOptions,
  type Lease,
} from '../../platform/data/leased-jobs.js'
import { recordEvents, type EventContext, type EventInput, type EventSink } from '../events/event-repo.js'
import {
  customFieldEvent,
  customFieldView,
  insertCustomField,
  lockOrganizationCustomFields,
} from '../../crm/custom-fields/custom-field-repo.js'
import { createMetaCache, type MetaCache, type OrganizationMeta } from '../../crm/organizations/organization-meta.js'
import { deleteLeads, updateLead } from '../../crm/leads/lead-repo.js'
import {
  leadSearchRow,
  nextSearchRowid,
  refreshLeadSearchOfIds,
  type LeadSearchRow,
} from '../../crm/leads/lead-search-index.js'
import { leadViews, type LeadView, type WrittenLeads } from '../../crm/leads/lead-view.js'
import { flattenRows, insertRows, insertRowsInOneStatement } from '../../platform/data/bulk-insert.js'
import { readInChunks } from '../../platform/data/collections.js'
import { leadEvent } from '../../crm/leads/lead-write.js'
import { insertContact } from '../../crm/contacts/contact-repo.js'
import { deleteWithCustomValues, writeCustomValues, type CustomValue } from '../../crm/custom-fields/custom-values.js'
import { newActivityRow, opportunityStatusChangeData } from '../../crm/activities/activity-repo.js'
import { money } from '../../crm/opportunities/opportunity-repo.js'
import { syncOpportunityDue } from '../../crm/tasks/task-due.js'
import { foldCase } from '../../platform/text/text.js'
import { importRows } from './import-file.js'
import type { ImportCheck, ImportCounts, ImportRow } from './import-repo.js'
import {
  companyOfKey,
  loadImportSetting,
  prepareRow,
  reasonOf,
  urlHost,
  type ImportSetting,
  type RowPlan,
} from './import-rows.js'

// The import worker (decision 0053): each api process runs one. It claims an import whose job is due (a dry run,
// a run, an undo) under a lease, and works through it in batches of rows (or of leads, for an undo), each batch in
// one transaction that renews the lease and records how far the job got: a job taken up again after a restart (or a
// lease that ran out) goes on from there, and never writes a row twice.

/** Hosts whose lead URLs one query looks for (six spellings each, each an equality and a range). */
const URL_HOSTS_PER_QUERY = 40

/**
 * Rows per transaction of a run or a dry run. Measured at 300,000 rows (three a company), on the import thread:
 * 1,000 a batch took 57 s, 1,500 took 54 s, 3,000 and 6,000 took 55 s; peak RSS grows with the batch (353, 359, 376
 * and 403 MB). When rows were built with object spreads, 1,000 took 34 s and 3,000 took 28 s at 100,000 rows.
 */
export const IMPORT_BATCH = 1500
/** Leads per transaction of an undo: deleted with their rows, or put back, each with its event. */
export const UNDO_BATCH = 1000
export const IMPORT_LEASE_MS = 60_000
/** Claims of one job (each after its lease ran out) before it is given up as failed. */
export const IMPORT_MAX_ATTEMPTS = 5

const requests = jobRequests()

/** Tells this process's worker that an import's job is due, so it starts at once rather than at its next poll. */
export function importRequested(): void {
  requests.requested()
}

/** Calls `listener` whenever this process asks for an import (the import thread's host passes it on); stops when called. */
export function onImportRequested(listener: () => void): () => void {
  return requests.listen(listener)
}

export interface ImportWorkerOptions extends JobWorkerOptions {
  sink: EventSink
  meta?: MetaCache
  /** Called after each committed batch (tests stop a worker there). */
  afterBatch?: (id: string, rowsDone: number) => Promise<void> | void
}

export type ImportWorker = JobWorker

/** What an updated lead was before the import changed it, as undo puts it back. */
interface PreviousLead {
  name: string | null
  url: string | null
  description: string
  status_id: string
  custom: { field_id: string; position: number; value_text: string; value_number: number | null }[]
}

/** The states of a company key: the lead it became, and how. */
const CREATED = 1
const UPDATED = 0
const SKIPPED = 2

export function createImportWorker(options: ImportWorkerOptions): ImportWorker {
  const { db, dialect, clock, appUrl } = options
  const meta = options.meta ?? createMetaCache(db, options.reader)
  const batchSize = options.batchSize ?? IMPORT_BATCH
  const undoBatchSize = options.batchSize ?? UNDO_BATCH
  const report =
    options.onError ??
    ((error: unknown, what: string) => {
      process.stderr.write(`imports: ${what}: ${error instanceof Error ? error.message : String(error)}\n`)
    })
  const loop = createJobLoop({ drain, pollMs: options.pollMs ?? 1000, report, what: 'claiming imports' })
  const lease = createLeaseKeeper({
    db,
    dialect,
    clock,
    table: 'data_import',
    leaseMs: options.leaseMs ?? IMPORT_LEASE_MS,
    stopping: loop.stopping,
    ...(options.owner === undefined ? {} : { owner: options.owner }),
  })

  interface Claim extends Lease {
    row: ImportRow
  }

  const now = () => formatTimestamp(clock.now())
  const read = (id: string) => db.selectFrom('data_import').selectAll().where('id', '=', id).executeTakeFirstOrThrow()

  function eventContext(row: ImportRow, at: string): EventContext {
    return {
      organizationId: row.organization_id,
      userId: row.created_by,
      requestId: null,
      apiKeyId: null,
      meta: { import_id: row.id },
      now: at,
      sink: options.sink,
    }
  }

  /** Events carry views as of UTC, now (a lead's open tasks say where they stand in a zone and day). */
  const viewer = () => ({ offsetHours: 0, now: clock.now() })

  async function views(tx: Db, organization: OrganizationMeta, ids: string[]): Promise<Map<string, LeadView>> {
    if (ids.length === 0) return new Map()
    const rows: LeadRow[] = await tx
      .selectFrom('lead')
      .selectAll()
      .where('organization_id', '=', organization.organization.id)
      .where('id', 'in', ids)
      .execute()
    const built = await leadViews(tx, organization, rows, appUrl, viewer())
    return new Map(built.map((v) => [v.id, v]))
  }

  /** Stores a batch's failed rows of `pass`. */
  async function storeFailures(
    tx: Db,
    row: ImportRow,
    pass: 'check' | 'run',
    failures: { row: number; cells: readonly string[]; reason: string }[],
  ) {
    for (let i = 0; i < failures.length; i += 200) {
      const part = failures.slice(i, i + 200)
      await tx
        .insertInto('data_import_failure')
        .values(
          part.map((f) => ({
            import_id: row.id,
            organization_id: row.organization_id,
            pass,
            row: f.row,
            reason: f.reason,
            cells: JSON.stringify(f.cells),
          })),
        )
        .execute()
    }
  }

  /** The rows of the import after `rowsDone`, in batches. */
  async function* batches(row: ImportRow, from: number) {
    let batch: { row: number; cells: string[] }[] = []
    for await (const record of importRows(db, row.id, row.delimiter)) {
      if (record.row <= from) continue
      batch.push(record)
      if (batch.length >= batchSize) {
        yield batch
        batch = []
      }
    }
    if (batch.length > 0) yield batch
  }

  // --- the dry run ---

  async function check(claim: Claim): Promise<void> {
    const { row } = claim
    // A dry run taken up again starts over: it writes nothing but its findings.
    await db.deleteFrom('data_import_failure').where('import_id', '=', row.id).where('pass', '=', 'check').execute()
    const setting = await loadImportSetting(db, row.organization_id, JSON.parse(row.columns) as string[], mapping(row))
    const result: ImportCheck = { rows_ok: 0, rows_failed: 0, problems: {}, sample: [] }
    let done = 0
    for await (const batch of batches(row, 0)) {
      const failures: { row: number; cells: readonly string[]; reason: string }[] = []
      for (const record of batch) {
        const prepared = prepareRow(setting, record.row, record.cells)
        if ('plan' in prepared) {
          result.rows_ok += 1
          continue
        }
        result.rows_failed += 1
        countProblems(result, prepared.problems)
        failures.push({ row: record.row, cells: record.cells, reason: reasonOf(prepared.problems) })
      }
      done += batch.length
      await db.transaction().execute(async (tx) => {
        await lease.renew(tx, claim)
        await storeFailures(tx, row, 'check', failures)
        await tx.updateTable('data_import').set({ rows_done: done }).where('id', '=', row.id).execute()
      })
      await options.afterBatch?.(row.id, done)
    }
    await db.transaction().execute(async (tx) => {
      await lease.settle(tx, claim, 'checked')
      await tx
        .updateTable('data_import')
        .set({ check_result: JSON.stringify(result), rows_done: 0 })
        .where('id', '=', row.id)
        .execute()
    })
  }

  function countProblems(result: ImportCheck, problems: readonly ImportProblem[]) {
    for (const problem of new Set(problems.map((p) => p.problem))) {
      result.problems[problem] = (result.problems[problem] ?? 0) + 1
    }
    for (const p of problems) if (result.sample.length < IMPORT_LIMITS.sampleProblems) result.sample.push(p)
  }

  // --- the run ---

  function mapping(row: ImportRow): Record<string, string> {
    return JSON.parse(row.mapping) as Record<string, string>
  }

  /** Makes the lead text fields `new_custom_field` columns ask for (or takes one of that name), once, in the mapping. */
  async function makeNewFields(claim: Claim): Promise<ImportRow> {
    const { row } = claim
    const wanted = Object.entries(mapping(row)).filter(([, target]) => target === 'new_custom_field')
    if (wanted.length === 0) return row
    await db.transaction().execute(async (tx) => {
      await lease.renew(tx, claim)
      // As POST /custom_field/lead/ makes one: under the organization's custom field lock, with its event.
      await lockOrganizationCustomFields(tx, dialect, row.organization_id)
      const fields = await tx
        .selectFrom('custom_field')
        .select(['id', 'name'])
        .where('organization_id', '=', row.organization_id)
        .where('object_type', '=', 'lead')
        .execute()
      const at = now()
      const events: EventInput[] = []
      const next = mapping(row)
      for (const [column] of wanted) {
        let id = fields.find((f) => foldCase(f.name) === foldCase(column))?.id
        if (id === undefined) {
          const made = await insertCustomField(tx, {
            organizationId: row.organization_id,
            objectType: 'lead',
            userId: row.created_by,
            now: at,
            values: { name: column, description: null, type: 'text', choices: null, accepts_multiple_values: false },
          })
          id = made.id
          fields.push({ id, name: column })
          events.push(customFieldEvent('lead', customFieldView(made), 'created'))
        }
        next[column] = `custom.${id}`
      }
      await recordEvents(tx, eventContext(row, at), events)
      await tx
        .updateTable('data_import')
        .set({ mapping: JSON.stringify(next) })
        .where('id', '=', row.id)
        .execute()
    })
    return read(row.id)
  }

  async function run(claim: Claim): Promise<void> {
    const row = await makeNewFields(claim)
    claim.row = row
    const organization = await meta.require(row.organization_id)
    const setting = await loadImportSetting(db, row.organization_id, JSON.parse(row.columns) as string[], mapping(row))
    const rule = JSON.parse(row.duplicate_rule) as DuplicateRule
    const counts = JSON.parse(row.counts) as ImportCounts
    let done = row.rows_done
    let batchesRun = 0
    for await (const batch of batches(row, done)) {
      await db.transaction().execute(async (tx) => {
        await lease.renew(tx, claim, 'running')
        await runBatch(tx, row, organization, setting, rule, counts, batch)
        done = batch.at(-1)?.row ?? done
        await tx
          .updateTable('data_import')
          .set({ rows_done: done, counts: JSON.stringify(counts) })
          .where('id', '=', row.id)
          .execute()
      })
      // After the 1st, 2nd, 4th, 8th… batch: the statistics are taken again when a table grew tenfold.
      batchesRun += 1
      if ((batchesRun & (batchesRun - 1)) === 0) await refreshPlannerStatistics(db, dialect)
      await options.afterBatch?.(row.id, done)
    }
    await db.transaction().execute(async (tx) => {
      await lease.settle(tx, claim, 'done')
      await tx
        .updateTable('data_import')
        .set({ rows_done: row.n_rows, counts: JSON.stringify(counts) })
        .where('id', '=', row.id)
        .execute()
    })
  }

  /** The leads that existed before the import which a batch's groups match, by group key; indexed lookups only. */
  async function matches(
    tx: Db,
    row: ImportRow,
    rule: DuplicateRule,
    groups: Map<string, RowPlan[]>,
  ): Promise<Map<string, string>> {
    const found = new Map<string, string>()
    if (rule.match === 'none' || groups.size === 0) return found
    const org = row.organization_id
    const byValue = new Map<string, string[]>()
    for (const [key, plans] of groups) {
      for (const plan of plans) {
        const value =
          rule.match === 'email'
            ? plan.email
            : rule.match === 'phone'
              ? plan.phone
              : rule.match === 'url'
                ? plan.host
                : companyOfKey(key)
        if (value === undefined) continue
        byValue.set(value, [...(byValue.get(value) ?? []), key])
      }
    }
    const values = [...byValue.keys()]
    if (values.length === 0) return found
    // Leads this import made are not "existing": they are matched by key, not by the rule.
    const notOurs = sql<boolean>`not exists (select 1 from data_import_lead dil where dil.import_id = ${row.id}
      and dil.lead_id = lead.id and dil.created = ${CREATED})`
    let hits: { value: string; lead_id: string }[] = []
    for (let i = 0; i < values.length; i += 500) {
      const part = values.slice(i, i + 500)
      if (rule.match === 'email' || rule.match === 'phone') {
        const table = rule.match === 'email' ? 'contact_email' : 'contact_phone'
        hits = hits.concat(
          await tx
            .selectFrom(table)
            .innerJoin('lead', 'lead.id', `${table}.lead_id`)
            .select([`${table}.value_lower as value`, 'lead.id as lead_id'])
            .where(`${table}.organization_id`, '=', org)
            .where(`${table}.value_lower`, 'in', part)
            .where(notOurs)
            .orderBy('lead.id')
            .execute(),
        )
      } else if (rule.match === 'name') {
        hits = hits.concat(
          await tx
            .selectFrom('lead_search')
            .innerJoin('lead', 'lead.id', 'lead_search.lead_id')
            .select(['lead_search.name as value', 'lead.id as lead_id'])
            .where('lead_search.organization_id', '=', org)
            .where('lead_search.name', 'in', part)
            .where(notOurs)
            .orderBy('lead.id')
            .execute(),
        )
      } else {
        // A lead's URL as people write it: with or without scheme and `www.`, alone or with a path after `/`; each
        // spelling is an equality and a range on the (organization, url) index ('0' is the character after '/').
        for (let j = 0; j < part.length; j += URL_HOSTS_PER_QUERY) {
          const prefixes = part
            .slice(j, j + URL_HOSTS_PER_QUERY)
            .flatMap((host) =>
              ['https://', 'http://', ''].flatMap((scheme) => ['', 'www.'].map((www) => scheme + www + host)),
            )
          const rows = await tx
            .selectFrom('lead')
            .select(['url', 'id as lead_id'])
            .where('organization_id', '=', org)
            .where((eb) =>
              eb.or(
                prefixes.flatMap((prefix) => [
                  eb('url', '=', prefix),
                  eb.and([eb('url', '>=', `${prefix}/`), eb('url', '<', `${prefix}0`)]),
                ]),
              ),
            )
            .where(notOurs)
            .orderBy('id')
            .execute()
          for (const r of rows) {
            const host = r.url === null ? undefined : urlHost(r.url)
            if (host !== undefined) hits.push({ value: host, lead_id: r.lead_id })
          }
        }
      }
    }
    for (const hit of hits) {
      for (const key of byValue.get(hit.value) ?? []) if (!found.has(key)) found.set(key, hit.lead_id)
    }
    return found
  }

  async function runBatch(
    tx: Db,
    row: ImportRow,
    organization: OrganizationMeta,
    setting: ImportSetting,
    rule: DuplicateRule,
    counts: ImportCounts,
    batch: { row: number; cells: string[] }[],
  ): Promise<void> {
    const at = now()
    const { currency } = await tx
      .selectFrom('organization')
      .select('currency')
      .where('id', '=', row.organization_id)
      .executeTakeFirstOrThrow()
    const ctx: WriteCtx = {
      organizationId: row.organization_id,
      userId: row.created_by,
      now: at,
      events: eventContext(row, at),
      currency,
    }
    const failures: { row: number; cells: readonly string[]; reason: string }[] = []
    const groups = new Map<string, RowPlan[]>()
    for (const record of batch) {
      const prepared = prepareRow(setting, record.row, record.cells)
      if ('problems' in prepared) {
        failures.push({ row: record.row, cells: record.cells, reason: reasonOf(prepared.problems) })
        continue
      }
      const plans = groups.get(prepared.plan.key) ?? []
      plans.push(prepared.plan)
      groups.set(prepared.plan.key, plans)
    }
    counts.failed += failures.length
    await storeFailures(tx, row, 'run', failures)

    // Keys earlier batches met already keep what they became; the others are matched against existing leads.
    const known = new Map<string, { lead_id: string; created: number }>()
    const keys = [...groups.keys()]
    for (let i = 0; i < keys.length; i += 500) {
      const rows = await tx
        .selectFrom('data_import_lead')
        .select(['key', 'lead_id', 'created'])
        .where('import_id', '=', row.id)
        .where('key', 'in', keys.slice(i, i + 500))
        .execute()
      for (const r of rows) known.set(r.key, r)
    }
    const fresh = new Map([...groups].filter(([key]) => !known.has(key)))
    const matched = await matches(tx, row, rule, fresh)
    const recordKey = async (key: string, leadId: string, created: number) => {
      known.set(key, { lead_id: leadId, created })
      await tx
        .insertInto('data_import_lead')
        .values({ import_id: row.id, organization_id: row.organization_id, key, lead_id: leadId, created })
        .execute()
    }
    let updatedNow = 0
    for (const [key, leadId] of matched) {
      if (rule.action === 'skip') await recordKey(key, leadId, SKIPPED)
      else if (rule.action === 'update') {
        await recordKey(key, leadId, UPDATED)
        updatedNow += 1
      }
    }

    // Existing leads this batch updates: their views before, for the events, and their state before, for undo.
    const updating = [
      ...new Set(
        [...groups.keys()].flatMap((k) => {
          const state = known.get(k)
          return state?.created === UPDATED ? [state.lead_id] : []
        }),
      ),
    ]
    const before = await views(tx, organization, updating)
    await rememberPrevious(tx, row, updating)

    const updatedIds = new Set<string>()
    const creating: [string, RowPlan[]][] = []
    const adding: { leadId: string; plans: RowPlan[]; existing: boolean }[] = []
    for (const [key, plans] of groups) {
      const state = known.get(key)
      if (state?.created === SKIPPED) {
        counts.skipped += plans.length
        continue
      }
      if (state === undefined) {
        creating.push([key, plans])
        continue
      }
      adding.push({ leadId: state.lead_id, plans, existing: state.created === UPDATED })
      if (state.created === UPDATED) updatedIds.add(state.lead_id)
    }
    // The leads met before, read once for the batch (two keys may name the same lead: each sees what the other
    // added), each given its rows, and their search rows written once, after all of them.
    const leadsMet = await leadsAddedTo(tx, [...new Set(adding.map((a) => a.leadId))], updatedIds)
    for (const { leadId, plans, existing } of adding) {
      const met = leadsMet.get(leadId)
      if (met === undefined) throw new Error(`The lead ${leadId} the import adds to is not there.`)
      await addToLead(tx, ctx, row, met, plans, counts, existing)
    }
    await refreshLeadSearchOfIds(tx, row.organization_id, [...leadsMet.keys()])
    const created = await createInBulk(tx, ctx, row, setting, creating, counts)
    counts.created += created.leads.length
    counts.updated += updatedNow

    const createdViews = await leadViews(tx, organization, created.leads, appUrl, viewer(), created.written)
    const after = await views(tx, organization, [...updatedIds])
    const events: EventInput[] = createdViews.map((view) => leadEvent(view, 'created'))
    for (const id of updatedIds) {
      const view = after.get(id)
      if (view !== undefined) events.push({ ...leadEvent(view, 'updated'), previous: before.get(id) ?? view })
    }
    await recordEvents(tx, ctx.events, events)
  }

  /** Keeps what existing leads were before the import first changes them (once per lead and import). */
  async function rememberPrevious(tx: Db, row: ImportRow, leadIds: string[]) {
    if (leadIds.length === 0) return
    const kept = new Set(
      (
        await tx
          .selectFrom('data_import_change')
          .select('lead_id')
          .where('import_id', '=', row.id)
          .where('lead_id', 'in', leadIds)
          .execute()
      ).map((r) => r.lead_id),
    )
    const missing = leadIds.filter((id) => !kept.has(id))
    if (missing.length === 0) return
    const leads = await tx
      .selectFrom('lead')
      .select(['id', 'name', 'url', 'description', 'status_id'])
      .where('organization_id', '=', row.organization_id)
      .where('id', 'in', missing)
      .execute()
    const values = await tx
      .selectFrom('custom_value')
      .select(['object_id', 'field_id', 'position', 'value_text', 'value_number'])
      .where('organization_id', '=', row.organization_id)
      .where('object_id', 'in', missing)
      .execute()
    await tx
      .insertInto('data_import_change')
      .values(
        leads.map((lead) => {
          const previous: PreviousLead = {
            name: lead.name,
            url: lead.url,
            description: lead.description,
            status_id: lead.status_id,
            custom: values
              .filter((v) => v.object_id === lead.id)
              .map((v) => ({
                field_id: v.field_id,
                position: v.position,
                value_text: v.value_text,
                value_number: v.value_number,
              })),
          }
          return {
            import_id: row.id,
            organization_id: row.organization_id,
            lead_id: lead.id,
            previous: JSON.stringify(previous),
          }
        }),
      )
      .execute()
  }

  /** A batch's writes: whose, when, their events, and the organization's currency (an opportunity's). */
  type WriteCtx = { organizationId: string; userId: string; now: string; events: EventContext; currency: string }

  /** The first non-empty value of a field among a group's rows. */
  function firstOf<T>(plans: RowPlan[], pick: (plan: RowPlan) => T | undefined): T | undefined {
    for (const plan of plans) {
      const value = pick(plan)
      if (value !== undefined) return value
    }
    return undefined
  }

  function mergedCustom(plans: RowPlan[]) {
    const custom = new Map<string, (string | number)[] | null>()
    for (const plan of plans)
      for (const [id, v] of plan.leadCustom) if (!custom.has(id) && v !== null) custom.set(id, v)
    return custom
  }

  /**
   * Creates a lead for each new company key of a batch, with a few multi-row statements per table (`insertRows`)
   * rather than `createLead`'s dozen a lead: the rows are those `createLead` and `insertContact` write (the triggers
   * count the leads and revisions of a multi-row insert row by row, as of single rows), the search rows are built
   * once for the batch with the rowids their leads record (SQLite), and the keys are recorded in one statement.
   * Opportunities go through `addOpportunity`, lead by lead. Answers the leads and what was written of them, from
   * which their views are built for the events without reading them back.
   */
  async function createInBulk(
    tx: Db,
    ctx: WriteCtx,
    row: ImportRow,
    setting: ImportSetting,
    groups: [string, RowPlan[]][],
    counts: ImportCounts,
  ): Promise<{ leads: LeadRow[]; written: WrittenLeads }> {
    const withOpportunities = new Set<string>()
    const written: WrittenLeads = {
      contacts: [],
      contactParts: { emails: [], phones: [], urls: [], custom: new Map() },
      addresses: [],
      custom: new Map(),
      withOpportunities,
    }
    if (groups.length === 0) return { leads: [], written }
    const org = ctx.organizationId
    const stamps = createdStamps(ctx.userId, ctx.now)
    // SQLite: each lead records the rowid of its search row (lead-search-index.ts), allotted here for the batch.
    const firstRowid = dialect === 'sqlite' ? await nextSearchRowid(tx, org, groups.length) : undefined
    const leads: LeadRow[] = []
    const addresses = written.addresses
    const values: CustomValueTable[] = []
    const contacts = written.contacts
    const emails: ContactEmailTable[] = []
    const phones: ContactPhoneTable[] = []
    const urls: ContactUrlTable[] = []
    const activities: ActivityTable[] = []
    const keys: Insertable<Tables['data_import_lead']>[] = []
    const searches: (LeadSearchRow & { organization_id: string; rowid?: number })[] = []
    /** Adds an object's custom values as rows, and as its view reads them (by object, then field). */
    const customRows = (
      leadId: string,
      objectId: string,
      custom: Map<string, CustomValue[] | null>,
      into: Map<string, Map<string, CustomValue[]>>,
    ) => {
      const byField = new Map<string, CustomValue[]>()
      for (const [fieldId, list] of [...custom].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
        if (list === null || list.length === 0) continue
        byField.set(fieldId, list)
        for (const [position, value] of list.entries()) {
          values.push({
            object_id: objectId,
            field_id: fieldId,
            position,
            organization_id: org,
            lead_id: leadId,
            value_text: String(value),
            value_number: typeof value === 'number' ? value : null,
          })
        }
      }
      if (byField.size > 0) into.set(objectId, byField)
    }
    const contactCustom = new Map<string, Map<string, CustomValue[]>>()
    const leadCustom = new Map<string, Map<string, CustomValue[]>>()
    for (const [index, [key, plans]] of groups.entries()) {
      const status = firstOf(plans, (p) => p.status) ?? setting.leadStatuses[0]
      if (status === undefined) throw new Error('The organization has no lead status.')
      const id = newId('lead')
      const first = { addresses: addresses.length, values: values.length, contacts: contacts.length }
      const firstInfo = { emails: emails.length, phones: phones.length, urls: urls.length }
      const lead: LeadRow = {
        id,
        organization_id: org,
        name: plans[0]?.name ?? null,
        url: firstOf(plans, (p) => p.url) ?? null,
        description: firstOf(plans, (p) => p.description) ?? '',
        status_id: status.id,
        revision: 0,
        created_by: stamps.created_by,
        updated_by: stamps.updated_by,
        date_created: stamps.date_created,
        date_updated: stamps.date_updated,
      }
      leads.push(lead)
      // Rows are written as literals of one shape each, not spread from another object: spreading a million times
      // made objects V8 could not give a fixed shape, and building them cost more than inserting them.
      for (const [position, a] of unique(plans.flatMap((p) => (p.address === undefined ? [] : [p.address]))).entries())
        addresses.push({
          lead_id: id,
          position,
          organization_id: org,
          label: a.label,
          address_1: a.address_1,
          address_2: a.address_2,
          city: a.city,
          state: a.state,
          zipcode: a.zipcode,
          country: a.country,
        })
      customRows(id, id, mergedCustom(plans), leadCustom)
      const made = plans.flatMap((p) => (p.contact === undefined ? [] : [p.contact]))
      for (const [position, contact] of made.entries()) {
        const contactId = newId('contact')
        const v = contact.values
        contacts.push({
          id: contactId,
          organization_id: org,
          lead_id: id,
          name: v.name ?? null,
          title: v.title ?? null,
          position,
          created_by: stamps.created_by,
          updated_by: stamps.updated_by,
          date_created: stamps.date_created,
          date_updated: stamps.date_updated,
        })
        for (const [at, e] of (v.emails ?? []).entries()) {
          emails.push({
            contact_id: contactId,
            organization_id: org,
            lead_id: id,
            position: at,
            type: e.type,
            email: e.email,
            value_lower: e.email.toLowerCase(),
          })
        }
        for (const [at, p] of (v.phones ?? []).entries()) {
          phones.push({
            contact_id: contactId,
            organization_id: org,
            lead_id: id,
            position: at,
            type: p.type,
            phone: p.phone,
            value_lower: p.phone,
          })
        }
        for (const [at, u] of (v.urls ?? []).entries()) {
          urls.push({
            contact_id: contactId,
            organization_id: org,
            lead_id: id,
            position: at,
            type: u.type,
            url: u.url,
            value_lower: u.url.toLowerCase(),
          })
        }
        customRows(id, contactId, contact.custom, contactCustom)
      }
      counts.contacts_created += made.length
      activities.push(
        newActivityRow({
          organizationId: org,
          leadId: id,
          userId: ctx.userId,
          type: 'Created',
          data: { source: 'import', import_id: row.id },
          now: ctx.now,
        }),
      )
      keys.push({ import_id: row.id, organization_id: org, key, lead_id: id, created: CREATED })
      const rowid = firstRowid === undefined ? undefined : firstRowid + index
      searches.push({
        ...leadSearchRow({
          lead,
          contacts: contacts.slice(first.contacts),
          emails: emails.slice(firstInfo.emails),
          phones: phones.slice(firstInfo.phones),
          urls: urls.slice(firstInfo.urls),
          addresses: addresses.slice(first.addresses),
          custom: values.slice(first.values),
        }),
        organization_id: org,
        ...(rowid === undefined ? {} : { rowid }),
      })
      if (plans.some((p) => p.opportunity?.status !== undefined)) withOpportunities.add(id)
    }
    const leadRows = leads.map(({ revision: _revision, ...lead }, index) =>
      firstRowid === undefined ? lead : { ...lead, search_rowid: firstRowid + index },
    )
    const parts = async () => {
      await insertRows(tx, 'lead_address', flattenRows(addresses))
      await insertRows(tx, 'contact', flattenRows(contacts))
      await insertRows(tx, 'contact_email', flattenRows(emails))
      await insertRows(tx, 'contact_phone', flattenRows(phones))
      await insertRows(tx, 'contact_url', flattenRows(urls))
      await insertRows(tx, 'custom_value', flattenRows(values))
    }
    if (dialect === 'sqlite') {
      // A lead's rows go in before the lead, their foreign keys checked at commit: migration 0005's triggers then
      // find no lead to bump for each row (a dozen revisions and clock ticks a lead of three contacts), and the
      // lead's insert is its one tick of the change clock (migration 0045). The setting ends with the transaction;
      // turned off sooner, SQLite would forget the violations it counted.
      await sql`pragma defer_foreign_keys = on`.execute(tx)
      await parts()
      await insertRows(tx, 'lead', flattenRows(leadRows))
    } else {
      await insertRows(tx, 'lead', flattenRows(leadRows))
      await parts()
    }
    await insertRows(tx, 'activity', flattenRows(activities))
    await insertRows(tx, 'data_import_lead', flattenRows(keys))
    // One statement, whatever the number of rows: SQLite's trigram index writes a segment at each statement's end.
    await insertRowsInOneStatement(tx, 'lead_search', flattenRows(searches))
    for (const [i, [, plans]] of groups.entries()) {
      const id = leads[i]?.id
      if (id !== undefined) for (const plan of plans) await addOpportunity(tx, ctx, id, plan)
    }
    written.contactParts = { emails, phones, urls, custom: contactCustom }
    written.custom = leadCustom
    return { leads, written }
  }

  /**
   * What a batch needs of the leads it adds rows to, read in a few queries for all of them: their contacts' emails,
   * phones, names and last position, their addresses, and (for the existing leads it updates) their status.
   */
  async function leadsAddedTo(tx: Db, leadIds: string[], updating: ReadonlySet<string>): Promise<Map<string, LeadMet>> {
    const met = new Map<string, LeadMet>()
    if (leadIds.length === 0) return met
    const [emails, phones, contacts, addresses, current] = await Promise.all([
      readInChunks(leadIds, (ids) =>
        tx.selectFrom('contact_email').select(['lead_id', 'value_lower']).where('lead_id', 'in', ids).execute(),
      ),
      readInChunks(leadIds, (ids) =>
        tx.selectFrom('contact_phone').select(['lead_id', 'value_lower']).where('lead_id', 'in', ids).execute(),
      ),
      readInChunks(leadIds, (ids) =>
        tx.selectFrom('contact').select(['lead_id', 'name', 'position']).where('lead_id', 'in', ids).execute(),
      ),
      readInChunks(leadIds, (ids) =>
        tx.selectFrom('lead_address').selectAll().where('lead_id', 'in', ids).orderBy('position').execute(),
      ),
      readInChunks(
        leadIds.filter((id) => updating.has(id)),
        (ids) =>
          tx
            .selectFrom('lead')
            .innerJoin('lead_status', 'lead_status.id', 'lead.status_id')
            .select(['lead.id', 'lead.status_id', 'lead_status.label as status_label'])
            .where('lead.id', 'in', ids)
            .execute(),
      ),
    ])
    for (const id of leadIds) {
      met.set(id, {
        id,
        current: undefined,
        haveEmail: new Set(),
        havePhone: new Set(),
        haveName: new Set(),
        position: 0,
        seen: new Set(),
        addressAt: 0,
      })
    }
    const of = (id: string) => met.get(id)
    for (const e of emails) of(e.lead_id)?.haveEmail.add(e.value_lower)
    for (const p of phones) of(p.lead_id)?.havePhone.add(p.value_lower)
    for (const c of contacts) {
      const lead = of(c.lead_id)
      if (lead === undefined) continue
      lead.haveName.add(contactNameKey(c.name))
      lead.position = Math.max(lead.position, c.position + 1)
    }
    for (const a of addresses) {
      const lead = of(a.lead_id)
      if (lead === undefined) continue
      lead.seen.add(addressKey(a))
      lead.addressAt = Math.max(lead.addressAt, a.position + 1)
    }
    for (const c of current) {
      const lead = of(c.id)
      if (lead !== undefined) lead.current = c
    }
    return met
  }

  /**
   * Adds a group's rows to a lead met before: this import's own lead, or an existing one the rule updates. `lead` is
   * what the batch read of it, kept up to date here as rows are added. Its search row is the caller's to refresh.
   */
  async function addToLead(
    tx: Db,
    ctx: WriteCtx,
    row: ImportRow,
    lead: LeadMet,
    plans: RowPlan[],
    counts: ImportCounts,
    existing: boolean,
  ): Promise<void> {
    const org = row.organization_id
    const leadId = lead.id
    const added = async (kind: 'contact' | 'address' | 'opportunity', objectId: string) => {
      if (!existing) return
      await tx
        .insertInto('data_import_added')
        .values({ import_id: row.id, organization_id: org, lead_id: leadId, kind, object_id: objectId })
        .execute()
    }
    if (existing) {
      const current = lead.current
      if (current === undefined) throw new Error(`The lead ${leadId} the import updates is not there.`)
      const status = firstOf(plans, (p) => p.status)
      const url = firstOf(plans, (p) => p.url)
      const description = firstOf(plans, (p) => p.description)
      const named = plans.find((p) => companyOfKey(p.key) !== undefined)?.name
      await updateLead(
        tx,
        ctx,
        current,
        {
          ...(named === undefined ? {} : { name: named }),
          ...(url === undefined ? {} : { url }),
          ...(description === undefined ? {} : { description }),
          ...(status === undefined ? {} : { status }),
          custom: mergedCustom(plans),
        },
        { refreshSearch: false },
      )
      if (status !== undefined) lead.current = { id: leadId, status_id: status.id, status_label: status.label }
    }
    // Contacts: added unless the lead has one with the row's email or phone, or, for a row with neither, one of the
    // same name (case ignored): a file exported from Leadline and imported again adds no contact twice.
    for (const plan of plans) {
      if (plan.contact !== undefined) {
        const name = contactNameKey(plan.contact.values.name)
        const known =
          (plan.email !== undefined && lead.haveEmail.has(plan.email)) ||
          (plan.phone !== undefined && lead.havePhone.has(plan.phone)) ||
          (plan.email === undefined && plan.phone === undefined && name !== '' && lead.haveName.has(name))
        if (!known) {
          const id = await insertContact(tx, ctx, leadId, plan.contact.values, plan.contact.custom, lead.position)
          lead.position += 1
          counts.contacts_created += 1
          if (plan.email !== undefined) lead.haveEmail.add(plan.email)
          if (plan.phone !== undefined) lead.havePhone.add(plan.phone)
          lead.haveName.add(name)
          await added('contact', id)
        }
      }
      if (plan.address !== undefined && !lead.seen.has(addressKey(plan.address))) {
        lead.seen.add(addressKey(plan.address))
        await tx
          .insertInto('lead_address')
          .values({ ...plan.address, lead_id: leadId, organization_id: org, position: lead.addressAt })
          .execute()
        await added('address', String(lead.addressAt))
        lead.addressAt += 1
      }
      const opportunity = await addOpportunity(tx, ctx, leadId, plan)
      if (opportunity !== undefined) await added('opportunity', opportunity)
    }
  }

  async function addOpportunity(tx: Db, ctx: WriteCtx, leadId: string, plan: RowPlan): Promise<string | undefined> {
    const o = plan.opportunity
    if (o === undefined || o.status === undefined) return undefined
    const today = ctx.now.slice(0, 10)
    const row = {
      id: newId('opportunity'),
      organization_id: ctx.organizationId,
      lead_id: leadId,
      contact_id: null,
      status_id: o.status.id,
      user_id: ctx.userId,
      value: o.value,
      value_period: o.value_period,
      value_currency: ctx.currency,
      confidence: o.confidence,
      date_won: o.status.type === 'won' ? (o.date_won ?? today) : o.date_won,
      date_lost: o.status.type === 'lost' ? ctx.now : null,
      note: o.note,
      ...createdStamps(ctx.userId, ctx.now),
    }
    await tx.insertInto('opportunity').values(row).execute()
    await writeCustomValues(tx, { organizationId: ctx.organizationId, leadId, objectId: row.id }, o.custom)
    await tx
      .insertInto('activity')
      .values(
        newActivityRow({
          organizationId: ctx.organizationId,
          leadId,
          contactId: null,
          userId: ctx.userId,
          type: 'OpportunityStatusChange',
          opportunityId: row.id,
          now: ctx.now,
          data: opportunityStatusChangeData(undefined, o.status, { ...row, value: money(row.value) }),
        }),
      )
      .execute()
    await syncOpportunityDue(tx, row, o.status.type, { userId: ctx.userId, now: ctx.now, today })
    return row.id
  }

  // --- undo ---

  async function undo(claim: Claim): Promise<void> {
    const { row } = claim
    const organization = await meta.require(row.organization_id)
    for (;;) {
      // In the order the leads were made (ids are time-ordered): a batch's deletes then fall on the same few pages of
      // each table and index, as the run's inserts did, rather than all over them (the company keys' order).
      const part = await db
        .selectFrom('data_import_lead')
        .selectAll()
        .where('import_id', '=', row.id)
        .orderBy('lead_id')
        .limit(undoBatchSize)
        .execute()
      if (part.length === 0) break
      await db.transaction().execute(async (tx) => {
        await lease.renew(tx, claim)
        const at = now()
        const events = eventContext(row, at)
        // Two keys of the file (two companies of an update run) may name one lead: it is put back, and announced, once.
        const created = [...new Set(part.filter((p) => p.created === CREATED).map((p) => p.lead_id))]
        const updated = [...new Set(part.filter((p) => p.created === UPDATED).map((p) => p.lead_id))]
        const before = await views(tx, organization, [...created, ...updated])
        const inputs: EventInput[] = []
        // Each created lead still there, as it last was: deleted, each with its event.
        const last = created.flatMap((id) => before.get(id) ?? [])
        await deleteLeads(
          tx,
          row.organization_id,
          last.map((view) => view.id),
        )
        for (const view of last) inputs.push(leadEvent(view, 'deleted'))
        const restoring = updated.filter((id) => before.has(id))
        for (const id of restoring) await restore(tx, row, id)
        await refreshLeadSearchOfIds(tx, row.organization_id, restoring)
        const after = await views(tx, organization, updated)
        for (const id of updated) {
          const view = after.get(id)
          const previous = before.get(id)
          if (view !== undefined && previous !== undefined) inputs.push({ ...leadEvent(view, 'updated'), previous })
        }
        await recordEvents(tx, events, inputs)
        // Every key of the batch's leads (skipped ones' too), also those past the batch's end (a lead's keys are
        // adjacent in this order, but the limit may fall between them): none is put back twice.
        await tx
          .deleteFrom('data_import_lead')
          .where('import_id', '=', row.id)
          .where('lead_id', 'in', [...new Set(part.map((p) => p.lead_id))])
          .execute()
      })
      await options.afterBatch?.(row.id, 0)
    }
    await db.transaction().execute(async (tx) => {
      await lease.settle(tx, claim, 'undone')
    })
  }

  /**
   * Puts an updated lead back as it was, and takes away the contacts, addresses and opportunities added to it; the
   * caller then writes its search row (once for a batch's leads).
   */
  async function restore(tx: Db, row: ImportRow, leadId: string) {
    const org = row.organization_id
    const stored = await tx
      .selectFrom('data_import_change')
      .select('previous')
      .where('import_id', '=', row.id)
      .where('lead_id', '=', leadId)
      .executeTakeFirst()
    if (stored !== undefined) {
      const previous = JSON.parse(stored.previous) as PreviousLead
      await tx
        .updateTable('lead')
        .set({
          name: previous.name,
          url: previous.url,
          description: previous.description,
          status_id: previous.status_id,
          updated_by: row.created_by,
          date_updated: now(),
        })
        .where('id', '=', leadId)
        .execute()
      await tx.deleteFrom('custom_value').where('organization_id', '=', org).where('object_id', '=', leadId).execute()
      if (previous.custom.length > 0) {
        await tx
          .insertInto('custom_value')
          .values(previous.custom.map((v) => ({ ...v, object_id: leadId, organization_id: org, lead_id: leadId })))
          .execute()
      }
    }
    const added = await tx
      .selectFrom('data_import_added')
      .select(['kind', 'object_id'])
      .where('import_id', '=', row.id)
      .where('lead_id', '=', leadId)
      .execute()
    for (const a of added) {
      if (a.kind === 'contact') await deleteWithCustomValues(tx, 'contact', org, a.object_id)
      else if (a.kind === 'opportunity') await deleteWithCustomValues(tx, 'opportunity', org, a.object_id)
      else {
        await tx
          .deleteFrom('lead_address')
          .where('lead_id', '=', leadId)
          .where('position', '=', Number(a.object_id))
          .execute()
      }
    }
  }

  // --- claiming ---

  async function settleError(claim: Claim, message: string) {
    await db.transaction().execute(async (tx) => {
      await lease.settle(tx, claim, 'error')
      await tx.updateTable('data_import').set({ error: message }).where('id', '=', claim.id).execute()
    })
  }

  async function work(held: Lease): Promise<boolean> {
    const row = await read(held.id)
    const claim: Claim = { ...held, row }
    try {
      if (row.attempts > IMPORT_MAX_ATTEMPTS) {
        await settleError(claim, `The import was interrupted ${String(IMPORT_MAX_ATTEMPTS)} times.`)
        return true
      }
      if (row.status === 'checking') await check(claim)
      else if (row.status === 'undoing') await undo(claim)
      else await run(claim)
      return true
    } catch (error) {
      if (error instanceof LeaseLost) return false
      if (error instanceof Stopping) {
        await lease.release(claim)
        return false
      }
      report(error, `working on import ${row.id}`)
      await settleError(
        claim,
        'The import failed; what it wrote before the failure stays (undo it, if need be).',
      ).catch((settling: unknown) => {
        if (!(settling instanceof LeaseLost)) report(settling, `recording the failure of import ${row.id}`)
      })
      return true
    }
  }

  async function drain(): Promise<number> {
    let settled = 0
    while (!loop.stopping()) {
      const held = await lease.claim(['checking', 'queued', 'running', 'undoing'])
      if (held === undefined) return settled
      if (await work(held)) settled += 1
    }
    return settled
  }

  return requests.worker(lease.owner, drain, loop)
}

/** A lead a batch adds rows to, as the batch has read and written it so far. */
interface LeadMet {
  id: string
  /** Its status as it stands, for an existing lead the batch updates (a change of it is an activity). */
  current: { id: string; status_id: string; status_label: string } | undefined
  haveEmail: Set<string>
  havePhone: Set<string>
  /** Its contacts' names, trimmed and case folded. */
  haveName: Set<string>
  /** The position its next contact takes. */
  position: number
  /** Its addresses (`addressKey`), and the position the next takes. */
  seen: Set<string>
  addressAt: number
}

/** A contact's name as the import compares it: trimmed, case folded. */
function contactNameKey(name: string | null | undefined): string {
  return foldCase((name ?? '').trim())
}

function addressKey(a: {
  address_1: string | null
  address_2: string | null
  city: string | null
  state: string | null
  zipcode: string | null
  country: string | null
}): string {
  return JSON.stringify([a.address_1, a.address_2, a.city, a.state, a.zipcode, a.country])
}

function unique<T extends Parameters<typeof addressKey>[0]>(addresses: T[]): T[] {
  const seen = new Set<string>()
  return addresses.filter((a) => {
    const key = addressKey(a)
    if (seen.has(key)) return false
    seen.add(key)
    return true
  })
}
