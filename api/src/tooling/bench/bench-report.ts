// The benchmark's figures, checked against their targets, as one table for people and one object for machines.

/** The scenarios that search leads: `--engines` measures each answered by the in-memory index and by SQL alone. */
export const LEAD_SEARCH_KEYS = [
  'page',
  'search-text',
  'search-text-new',
  'search-fields',
  'search-dates',
  'search-filters',
  'palette',
  'sort-columns',
] as const
export const SCENARIO_KEYS = [
  'raw',
  'lead',
  'me',
  'lead-c10',
  'bff-lead',
  ...LEAD_SEARCH_KEYS,
  'activity-types',
  'report',
  'opportunity-sorts',
  'board-columns',
] as const
export type ScenarioKey = (typeof SCENARIO_KEYS)[number]

function isScenarioKey(value: string): value is ScenarioKey {
  return (SCENARIO_KEYS as readonly string[]).includes(value)
}

/** `--only raw,lead,me`: the scenarios to measure, every one when absent. */
export function parseOnly(value: string | undefined): ReadonlySet<ScenarioKey> {
  if (value === undefined) return new Set(SCENARIO_KEYS)
  const keys = value
    .split(',')
    .map((k) => k.trim())
    .filter((k) => k !== '')
  const unknown = keys.filter((k) => !isScenarioKey(k))
  if (keys.length === 0 || unknown.length > 0) {
    throw new Error(`--only takes scenarios out of ${SCENARIO_KEYS.join(', ')}; got "${value}"`)
  }
  return new Set(keys.filter(isScenarioKey))
}

export interface ScenarioResult {
  key: ScenarioKey
  name: string
  /** Requests per second at 32 connections. */
  requestsPerSecond: number
  /** The load generator's own CPU during that run, in cores (0.25 is a quarter of one). */
  loaderCores: number
  /** Latency in ms, one request at a time (ten at a time for the lead reads compared with the BFF's). */
  p50: number
  p99: number
  /** Answers other than 2xx, and connection errors or timeouts, over both runs. */
  non2xx: number
  errors: number
}

export interface BenchFigures {
  cores: number
  /** What made the load: wrk when installed, else autocannon in the bench's own process. */
  loader: 'wrk' | 'autocannon'
  database: 'sqlite' | 'postgres'
  /** The SQLite file, or the Postgres database without its password. */
  location: string
  leads: number
  secondsPerRun: number
  /** Throughput runs per scenario, taken in turn with the other scenarios; the median is reported. */
  rounds: number
  /** How long seeding took, in seconds; undefined when an earlier seed was reused. */
  seedSeconds: number | undefined
  /** Opportunities in the report scenario's database, when it ran. */
  reportOpportunities?: number
  /** The API process's peak resident memory in MB; undefined where /proc cannot tell. */
  apiPeakRssMb: number | undefined
  /** The database's bytes, and its largest indexes' (all organizations: the bench's is nearly all of it). */
  size?: { bytes: number; largestIndexes: { name: string; bytes: number }[] }
  scenarios: ScenarioResult[]
}

export interface Check {
  /** What is checked: a scenario's key, or `rss` or `seed`. */
  subject: ScenarioKey | 'rss' | 'seed'
  target: string
  pass: boolean
}

const RAW_RATIO = 0.7
/** Through the BFF (issue 34), ten requests at a time: at most this much more p50 than direct, and this much of its rate. */
const BFF_OVERHEAD_MS = 1.5
const BFF_RATIO = 0.5
const PAGE_P99_MS = 20
/** Every search's p99 (issue 34): under 30 ms at 100,000 leads, under 100 ms at 1,000,000 (the latter past 100,000). */
const SEARCH_P99_MS = 30
const SEARCH_P99_MS_AT_A_MILLION = 100
const SEARCH_TARGET_LEADS = 100_000
const RSS_MB = 250
const SEED_SECONDS = 30
const REPORT_P50_MS = 100
/** The command palette's search, as one types (issue 33): under 100 ms at 100,000 leads, here even at p99. */
const PALETTE_P99_MS = 100

/** The middle value (the mean of the two middle ones for an even count); NaN for none. */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  if (sorted.length === 0) return Number.NaN
  return sorted.length % 2 === 1
    ? (sorted[middle] ?? Number.NaN)
    : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2
}

/** The raw limit's requests per second, for the ratios. */
function rawRate(figures: BenchFigures): number | undefined {
  return figures.scenarios.find((s) => s.key === 'raw')?.requestsPerSecond
}

/** A scenario's rate as a multiple of the raw limit's, for the point reads compared with it. */
export function ratioToRaw(figures: BenchFigures, scenario: ScenarioResult): number | undefined {
  if (scenario.key !== 'lead' && scenario.key !== 'me') return undefined
  const raw = rawRate(figures)
  return raw === undefined || raw === 0 ? undefined : scenario.requestsPerSecond / raw
}

/**
 * Whether a scenario was measured at all: a server that answered nothing within the run (an api still building its
 * index, say) leaves no rate and no latency, which must not read as a target met.
 */
export function answered(scenario: ScenarioResult): boolean {
  return scenario.requestsPerSecond > 0 && Number.isFinite(scenario.p50) && Number.isFinite(scenario.p99)
}

function scenarioCheck(figures: BenchFigures, scenario: ScenarioResult): Check | undefined {
  const failed = scenario.non2xx + scenario.errors
  const clean = failed === 0 && answered(scenario)
  switch (scenario.key) {
    case 'raw':
      return clean ? undefined : { subject: 'raw', target: 'answers, none failed', pass: false }
    case 'lead':
    case 'me': {
      const ratio = ratioToRaw(figures, scenario)
      return {
        subject: scenario.key,
        target: `≥ ${String(RAW_RATIO)}× raw`,
        pass: clean && ratio !== undefined && ratio >= RAW_RATIO,
      }
    }
    case 'lead-c10':
      return clean ? undefined : { subject: 'lead-c10', target: 'answers, none failed', pass: false }
    case 'bff-lead': {
      const direct = figures.scenarios.find((s) => s.key === 'lead-c10')
      return {
        subject: 'bff-lead',
        target: `p50 ≤ direct + ${String(BFF_OVERHEAD_MS)} ms, ≥ ${String(BFF_RATIO)}× direct`,
        pass:
          clean &&
          direct !== undefined &&
          scenario.p50 - direct.p50 <= BFF_OVERHEAD_MS &&
          scenario.requestsPerSecond >= BFF_RATIO * direct.requestsPerSecond,
      }
    }
    case 'page':
      return { subject: 'page', target: `p99 < ${String(PAGE_P99_MS)} ms`, pass: clean && scenario.p99 < PAGE_P99_MS }
    case 'palette':
      return {
        subject: 'palette',
        target: `p99 < ${String(PALETTE_P99_MS)} ms`,
        pass: clean && scenario.p99 < PALETTE_P99_MS,
      }
    case 'report':
      return {
        subject: 'report',
        target: `p50 < ${String(REPORT_P50_MS)} ms`,
        pass: clean && scenario.p50 < REPORT_P50_MS,
      }
    case 'opportunity-sorts':
    case 'board-columns':
      // Pages of the report's million opportunities: the budget of a search at a million leads.
      return {
        subject: scenario.key,
        target: `p99 < ${String(SEARCH_P99_MS_AT_A_MILLION)} ms`,
        pass: clean && scenario.p99 < SEARCH_P99_MS_AT_A_MILLION,
      }
    default: {
      const limit = figures.leads > SEARCH_TARGET_LEADS ? SEARCH_P99_MS_AT_A_MILLION : SEARCH_P99_MS
      return { subject: scenario.key, target: `p99 < ${String(limit)} ms`, pass: clean && scenario.p99 < limit }
    }
  }
}

/** Every target, met or not. A scenario with a failed request fails its check whatever its figures. */
export function checks(figures: BenchFigures): Check[] {
  const found: Check[] = []
  for (const scenario of figures.scenarios) {
    const check = scenarioCheck(figures, scenario)
    if (check !== undefined) found.push(check)
  }
  found.push({
    subject: 'rss',
    target: `< ${String(RSS_MB)} MB`,
    pass: figures.apiPeakRssMb !== undefined && figures.apiPeakRssMb < RSS_MB,
  })
  if (figures.seedSeconds !== undefined) {
    found.push({ subject: 'seed', target: `< ${String(SEED_SECONDS)} s`, pass: figures.seedSeconds < SEED_SECONDS })
  }
  return found
}

function mark(check: Check | undefined): string {
  if (check === undefined) return ''
  return check.pass ? '✓' : '✗'
}

export function fixed(value: number | undefined, digits: number): string {
  return value === undefined || !Number.isFinite(value) ? '–' : value.toFixed(digits)
}

export function ms(value: number): string {
  return fixed(value, value < 10 ? 2 : 1)
}

export function rate(value: number): string {
  return Math.round(value).toLocaleString('en-US')
}

/** Left-aligned text, right-aligned figures, two spaces apart (every character here is one UTF-16 unit wide). */
export function formatColumns(rows: readonly string[][], rightAligned: readonly number[]): string {
  const widths = rows[0]?.map((_, column) => Math.max(...rows.map((row) => (row[column] ?? '').length))) ?? []
  return rows
    .map((row) =>
      row
        .map((cell, column) => {
          const pad = ' '.repeat(Math.max(0, (widths[column] ?? 0) - cell.length))
          return rightAligned.includes(column) ? pad + cell : cell + pad
        })
        .join('  ')
        .trimEnd(),
    )
    .join('\n')
}

/** The report people read. */
export function formatReport(figures: BenchFigures): string {
  const all = checks(figures)
  const header = [
    'scenario',
    'req/s c=32',
    'loader cpu',
    'p50 ms c=1',
    'p99 ms c=1',
    '× raw',
    'failed',
    'target',
    'result',
  ]
  const rows = figures.scenarios.map((scenario) => {
    // The scenario's own check: with --engines two rows share a key and a target, each met or not by its figures.
    const check = scenarioCheck(figures, scenario)
    const failed = scenario.non2xx + scenario.errors
    return [
      scenario.name,
      rate(scenario.requestsPerSecond),
      `${fixed(scenario.loaderCores * 100, 0)} %`,
      ms(scenario.p50),
      ms(scenario.p99),
      fixed(ratioToRaw(figures, scenario), 2),
      String(failed),
      check?.target ?? '',
      mark(check),
    ]
  })
  const rss = all.find((c) => c.subject === 'rss')
  const seed = all.find((c) => c.subject === 'seed')
  const lines = [
    `${String(figures.cores)} cores, ${figures.database} (${figures.location}), ${figures.leads.toLocaleString('en-US')} leads, ${String(figures.secondsPerRun)} s per run${figures.rounds > 1 ? `, req/s the median of ${String(figures.rounds)} rounds` : ''}, load by ${figures.loader}`,
    '',
    formatColumns([header, ...rows], [1, 2, 3, 4, 5, 6]),
    ...(figures.reportOpportunities === undefined
      ? []
      : [
          `The report (/opportunity/?_group_by=date_won__month), the sorted pages and the board's columns are over ${figures.reportOpportunities.toLocaleString('en-US')} opportunities, served by a second API process.`,
        ]),
    '',
    `API peak RSS: ${fixed(figures.apiPeakRssMb, 0)} MB (target ${rss?.target ?? ''}) ${mark(rss)}`,
    ...(figures.size === undefined ? [] : [formatSize(figures.size, figures.leads)]),
    figures.seedSeconds === undefined
      ? 'Seeding: reused an earlier seed'
      : `Seeding: ${fixed(figures.seedSeconds, 1)} s (target ${seed?.target ?? ''}) ${mark(seed)}`,
  ]
  const missed = all.filter((c) => !c.pass).length
  lines.push(missed === 0 ? 'Every target met.' : `${String(missed)} of ${String(all.length)} targets missed.`)
  return lines.join('\n')
}

function megabytes(bytes: number): string {
  return `${(bytes / 1e6).toLocaleString('en-US', { maximumFractionDigits: 0 })} MB`
}

/** The database's size, per lead, and its largest indexes. */
function formatSize(size: NonNullable<BenchFigures['size']>, leads: number): string {
  const perLead = `${(size.bytes / Math.max(1, leads) / 1000).toFixed(1)} KB a lead`
  const largest = size.largestIndexes.map((i) => `${i.name} ${megabytes(i.bytes)}`).join(', ')
  return `Database: ${megabytes(size.bytes)}, ${perLead}${largest === '' ? '' : `; largest indexes: ${largest}`}`
}

/** What `reportJson` writes, and one of its scenarios. */
export type ReportJson = ReturnType<typeof reportJson>
export type ScenarioJson = ReportJson['scenarios'][number]

/** The same figures for machines (`--json`). */
export function reportJson(figures: BenchFigures) {
  const all = checks(figures)
  return {
    cores: figures.cores,
    loader: figures.loader,
    database: figures.database,
    location: figures.location,
    leads: figures.leads,
    seconds_per_run: figures.secondsPerRun,
    rounds: figures.rounds,
    seed_seconds: figures.seedSeconds ?? null,
    report_opportunities: figures.reportOpportunities ?? null,
    api_peak_rss_mb: figures.apiPeakRssMb ?? null,
    database_bytes: figures.size?.bytes ?? null,
    largest_indexes: figures.size?.largestIndexes ?? [],
    scenarios: figures.scenarios.map((scenario) => {
      const check = scenarioCheck(figures, scenario)
      return {
        key: scenario.key,
        name: scenario.name,
        requests_per_second: scenario.requestsPerSecond,
        loader_cores: scenario.loaderCores,
        p50_ms: scenario.p50,
        p99_ms: scenario.p99,
        ratio_to_raw: ratioToRaw(figures, scenario) ?? null,
        non_2xx: scenario.non2xx,
        errors: scenario.errors,
        target: check?.target ?? null,
        pass: check?.pass ?? null,
      }
    }),
    checks: all,
    all_targets_met: all.every((c) => c.pass),
  }
}
