import { describe, expect, it } from 'vitest'
import { formatComparison, parseRunFigures, scenarioCell, type RunFigures } from './bench-compare.js'
import { reportJson, type BenchFigures, type ScenarioResult } from './bench-report.js'
import { parseScreenPaints, screenPaintFigures } from './bench-screens.js'

// A whole `npm run bench` measures SQLite, then PostgreSQL, and prints them side by side: what that table says, from
// the figures each run wrote. Nothing here measures anything.

function scenario(key: ScenarioResult['key'], name: string, rate: number, p50: number, p99: number): ScenarioResult {
  return { key, name, requestsPerSecond: rate, loaderCores: 0.2, p50, p99, non2xx: 0, errors: 0 }
}

function run(database: BenchFigures['database'], overrides: Partial<BenchFigures> = {}): RunFigures {
  return reportJson({
    cores: 2,
    loader: 'wrk',
    database,
    location: database === 'sqlite' ? 'data/bench/leads-100000.db' : 'postgres://postgres@127.0.0.1:5432/postgres',
    leads: 100_000,
    secondsPerRun: 3,
    rounds: 1,
    seedSeconds: undefined,
    apiPeakRssMb: 240.4,
    size: { bytes: 2_146_000_000, largestIndexes: [] },
    scenarios: [
      scenario('raw', 'raw limit (lead by id)', 10_000, 0.2, 0.5),
      scenario('lead', 'lead read GET /lead/{id}/', 7_500, 0.3, 0.9),
      scenario('bff-lead', 'lead read via the BFF, 10 at once', 3_048.4, 2.76, 4),
      scenario('search-text', 'search: free text', 150, 4.5, 29.94),
      scenario('report', 'report: won by month', 30, 34.51, 50),
    ],
    ...overrides,
  })
}

describe('the benchmark side by side', () => {
  it("shows each scenario by the figure its target is about, and a run's failed requests", () => {
    const scenarios = run('sqlite').scenarios ?? []
    expect(scenarios.map(scenarioCell)).toEqual([
      '10,000/s',
      '0.75× raw, 7,500/s ✓',
      'p50 2.76 ms, 3,048/s ✗',
      'p50 4.50 / p99 29.9 ms ✓',
      'p50 34.5 ms ✓',
    ])
    const search = scenarios.find((s) => s.key === 'search-text')
    expect(search).toBeDefined()
    if (search !== undefined) {
      expect(scenarioCell({ ...search, non_2xx: 2, errors: 1, pass: false })).toBe('p50 4.50 / p99 29.9 ms, 3 failed ✗')
    }
  })

  it('puts the databases in columns, rows in the order first met, and blanks where a run has no such row', () => {
    const sqlite = run('sqlite', { seedSeconds: 57.25 })
    const postgres = run('postgres', {
      apiPeakRssMb: 308,
      scenarios: [
        scenario('raw', 'raw limit (lead by id)', 9_000, 0.2, 0.5),
        scenario('lead', 'lead read GET /lead/{id}/', 4_500, 0.4, 1.1),
        scenario('palette', 'palette: search as one types', 200, 3, 9.3),
      ],
    })
    const screens = screenPaintFigures(
      parseScreenPaints(
        JSON.stringify({ screens: [{ name: 'Leads', path: '/leads', lcp: [420, 410, 500], landed: ['/leads'] }] }),
      ),
    )
    const lines = formatComparison([{ ...sqlite, screens }, postgres]).split('\n')
    expect(lines).toEqual([
      '                                   sqlite, 100,000 leads     postgres, 100,000 leads',
      'raw limit (lead by id)             10,000/s                  9,000/s',
      'lead read GET /lead/{id}/          0.75× raw, 7,500/s ✓      0.50× raw, 4,500/s ✗',
      'lead read via the BFF, 10 at once  p50 2.76 ms, 3,048/s ✗',
      'search: free text                  p50 4.50 / p99 29.9 ms ✓',
      'report: won by month               p50 34.5 ms ✓',
      'palette: search as one types                                 p50 3.00 / p99 9.30 ms ✓',
      'API peak RSS                       240 MB ✓                  308 MB ✗',
      'seeding                            57.3 s ✗                  reused',
      'database size                      2,146 MB, 21.5 KB a lead  2,146 MB, 21.5 KB a lead',
      'screen Leads, LCP p50              420 ms ✗',
      'targets                            3 of 7 missed             2 of 3 missed',
    ])
  })

  it("reads back what a run wrote, and refuses a file that is not a run's figures", () => {
    const written = JSON.stringify(run('postgres'))
    expect(parseRunFigures(written, 'postgres.json').database).toBe('postgres')
    expect(() => parseRunFigures('{"scenarios":[]}', 'other.json')).toThrow(
      "other.json is not a benchmark's figures (no database or leads)",
    )
    expect(() => parseRunFigures('not json', 'broken.json')).toThrow()
  })
})
