import { Readable, Writable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { createGzip } from 'node:zlib'
import { stringify } from 'csv-stringify'
import { sql, type SqlBool } from 'kysely'
import type { Db, LeadRow } from '../../platform/data/database.js'
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
import { ValidationError } from '../../platform/http/errors.js'
import { createMetaCache, type MetaCache, type OrganizationMeta } from '../../crm/organizations/organization-meta.js'
import { leadSearchIds } from '../../crm/leads/lead-search.js'
import { leadViews } from '../../crm/leads/lead-view.js'
import { filteredOpportunities } from '../../crm/opportunities/opportunity-list.js'
import { opportunitySearchConditions } from '../../crm/opportunities/opportunity-query.js'
import { opportunityViews } from '../../crm/opportunities/opportunity-repo.js'
import type { OpportunityExportParams } from './export-input.js'
import type { ExportRow } from './export-repo.js'
import {
  CONTACT_COLUMNS,
  contactRow,
  customColumns,
  escapeFormula,
  LEAD_COLUMNS,
  leadRow,
  OPPORTUNITY_COLUMNS,
  opportunityRow,
  writtenCells,
  type CsvRow,
} from './export-rows.js'

// The export worker (decision 0052): each api process runs one. It claims one export at a time with a lease (as the
// outbox dispatcher claims deliveries), reads its leads or opportunities in keyset-ordered batches, streams them
// through csv-stringify or JSON and gzip into chunks of the database, renewing the lease with every batch and chunk,
// and marks the export done or failed. An export whose lease ran out (its process stopped) is claimed again and made
// anew: its chunks are deleted first.

/** Leads (or opportunities) read, and turned into views, at a time. */
export const EXPORT_BATCH = 250
/** The most gzip bytes one chunk row holds. */
export const EXPORT_CHUNK_BYTES = 1024 * 1024
/** How long a claim holds an export without a sign of life; renewed with every batch. */
export const EXPORT_LEASE_MS = 60_000
/** Claims of one export (each after its lease ran out) before it is given up as failed. */
export const EXPORT_MAX_ATTEMPTS = 3

const requests = jobRequests()

/** Tells this process's worker that an export was asked for, so it starts at once rather than at its next poll. */
export function exportRequested(): void {
  requests.requested()
}

export interface ExportWorkerOptions extends JobWorkerOptions {
  meta?: MetaCache
  chunkBytes?: number
}

export type ExportWorker = JobWorker

type Item = { csv: CsvRow; json: Record<string, unknown> }

export function createExportWorker(options: ExportWorkerOptions): ExportWorker {
  const { db, dialect, clock, appUrl } = options
  const meta = options.meta ?? createMetaCache(db, options.reader)
  const leaseMs = options.leaseMs ?? EXPORT_LEASE_MS
  const pollMs = options.pollMs ?? 1000
  const batchSize = options.batchSize ?? EXPORT_BATCH
  const chunkBytes = options.chunkBytes ?? EXPORT_CHUNK_BYTES
  const report =
    options.onError ??
    ((error: unknown, what: string) => {
      process.stderr.write(`exports: ${what}: ${error instanceof Error ? error.message : String(error)}\n`)
    })
  const loop = createJobLoop({ drain, pollMs, report, what: 'claiming exports' })
  const lease = createLeaseKeeper({
    db,
    dialect,
    clock,
    table: 'data_export',
    leaseMs,
    stopping: loop.stopping,
    ...(options.owner === undefined ? {} : { owner: options.owner }),
  })
  const { owner } = lease

  async function claim(): Promise<ExportRow | undefined> {
    const held = await lease.claim(['created', 'started', 'in_progress'], 'started')
    if (held === undefined) return undefined
    // The claim holds it: what an earlier claim said of its file is cleared.
    return db
      .updateTable('data_export')
      .set({ n_rows: null, size: null, error: null })
      .where('id', '=', held.id)
      .returningAll()
      .executeTakeFirstOrThrow()
  }

  /** The export as this claim holds it; `until` moves on with each renewal. */
  interface Claim extends Lease {
    row: ExportRow
  }

  /** Renews the lease (and says the export is under way), in `tx`; throws LeaseLost when the claim is not held. */
  async function renew(tx: Db, claim: Claim): Promise<void> {
    await lease.renew(tx, claim, 'in_progress')
  }

  /** The export's leads, a batch at a time, in id order, as GET /lead/{id}/ shows them. */
  async function* leadBatches(claim: Claim, organization: OrganizationMeta) {
    const { row } = claim
    const now = new Date(row.date_created)
    const search = { dialect, organizationId: row.organization_id, now, tzOffsetHours: row.tz_offset }
    const matching = row.query === null ? undefined : await leadSearchIds(db, { ...search, query: row.query })
    let after = ''
    for (;;) {
      let query = db
        .selectFrom('lead')
        .selectAll()
        .where('organization_id', '=', row.organization_id)
        .where('id', '>', after)
      if (matching !== undefined) query = query.where(sql<SqlBool>`lead.id in (${matching})`)
      const leads: LeadRow[] = await query.orderBy('id').limit(batchSize).execute()
      const last = leads.at(-1)
      if (last === undefined) return
      after = last.id
      yield await leadViews(db, organization, leads, appUrl, { offsetHours: row.tz_offset, now: clock.now() })
      await renew(db, claim)
    }
  }

  async function* opportunityBatches(claim: Claim, organization: OrganizationMeta) {
    const { row } = claim
    const params = JSON.parse(row.params ?? '{}') as OpportunityExportParams
    const context = {
      dialect,
      organizationId: row.organization_id,
      now: new Date(row.date_created),
      tzOffsetHours: row.tz_offset,
    }
    const searches = await opportunitySearchConditions(db, context, params)
    let after = ''
    for (;;) {
      const rows = await filteredOpportunities(db, row.organization_id, params, row.tz_offset, searches)
        .selectAll('opportunity')
        .where('opportunity.id', '>', after)
        .orderBy('opportunity.id')
        .limit(batchSize)
        .execute()
      const last = rows.at(-1)
      if (last === undefined) return
      after = last.id
      yield await opportunityViews(db, organization, rows)
      await renew(db, claim)
    }
  }

  /** The export's rows, as CSV cells and as JSON objects, one batch at a time. */
  async function* items(claim: Claim, organization: OrganizationMeta): AsyncGenerator<Item[]> {
    const defs = organization.customFields
    const { row } = claim
    if (row.object_type === 'opportunity') {
      for await (const batch of opportunityBatches(claim, organization)) {
        yield batch.map((o) => ({ csv: opportunityRow({ ...o }, defs.opportunity), json: { ...o } }))
      }
      return
    }
    for await (const leads of leadBatches(claim, organization)) {
      if (row.type === 'leads') yield leads.map((lead) => ({ csv: leadRow(lead, defs.lead), json: lead }))
      else if (row.type === 'contacts') {
        yield leads.flatMap((lead) =>
          listOf(lead.contacts).map((c) => ({ csv: contactRow(c, lead, defs.contact), json: c })),
        )
      } else {
        yield leads.flatMap((lead) =>
          listOf(lead.opportunities).map((o) => ({ csv: opportunityRow(o, defs.opportunity), json: o })),
        )
      }
    }
  }

  function columnsOf(row: ExportRow, organization: OrganizationMeta): string[] {
    if (row.fields !== null) return JSON.parse(row.fields) as string[]
    const defs = organization.customFields
    if (row.object_type === 'opportunity' || row.type === 'lead_opps') {
      return [...OPPORTUNITY_COLUMNS, ...customColumns(defs.opportunity)]
    }
    if (row.type === 'contacts') return [...CONTACT_COLUMNS, ...customColumns(defs.contact)]
    return [...LEAD_COLUMNS, ...customColumns(defs.lead)]
  }

  /** Where the gzip bytes go: chunks of `chunkBytes`, each written with a renewal of the lease. */
  function chunkSink(claim: Claim) {
    let pending: Buffer[] = []
    let pendingBytes = 0
    let seq = 0
    const counted = { size: 0 }
    const store = async (bytes: Buffer) => {
      const at = seq
      seq += 1
      await db.transaction().execute(async (tx) => {
        await renew(tx, claim)
        await tx
          .insertInto('data_export_chunk')
          .values({
            export_id: claim.row.id,
            organization_id: claim.row.organization_id,
            seq: at,
            content: bytes.toString('base64'),
          })
          .execute()
      })
    }
    const flush = async (all: boolean) => {
      let buffer = Buffer.concat(pending)
      while (buffer.length >= chunkBytes || (all && buffer.length > 0)) {
        await store(buffer.subarray(0, chunkBytes))
        buffer = buffer.subarray(Math.min(chunkBytes, buffer.length))
      }
      pending = [buffer]
      pendingBytes = buffer.length
    }
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        pending.push(chunk)
        pendingBytes += chunk.length
        counted.size += chunk.length
        if (pendingBytes < chunkBytes) {
          done()
          return
        }
        flush(false).then(() => {
          done()
        }, done)
      },
      final(done) {
        flush(true).then(() => {
          done()
        }, done)
      },
    })
    return { sink, counted }
  }

  /** Makes the file of a claimed export; answers how many rows it holds. */
  async function make(claim: Claim): Promise<{ rows: number; size: number }> {
    const { row } = claim
    const organization = await meta.require(row.organization_id)
    const fields = row.fields === null ? undefined : (JSON.parse(row.fields) as string[])
    let rows = 0
    const { sink, counted } = chunkSink(claim)
    if (row.format === 'csv') {
      const columns = columnsOf(row, organization)
      const dateFormat = row.date_format
      async function* records() {
        yield columns.map(escapeFormula)
        for await (const batch of items(claim, organization)) {
          for (const item of batch) {
            rows += 1
            yield writtenCells(item.csv, columns, dateFormat)
          }
        }
      }
      await pipeline(Readable.from(records()), stringify(), createGzip(), sink)
    } else {
      const pick = (object: Record<string, unknown>) =>
        fields === undefined
          ? object
          : Object.fromEntries(fields.filter((f) => Object.hasOwn(object, f)).map((f) => [f, object[f]]))
      async function* text() {
        yield '['
        for await (const batch of items(claim, organization)) {
          if (batch.length === 0) continue
          const parts = batch.map((item) => JSON.stringify(pick(item.json)))
          yield (rows === 0 ? '' : ',') + parts.join(',')
          rows += batch.length
        }
        yield ']'
      }
      await pipeline(Readable.from(text()), createGzip(), sink)
    }
    return { rows, size: counted.size }
  }

  /** Marks a claimed export done, or failed (what it had written deleted with it); LeaseLost if the claim is gone. */
  async function settle(claim: Claim, outcome: { rows: number; size: number } | { error: string }): Promise<void> {
    await db.transaction().execute(async (tx) => {
      await lease.settle(tx, claim, 'error' in outcome ? 'error' : 'done')
      await tx
        .updateTable('data_export')
        .set('error' in outcome ? { error: outcome.error } : { n_rows: outcome.rows, size: outcome.size })
        .where('id', '=', claim.id)
        .execute()
      if ('error' in outcome) await tx.deleteFrom('data_export_chunk').where('export_id', '=', claim.row.id).execute()
    })
  }

  /** Makes one claimed export, from nothing; answers whether it was settled (done or failed) by this claim. */
  async function run(row: ExportRow): Promise<boolean> {
    const claim: Claim = { row, id: row.id, until: row.lease_until ?? '' }
    try {
      if (row.attempts > EXPORT_MAX_ATTEMPTS) {
        await settle(claim, {
          error: `The export was interrupted ${String(EXPORT_MAX_ATTEMPTS)} times; ask for it again.`,
        })
        return true
      }
      // A claim after a lease ran out starts again from nothing: what the last one wrote goes first.
      await db.deleteFrom('data_export_chunk').where('export_id', '=', row.id).execute()
      const made = await make(claim)
      await settle(claim, made)
      return true
    } catch (error) {
      if (error instanceof LeaseLost) return false
      if (error instanceof Stopping) {
        await lease.release(claim)
        return false
      }
      const refused = error instanceof ValidationError ? error.message : undefined
      if (refused === undefined) report(error, `making export ${row.id}`)
      await settle(claim, { error: refused ?? 'The export failed; ask for it again.' }).catch((settling: unknown) => {
        if (!(settling instanceof LeaseLost)) report(settling, `recording the failure of export ${row.id}`)
      })
      return true
    }
  }

  async function drain(): Promise<number> {
    let settled = 0
    while (!loop.stopping()) {
      const row = await claim()
      if (row === undefined) return settled
      if (await run(row)) settled += 1
    }
    return settled
  }

  return requests.worker(owner, drain, loop)
}

function listOf(value: unknown): Record<string, unknown>[] {
  return Array.isArray(value)
    ? value.filter((v): v is Record<string, unknown> => typeof v === 'object' && v !== null)
    : []
}
