import { setTimeout as sleep } from 'node:timers/promises'

// The bulk edit scenario of `npm run bench` (issue 33): on a copy of the seeded SQLite database, one bulk edit moves
// every lead of the status Potential (half of the demo's leads: 50,056 of 100,000) to Qualified over the API, and
// the job is polled until done; its wall time and rate and the api's peak RSS, against the target (under 60 s).

export const BULK_EDIT_TARGET_SECONDS = 60
/** The leads the edit takes, and the status it gives them: every one of them changes. */
export const BULK_EDIT_QUERY = 'status:potential'
const NEW_STATUS = 'Qualified'
const POLL_MS = 250

export interface BulkEditFigures {
  query: string
  /** Leads in the database. */
  leads: number
  /** Leads the job took, processed and changed. */
  nLeads: number
  nChanged: number
  seconds: number
  apiPeakRssMb: number | undefined
}

interface Job {
  id: string
  status: string
  n_leads: number | null
  n_leads_processed: number
  n_leads_changed: number
  error: string | null
}

async function call(url: string, authorization: string, init: RequestInit = {}): Promise<unknown> {
  const res = await fetch(url, { ...init, headers: { authorization, 'content-type': 'application/json' } })
  const body = await res.text()
  if (res.status !== 200) throw new Error(`${init.method ?? 'GET'} ${url} answered ${String(res.status)}: ${body}`)
  return JSON.parse(body)
}

/** Starts the edit through the api at `apiUrl` and polls it until done; `peak` reads the api's peak RSS. */
export async function measureBulkEdit(options: {
  apiUrl: string
  authorization: string
  leads: number
  peak: () => number | undefined
  say: (line: string) => void
}): Promise<BulkEditFigures> {
  const { apiUrl, authorization } = options
  const statuses = (await call(`${apiUrl}/api/v1/status/lead/`, authorization)) as {
    data: { id: string; label: string }[]
  }
  const status = statuses.data.find((s) => s.label === NEW_STATUS)
  if (status === undefined) throw new Error(`the demo organization has no lead status "${NEW_STATUS}"`)
  const started = performance.now()
  const made = (await call(`${apiUrl}/api/v1/bulk_action/edit/`, authorization, {
    method: 'POST',
    body: JSON.stringify({ type: 'set_lead_status', lead_status_id: status.id, query: BULK_EDIT_QUERY }),
  })) as Job
  let said = started
  for (;;) {
    await sleep(POLL_MS)
    const job = (await call(`${apiUrl}/api/v1/bulk_action/edit/${made.id}/`, authorization)) as Job
    const now = performance.now()
    if (job.status === 'done') {
      return {
        query: BULK_EDIT_QUERY,
        leads: options.leads,
        nLeads: job.n_leads ?? 0,
        nChanged: job.n_leads_changed,
        seconds: (now - started) / 1000,
        apiPeakRssMb: options.peak(),
      }
    }
    if (job.status !== 'created' && job.status !== 'loading' && job.status !== 'processing') {
      throw new Error(`the bulk edit ended ${job.status}: ${String(job.error)}`)
    }
    if (now - said >= 5000) {
      said = now
      const of = job.n_leads === null ? '' : ` of ${String(job.n_leads)}`
      options.say(
        `${((now - started) / 1000).toFixed(0)} s: ${String(job.n_leads_processed)}${of} leads (${job.status})`,
      )
    }
  }
}

export function formatBulkEdit(f: BulkEditFigures): string {
  const rate = f.seconds > 0 ? f.nLeads / f.seconds : Number.NaN
  const pass = f.seconds < BULK_EDIT_TARGET_SECONDS
  const rss = f.apiPeakRssMb
  return [
    `bulk edit: the status of "${f.query}" (${f.nLeads.toLocaleString('en-US')} of ` +
      `${f.leads.toLocaleString('en-US')} leads, ${f.nChanged.toLocaleString('en-US')} changed) on SQLite`,
    `  ${f.seconds.toFixed(1)} s, ${Math.round(rate).toLocaleString('en-US')} leads/s ` +
      `(target < ${String(BULK_EDIT_TARGET_SECONDS)} s, ${Math.ceil(f.nLeads / BULK_EDIT_TARGET_SECONDS).toLocaleString('en-US')} leads/s: ${pass ? 'pass' : 'FAIL'})`,
    `  api peak RSS ${rss === undefined ? 'unknown' : `${rss.toFixed(0)} MB`}`,
    pass ? 'Every target met.' : '1 of 1 targets missed.',
  ].join('\n')
}
