// Runs of the benchmark on different databases (a whole `npm run bench`: SQLite, then PostgreSQL) side by side, each
// scenario by the figure its target is about, with the target met or not.

import { fixed, formatColumns, ms, rate, type Check, type ScenarioJson } from './bench-report.js'
import type { ScreenFigures } from './bench-screens.js'

/** What one run wrote with `--figures-file`: `reportJson`'s object (a screens-only run has the screens alone). */
export interface RunFigures {
  database: string
  leads: number
  scenarios?: ScenarioJson[]
  checks?: Check[]
  api_peak_rss_mb?: number | null
  seed_seconds?: number | null
  database_bytes?: number | null
  screens?: ScreenFigures[]
}

/** Reads a `--figures-file`; throws when it is not one. */
export function parseRunFigures(text: string, source: string): RunFigures {
  const parsed: unknown = JSON.parse(text)
  const database: unknown = typeof parsed === 'object' && parsed !== null ? Reflect.get(parsed, 'database') : undefined
  const leads: unknown = typeof parsed === 'object' && parsed !== null ? Reflect.get(parsed, 'leads') : undefined
  if (typeof database !== 'string' || typeof leads !== 'number') {
    throw new Error(`${source} is not a benchmark's figures (no database or leads)`)
  }
  return parsed as RunFigures
}

function perSecond(value: number): string {
  return `${rate(value)}/s`
}

function mark(pass: boolean | null | undefined): string {
  return pass === true ? ' ✓' : pass === false ? ' ✗' : ''
}

/** The figure a scenario's target is about: a rate, a ratio to the raw limit, or latencies. */
export function scenarioCell(scenario: ScenarioJson): string {
  const failed = scenario.non_2xx + scenario.errors
  const failures = failed > 0 ? `, ${String(failed)} failed` : ''
  let figure: string
  switch (scenario.key) {
    case 'raw':
      figure = perSecond(scenario.requests_per_second)
      break
    case 'lead':
    case 'me':
      figure = `${fixed(scenario.ratio_to_raw ?? undefined, 2)}× raw, ${perSecond(scenario.requests_per_second)}`
      break
    case 'lead-c10':
    case 'bff-lead':
      figure = `p50 ${ms(scenario.p50_ms)} ms, ${perSecond(scenario.requests_per_second)}`
      break
    case 'report':
      figure = `p50 ${ms(scenario.p50_ms)} ms`
      break
    default:
      figure = `p50 ${ms(scenario.p50_ms)} / p99 ${ms(scenario.p99_ms)} ms`
  }
  return `${figure}${failures}${mark(scenario.pass)}`
}

/** Rows in the order first met, each run's cell beside the others' ('' where a run has no such row). */
function alignRows(runs: readonly RunFigures[], rowsOf: (run: RunFigures) => [string, string][]): string[][] {
  const names: string[] = []
  const cells = runs.map((run) => new Map(rowsOf(run)))
  for (const run of runs) for (const [name] of rowsOf(run)) if (!names.includes(name)) names.push(name)
  return names.map((name) => [name, ...cells.map((byName) => byName.get(name) ?? '')])
}

function checkOf(run: RunFigures, subject: string): Check | undefined {
  return run.checks?.find((c) => c.subject === subject)
}

/** The runs side by side: the scenarios, then memory, seeding, size and the screens. */
export function formatComparison(runs: readonly RunFigures[]): string {
  const header = ['', ...runs.map((run) => `${run.database}, ${run.leads.toLocaleString('en-US')} leads`)]
  const scenarioRows = alignRows(runs, (run) => (run.scenarios ?? []).map((s) => [s.name, scenarioCell(s)]))
  const overall = alignRows(runs, (run) => {
    const rows: [string, string][] = []
    if (run.api_peak_rss_mb !== undefined) {
      const rss = run.api_peak_rss_mb === null ? '–' : `${fixed(run.api_peak_rss_mb, 0)} MB`
      rows.push(['API peak RSS', `${rss}${mark(checkOf(run, 'rss')?.pass)}`])
    }
    if (run.seed_seconds !== undefined) {
      const seed = run.seed_seconds === null ? 'reused' : `${fixed(run.seed_seconds, 1)} s`
      rows.push(['seeding', `${seed}${mark(checkOf(run, 'seed')?.pass)}`])
    }
    if (typeof run.database_bytes === 'number') {
      const perLead = (run.database_bytes / Math.max(1, run.leads) / 1000).toFixed(1)
      rows.push([
        'database size',
        `${Math.round(run.database_bytes / 1e6).toLocaleString('en-US')} MB, ${perLead} KB a lead`,
      ])
    }
    for (const screen of run.screens ?? []) {
      const lcp = screen.lcp_p50_ms === null ? 'none' : `${fixed(screen.lcp_p50_ms, 0)} ms`
      rows.push([`screen ${screen.name}, LCP p50`, `${lcp}${mark(screen.pass)}`])
    }
    return rows
  })
  const missed = runs.map((run) => {
    const all = [...(run.checks ?? []), ...(run.screens ?? []).map((s) => ({ pass: s.pass }))]
    return `${String(all.filter((c) => !c.pass).length)} of ${String(all.length)} missed`
  })
  return formatColumns([header, ...scenarioRows, ...overall, ['targets', ...missed]], [])
}
