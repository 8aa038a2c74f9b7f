import { setImmediate as nextTurn } from 'node:timers/promises'
import { sql, type SqlBool } from 'kysely'
import type { ActivityTable, Db, LeadRow } from '../../platform/data/database.js'
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
import { formatTimestamp } from '../../platform/data/time.js'
import { ValidationError } from '../../platform/http/errors.js'
import { createMetaCache, type MetaCache, type OrganizationMeta } from '../../crm/organizations/organization-meta.js'
import { leadSearchIds } from '../../crm/leads/lead-search.js'
import { refreshLeadSearchOf } from '../../crm/leads/lead-search-index.js'
import { leadViews, type LeadView } from '../../crm/leads/lead-view.js'
import { userNames } from '../../crm/users/user-names.js'
import { leadEvent } from '../../crm/leads/lead-write.js'
import { deleteLeads } from '../../crm/leads/lead-repo.js'
import { activityEvents, newActivityRow } from '../../crm/activities/activity-repo.js'
import type { CustomValue } from '../../crm/custom-fields/custom-values.js'
import { recordEvents, type EventContext, type EventInput, type EventSink } from '../events/event-repo.js'
import { editedValues, type EditParams } from './bulk-action-input.js'
import type { BulkActionRow } from './bulk-action-repo.js'

// The bulk action worker (decision 0057): each api process runs one, claiming one job at a time under a lease as the
// export and import workers do. A job first fixes its leads (`bulk_action_lead`, numbered in id order, in one
// statement), then works through them a batch at a time: each batch's changes, the values it replaced (for undo),
// its events and the job's progress are one transaction, so a job taken up again after a restart goes on after the
// last batch committed and changes no lead twice. An edit's undo walks what it changed, putting back each lead that
// still holds what the edit wrote (a lead changed since is left as it is). `paused` stops a job between batches.

/** Leads per batch (and per transaction): one `in (…)` list each. */
export const BULK_BATCH = 500
/**
 * Leads whose views (or search documents) are built at once, as a page of GET /lead/ reads them: with a few hundred
 * contacts' ids in one `in (…)` list, SQLite's planner walks the organization's every email and phone instead.
 */
const VIEW_CHUNK = 100
export const BULK_LEASE_MS = 60_000
/** Claims of one job (each after its lease ran out) before it is given up as failed. */
export const BULK_MAX_ATTEMPTS = 5

/** The statuses a worker takes a job up in. */
const DUE = ['created', 'loading', 'processing', 'resuming', 'undoing']

const requests = jobRequests()

/** Tells this process's worker a bulk action was asked for (or resumed, or undone), so it starts at once. */
export function bulkActionRequested(): void {
  requests.requested()
}

export interface BulkActionWorkerOptions extends JobWorkerOptions {
  sink: EventSink
  meta?: MetaCache
  /** Called after each batch is committed (tests stop a job there). */
  afterBatch?: (id: string) => Promise<void> | void
}

/** The job was paused: it stops between batches, keeping its place. */
class Paused extends Error {}

/** What a lead held, or holds after an edit: its status, or the values of the edit's custom field. */
type Held = { status_id: string } | { values: CustomValue[] }

interface Change {
  lead: LeadRow
  previous: Held
  next: Held
}

function sameValues(a: readonly CustomValue[], b: readonly CustomValue[]): boolean {
  return a.length === b.length && a.every((v, i) => v === b[i])
}

function sameHeld(a: Held, b: Held): boolean {
  if ('status_id' in a) return 'status_id' in b && a.status_id === b.status_id
  return 'values' in b && sameValues(a.values, b.values)
}

export function createBulkActionWorker(options: BulkActionWorkerOptions): JobWorker {
  const { db, dialect, clock, appUrl } = options
  const meta = options.meta ?? createMetaCache(db, options.reader)
  const batchSize = options.batchSize ?? BULK_BATCH
  const report =
    options.onError ??
    ((error: unknown, what: string) => {
      process.stderr.write(`bulk actions: ${what}: ${error instanceof Error ? error.message : String(error)}\n`)
    })
  const loop = createJobLoop({ drain, pollMs: options.pollMs ?? 1000, report, what: 'claiming bulk actions' })
  const lease = createLeaseKeeper({
    db,
    dialect,
    clock,
    table: 'bulk_action',
    leaseMs: options.leaseMs ?? BULK_LEASE_MS,
    stopping: loop.stopping,
    ...(options.owner === undefined ? {} : { owner: options.owner }),
  })

  interface Claim extends Lease {
    row: BulkActionRow
  }

  const now = () => formatTimestamp(clock.now())
  /** Events carry views as of UTC, now (a lead's open tasks say where they stand in a zone and day). */
  const viewer = () => ({ offsetHours: 0, now: clock.now() })

  async function viewsOf(tx: Db, organization: OrganizationMeta, leads: LeadRow[]): Promise<LeadView[]> {
    const views: LeadView[] = []
    for (let i = 0; i < leads.length; i += VIEW_CHUNK) {
      views.push(...(await leadViews(tx, organization, leads.slice(i, i + VIEW_CHUNK), appUrl, viewer())))
    }
    return views
  }

  /** The name a lead's view gives its last writer (a former member's is looked up, as a view does). */
  async function nameOf(tx: Db, organization: OrganizationMeta, userId: string): Promise<string | null> {
    return organization.memberNames.get(userId) ?? (await userNames(tx, [userId])).get(userId) ?? null
  }

  function eventContext(row: BulkActionRow, at: string): EventContext {
    return {
      organizationId: row.organization_id,
      userId: row.created_by,
      requestId: null,
      apiKeyId: null,
      meta: { bulk_action_id: row.id },
      now: at,
      sink: options.sink,
    }
  }

  /**
   * The job as it stands, read in `tx` (locked on Postgres, so a pause cannot slip between this read and the batch's
   * write); throws Paused when it was paused, and renews the claim's lease.
   */
  async function begin(tx: Db, claim: Claim): Promise<BulkActionRow> {
    let read = tx.selectFrom('bulk_action').selectAll().where('id', '=', claim.id)
    if (dialect === 'postgres') read = read.forUpdate()
    const row = await read.executeTakeFirstOrThrow()
    if (row.status === 'paused') throw new Paused()
    await lease.renew(tx, claim)
    return row
  }

  /** Fixes the job's leads, numbered 1… in id order, and moves it to `processing`. */
  async function load(claim: Claim): Promise<void> {
    await db.transaction().execute(async (tx) => {
      const row = await begin(tx, claim)
      const org = row.organization_id
      const matching =
        row.query === null || row.query === ''
          ? undefined
          : await leadSearchIds(tx, {
              dialect,
              organizationId: org,
              query: row.query,
              now: new Date(row.date_created),
              tzOffsetHours: row.tz_offset,
            })
      const ids = row.lead_ids === null ? undefined : (JSON.parse(row.lead_ids) as string[])
      const conditions = [
        sql<SqlBool>`lead.organization_id = ${org}`,
        ...(matching === undefined ? [] : [sql<SqlBool>`lead.id in (${matching})`]),
        ...(ids === undefined ? [] : [sql<SqlBool>`lead.id in (${sql.join(ids)})`]),
      ]
      const limit = row.results_limit === null ? sql`` : sql`limit ${row.results_limit}`
      await tx.deleteFrom('bulk_action_lead').where('action_id', '=', row.id).execute()
      await sql`insert into bulk_action_lead (action_id, organization_id, seq, lead_id)
        select ${row.id}, ${org}, row_number() over (order by lead.id), lead.id from lead
        where ${sql.join(conditions, sql` and `)} order by lead.id ${limit}`.execute(tx)
      const counted = await tx
        .selectFrom('bulk_action_lead')
        .select((eb) => eb.fn.countAll<string | number>().as('n'))
        .where('action_id', '=', row.id)
        .executeTakeFirstOrThrow()
      await tx
        .updateTable('bulk_action')
        .set({ n_leads: Number(counted.n), cursor: 0, n_leads_processed: 0, n_leads_changed: 0, status: 'processing' })
        .where('id', '=', row.id)
        .execute()
    })
  }

  /** The custom values of one field on some leads, in order, by lead id. */
  async function valuesOf(
    tx: Db,
    org: string,
    fieldId: string,
    leadIds: string[],
  ): Promise<Map<string, CustomValue[]>> {
    const rows = await tx
      .selectFrom('custom_value')
      .select(['object_id', 'value_text', 'value_number'])
      .where('organization_id', '=', org)
      .where('field_id', '=', fieldId)
      .where('object_id', 'in', leadIds)
      .orderBy('object_id')
      .orderBy('position')
      .execute()
    const values = new Map<string, CustomValue[]>()
    for (const r of rows) {
      const list = values.get(r.object_id) ?? []
      list.push(r.value_number ?? r.value_text)
      values.set(r.object_id, list)
    }
    return values
  }

  /** What each lead holds of what the edit touches. */
  async function heldBy(tx: Db, org: string, edit: EditParams, leads: LeadRow[]): Promise<Map<string, Held>> {
    if (edit.type === 'set_lead_status') return new Map(leads.map((l) => [l.id, { status_id: l.status_id }]))
    const values = await valuesOf(
      tx,
      org,
      edit.custom_field_id,
      leads.map((l) => l.id),
    )
    return new Map(leads.map((l) => [l.id, { values: values.get(l.id) ?? [] }]))
  }

  /**
   * Writes `changes` (each lead to its `next`) with their status-change activities, search documents and events:
   * each lead's `updated` event carries its view before as `previous`.
   */
  async function write(
    tx: Db,
    row: BulkActionRow,
    organization: OrganizationMeta,
    edit: EditParams,
    changes: Change[],
  ): Promise<void> {
    if (changes.length === 0) return
    const org = row.organization_id
    const at = now()
    const ids = changes.map((c) => c.lead.id)
    const before = await viewsOf(
      tx,
      organization,
      changes.map((c) => c.lead),
    )
    let after: LeadView[]
    const activities: ActivityTable[] = []
    if (edit.type === 'set_lead_status') {
      // One statement per status written (an edit writes one; an undo puts back each lead's own).
      const byStatus = new Map<string, string[]>()
      for (const c of changes) {
        const next = (c.next as { status_id: string }).status_id
        byStatus.set(next, [...(byStatus.get(next) ?? []), c.lead.id])
        const old = c.lead.status_id
        activities.push(
          newActivityRow({
            organizationId: org,
            leadId: c.lead.id,
            userId: row.created_by,
            type: 'LeadStatusChange',
            data: {
              old_status_id: old,
              old_status_label: organization.leadStatusLabels.get(old) ?? '',
              new_status_id: next,
              new_status_label: organization.leadStatusLabels.get(next) ?? '',
            },
            now: at,
          }),
        )
      }
      for (const [statusId, leadIds] of byStatus) {
        await tx
          .updateTable('lead')
          .set({ status_id: statusId, updated_by: row.created_by, date_updated: at })
          .where('organization_id', '=', org)
          .where('id', 'in', leadIds)
          .execute()
      }
      await tx.insertInto('activity').values(activities).execute()
      const written = changes.map((c) => ({ ...c.lead, status_id: (c.next as { status_id: string }).status_id }))
      for (let i = 0; i < written.length; i += VIEW_CHUNK) {
        await refreshLeadSearchOf(tx, org, written.slice(i, i + VIEW_CHUNK))
      }
      // Nothing else in a lead's view follows from its status: the view after is the one before with what was written.
      const updatedByName = await nameOf(tx, organization, row.created_by)
      const statusOf = new Map(written.map((l) => [l.id, l.status_id]))
      after = before.map((view) => {
        const statusId = statusOf.get(view.id) ?? ''
        return {
          ...view,
          status_id: statusId,
          status_label: organization.leadStatusLabels.get(statusId) ?? '',
          updated_by: row.created_by,
          updated_by_name: updatedByName,
          date_updated: at,
        }
      })
    } else {
      const fieldId = edit.custom_field_id
      await tx
        .deleteFrom('custom_value')
        .where('organization_id', '=', org)
        .where('field_id', '=', fieldId)
        .where('object_id', 'in', ids)
        .execute()
      const values = changes.flatMap((c) =>
        (c.next as { values: CustomValue[] }).values.map((value, position) => ({
          object_id: c.lead.id,
          field_id: fieldId,
          position,
          organization_id: org,
          lead_id: c.lead.id,
          value_text: String(value),
          value_number: typeof value === 'number' ? value : null,
        })),
      )
      if (values.length > 0) await tx.insertInto('custom_value').values(values).execute()
      await tx
        .updateTable('lead')
        .set({ updated_by: row.created_by, date_updated: at })
        .where('organization_id', '=', org)
        .where('id', 'in', ids)
        .execute()
      const afterRows = await tx
        .selectFrom('lead')
        .selectAll()
        .where('organization_id', '=', org)
        .where('id', 'in', ids)
        .execute()
      after = await viewsOf(tx, organization, afterRows)
    }
    const previous = new Map(before.map((v) => [v.id, v]))
    const events: EventInput[] = after.map((view) => ({
      ...leadEvent(view, 'updated'),
      previous: previous.get(view.id) ?? view,
    }))
    if (activities.length > 0) events.push(...(await activityEvents(tx, activities, 'created')))
    await recordEvents(tx, eventContext(row, at), events)
  }

  /** The organization's leads among `ids`: a lead deleted since the job began is not there, and is passed over. */
  function leadsOf(tx: Db, organizationId: string, ids: string[]): Promise<LeadRow[]> {
    return tx
      .selectFrom('lead')
      .selectAll()
      .where('organization_id', '=', organizationId)
      .where('id', 'in', ids)
      .execute()
  }

  /**
   * The job's next batch of leads, done by `act` (which answers how many it changed) in one transaction with the
   * job's progress; answers false when there was none left.
   */
  async function nextBatch(
    claim: Claim,
    act: (tx: Db, row: BulkActionRow, organization: OrganizationMeta, leads: LeadRow[]) => Promise<number>,
  ): Promise<boolean> {
    // Read before the transaction: on SQLite a read outside it would wait for it to end.
    const organization = await meta.require(claim.row.organization_id)
    return db.transaction().execute(async (tx) => {
      const row = await begin(tx, claim)
      const batch = await tx
        .selectFrom('bulk_action_lead')
        .select(['seq', 'lead_id'])
        .where('action_id', '=', row.id)
        .where('seq', '>', row.cursor)
        .orderBy('seq')
        .limit(batchSize)
        .execute()
      const last = batch.at(-1)
      if (last === undefined) return false
      const leads = await leadsOf(
        tx,
        row.organization_id,
        batch.map((b) => b.lead_id),
      )
      const changed = await act(tx, row, organization, leads)
      await tx
        .updateTable('bulk_action')
        .set({
          cursor: last.seq,
          n_leads_processed: row.n_leads_processed + batch.length,
          n_leads_changed: row.n_leads_changed + changed,
          status: 'processing',
        })
        .where('id', '=', row.id)
        .execute()
      return true
    })
  }

  /** Edits a batch's leads, keeping what each changed lead held and now holds; answers how many changed. */
  async function editLeads(tx: Db, row: BulkActionRow, organization: OrganizationMeta, leads: LeadRow[]) {
    const edit = JSON.parse(row.params) as EditParams
    const held = await heldBy(tx, row.organization_id, edit, leads)
    const changes: Change[] = []
    for (const lead of leads) {
      const previous = held.get(lead.id)
      if (previous === undefined) continue
      const next: Held =
        edit.type === 'set_lead_status'
          ? { status_id: edit.lead_status_id }
          : { values: editedValues(edit, 'values' in previous ? previous.values : []) }
      if (!sameHeld(previous, next)) changes.push({ lead, previous, next })
    }
    await write(tx, row, organization, edit, changes)
    if (changes.length > 0) {
      await tx
        .insertInto('bulk_action_change')
        .values(
          changes.map((c) => ({
            action_id: row.id,
            organization_id: row.organization_id,
            lead_id: c.lead.id,
            previous: JSON.stringify(c.previous),
            next: JSON.stringify(c.next),
          })),
        )
        .execute()
    }
    return changes.length
  }

  /** Deletes a batch's leads, each with its `deleted` event; answers how many. */
  async function deleteBatch(tx: Db, row: BulkActionRow, organization: OrganizationMeta, leads: LeadRow[]) {
    if (leads.length === 0) return 0
    const views = await viewsOf(tx, organization, leads)
    // What was under each lead goes with it (the foreign keys cascade), unannounced one by one, as DELETE /lead/.
    await deleteLeads(
      tx,
      row.organization_id,
      leads.map((l) => l.id),
    )
    await recordEvents(
      tx,
      eventContext(row, now()),
      views.map((view) => leadEvent(view, 'deleted')),
    )
    return leads.length
  }

  /** Puts back the next batch of leads an edit changed; false when there was none left. */
  async function undoBatch(claim: Claim): Promise<boolean> {
    const organization = await meta.require(claim.row.organization_id)
    return db.transaction().execute(async (tx) => {
      const row = await begin(tx, claim)
      const org = row.organization_id
      const edit = JSON.parse(row.params) as EditParams
      const batch = await tx
        .selectFrom('bulk_action_change')
        .select(['lead_id', 'previous', 'next'])
        .where('action_id', '=', row.id)
        .where('lead_id', '>', row.undo_cursor)
        .orderBy('lead_id')
        .limit(batchSize)
        .execute()
      const lastChange = batch.at(-1)
      if (lastChange === undefined) return false
      const leads = await leadsOf(
        tx,
        org,
        batch.map((b) => b.lead_id),
      )
      const held = await heldBy(tx, org, edit, leads)
      const stored = new Map(batch.map((b) => [b.lead_id, b]))
      const changes: Change[] = []
      for (const lead of leads) {
        const change = stored.get(lead.id)
        const holds = held.get(lead.id)
        if (change === undefined || holds === undefined) continue
        const wrote = JSON.parse(change.next) as Held
        // A lead changed since the edit keeps its newer value.
        if (sameHeld(holds, wrote)) changes.push({ lead, previous: holds, next: JSON.parse(change.previous) as Held })
      }
      await write(tx, row, organization, edit, changes)
      await tx
        .updateTable('bulk_action')
        .set({ undo_cursor: lastChange.lead_id, n_leads_undone: row.n_leads_undone + changes.length })
        .where('id', '=', row.id)
        .execute()
      return true
    })
  }

  async function settle(claim: Claim, status: string, error: string | null = null): Promise<void> {
    await db.transaction().execute(async (tx) => {
      await lease.settle(tx, claim, status)
      await tx.updateTable('bulk_action').set({ error }).where('id', '=', claim.id).execute()
    })
  }

  /**
   * After each committed batch: better-sqlite3 answers synchronously, so a job's batches would follow one another
   * without the event loop turning once, and no request (not even the job's GET, nor SIGTERM) would be served until
   * the job ended.
   */
  async function between(id: string): Promise<void> {
    await options.afterBatch?.(id)
    await nextTurn()
  }

  /** Runs one claimed job as far as it goes; answers whether it was settled by this claim. */
  async function run(row: BulkActionRow): Promise<boolean> {
    const claim: Claim = { row, id: row.id, until: row.lease_until ?? '' }
    try {
      if (row.attempts > BULK_MAX_ATTEMPTS) {
        const what = row.status === 'undoing' ? 'undo' : 'bulk action'
        await settle(
          claim,
          'error',
          `The ${what} was interrupted ${String(BULK_MAX_ATTEMPTS)} times; what was done so far stays done.`,
        )
        return true
      }
      if (row.status === 'undoing') {
        while (await undoBatch(claim)) await between(row.id)
        await settle(claim, 'undone')
        return true
      }
      if (row.n_leads === null) await load(claim)
      const act = row.kind === 'edit' ? editLeads : deleteBatch
      while (await nextBatch(claim, act)) await between(row.id)
      await settle(claim, 'done')
      return true
    } catch (error) {
      if (error instanceof LeaseLost) return false
      if (error instanceof Stopping || error instanceof Paused) {
        await lease.release(claim)
        return false
      }
      const refused = error instanceof ValidationError ? error.message : undefined
      if (refused === undefined) report(error, `running bulk action ${row.id}`)
      await settle(claim, 'error', refused ?? 'The bulk action failed; what was done so far stays done.').catch(
        (settling: unknown) => {
          if (!(settling instanceof LeaseLost)) report(settling, `recording the failure of bulk action ${row.id}`)
        },
      )
      return true
    }
  }

  async function drain(): Promise<number> {
    let settled = 0
    while (!loop.stopping()) {
      const held = await lease.claim(DUE)
      if (held === undefined) return settled
      const row = await db.selectFrom('bulk_action').selectAll().where('id', '=', held.id).executeTakeFirstOrThrow()
      if (await run({ ...row, lease_until: held.until })) settled += 1
    }
    return settled
  }

  return requests.worker(lease.owner, drain, loop)
}
