import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { API_NODE_FLAGS, withNpmStartAllocator } from './bench-bff.js'
import { formatBulkEdit } from './bench-bulk-edit.js'
import { formatScreenPaints, parseScreenPaints } from './bench-screens.js'
import { redactedUrl } from './bench-database.js'
import { firstAnswers, parseWrk, percentile } from './bench-load.js'
import {
  checks,
  formatReport,
  median,
  parseOnly,
  reportJson,
  type BenchFigures,
  type ScenarioResult,
} from './bench-report.js'
import { createRawServer, storeLeadBodies } from './raw-server.js'

// The benchmark's pieces that do not depend on speed: what the raw limit server answers, and how figures are
// checked against their targets and printed. No test here looks at how fast anything is.

describe('the raw limit server', () => {
  const authorization = `Basic ${Buffer.from('key_abc.secret:').toString('base64')}`
  const body = '{"id":"lead_one","name":"Bluth Company","contacts":[{"name":"Gób"}]}'
  let dir: string
  let server: Server
  let url: string

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'leadline-raw-'))
    const file = join(dir, 'raw.db')
    storeLeadBodies(
      file,
      new Map([
        ['lead_one', body],
        ['lead_two', '{"id":"lead_two"}'],
      ]),
    )
    server = createRawServer(file, authorization)
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const address = server.address()
    url = `http://127.0.0.1:${String(typeof address === 'object' && address !== null ? address.port : 0)}`
  })

  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve))
    rmSync(dir, { recursive: true, force: true })
  })

  it('answers the stored JSON of a lead, byte for byte, to the right key', async () => {
    for (const path of ['/api/v1/lead/lead_one/', '/api/v1/lead/lead_one']) {
      const res = await fetch(url + path, { headers: { authorization } })
      expect(res.status).toBe(200)
      expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8')
      expect(await res.text()).toBe(body)
    }
    const other = await fetch(`${url}/api/v1/lead/lead_two/`, { headers: { authorization } })
    expect(await other.text()).toBe('{"id":"lead_two"}')
  })

  it('answers 401 without the key, with another key, and before looking the lead up', async () => {
    const wrong = `Basic ${Buffer.from('key_abc.other:').toString('base64')}`
    const attempts: Record<string, string>[] = [
      {},
      { authorization: wrong },
      { authorization: authorization.toLowerCase() },
    ]
    for (const headers of attempts) {
      const res = await fetch(`${url}/api/v1/lead/lead_one/`, { headers })
      expect(res.status).toBe(401)
      expect(res.headers.get('www-authenticate')).toBe('Basic realm="api"')
      expect(await res.json()).toEqual({ error: 'Unauthorized' })
    }
  })

  it('answers 404 for a lead it does not hold and for any other path', async () => {
    for (const path of ['/api/v1/lead/lead_three/', '/api/v1/me/', '/api/v1/lead/lead_one/extra']) {
      const res = await fetch(url + path, { headers: { authorization } })
      expect(res.status, path).toBe(404)
    }
  })
})

function scenario(key: ScenarioResult['key'], name: string, rate: number, p99: number): ScenarioResult {
  return { key, name, requestsPerSecond: rate, loaderCores: 0.25, p50: p99 / 4, p99, non2xx: 0, errors: 0 }
}

function figures(overrides: Partial<BenchFigures> = {}): BenchFigures {
  return {
    cores: 2,
    loader: 'wrk',
    database: 'sqlite',
    location: 'data/bench/leads-100000.db',
    leads: 100_000,
    secondsPerRun: 10,
    rounds: 1,
    seedSeconds: 24.5,
    apiPeakRssMb: 180.4,
    scenarios: [
      scenario('raw', 'raw limit (lead by id)', 20_000, 0.5),
      scenario('lead', 'lead read GET /lead/{id}/', 15_000, 1.2),
      scenario('me', 'GET /me/', 8_000, 0.8),
      scenario('page', '100-lead page', 300, 19.9),
      scenario('search-text', 'search: free text', 150, 31),
    ],
    ...overrides,
  }
}

describe("the servers' environment", () => {
  it('caps glibc at two arenas as npm start does, unless the environment already says how many', () => {
    expect(withNpmStartAllocator({ LOG_LEVEL: 'warn' })).toEqual({ LOG_LEVEL: 'warn', MALLOC_ARENA_MAX: '2' })
    expect(withNpmStartAllocator({ MALLOC_ARENA_MAX: '16' }).MALLOC_ARENA_MAX).toBe('16')
  })

  it('gives the api the node flags npm start gives it', () => {
    // scripts/start.mjs is plain JavaScript run before anything is built: its api line is read here instead.
    const start = readFileSync(new URL('../../../../scripts/start.mjs', import.meta.url), 'utf8')
    const apiLine = start.split('\n').find((line) => line.includes("startChild('api'"))
    expect(API_NODE_FLAGS.length).toBeGreaterThan(0)
    for (const flag of API_NODE_FLAGS) expect(apiLine).toContain(`'${flag}'`)
  })
})

describe('the benchmark report', () => {
  it('checks each figure against its target', () => {
    expect(checks(figures())).toEqual([
      { subject: 'lead', target: '≥ 0.7× raw', pass: true },
      { subject: 'me', target: '≥ 0.7× raw', pass: false },
      { subject: 'page', target: 'p99 < 20 ms', pass: true },
      { subject: 'search-text', target: 'p99 < 30 ms', pass: false },
      { subject: 'rss', target: '< 250 MB', pass: true },
      { subject: 'seed', target: '< 30 s', pass: true },
    ])
  })

  it("holds searches to 100 ms past 100,000 leads (issue 34's target at a million), pages still to 20", () => {
    const million = figures({
      leads: 1_000_000,
      scenarios: [
        scenario('page', '100-lead page', 300, 21),
        scenario('search-text', 'search: free text', 150, 99.5),
        scenario('search-fields', 'search: fields', 150, 100),
      ],
    })
    expect(checks(million).filter((c) => c.subject !== 'rss' && c.subject !== 'seed')).toEqual([
      { subject: 'page', target: 'p99 < 20 ms', pass: false },
      { subject: 'search-text', target: 'p99 < 100 ms', pass: true },
      { subject: 'search-fields', target: 'p99 < 100 ms', pass: false },
    ])
    expect(checks(figures({ leads: 100_000 })).find((c) => c.subject === 'search-text')?.target).toBe('p99 < 30 ms')
  })

  it('fails a scenario with failed requests whatever its figures, and leaves out the seed when it was reused', () => {
    const broken = figures({
      seedSeconds: undefined,
      apiPeakRssMb: undefined,
      scenarios: [
        { ...scenario('raw', 'raw limit', 20_000, 0.5), errors: 2 },
        { ...scenario('page', '100-lead page', 300, 5), non2xx: 7 },
      ],
    })
    expect(checks(broken)).toEqual([
      { subject: 'raw', target: 'answers, none failed', pass: false },
      { subject: 'page', target: 'p99 < 20 ms', pass: false },
      { subject: 'rss', target: '< 250 MB', pass: false },
    ])
  })

  it('fails a scenario that got no answer within its runs rather than reading its empty figures as met', () => {
    const silent = (key: ScenarioResult['key'], name: string): ScenarioResult => ({
      ...scenario(key, name, 0, Number.NaN),
      p50: Number.NaN,
    })
    const waiting = figures({
      scenarios: [
        scenario('raw', 'raw limit (lead by id)', 20_000, 0.5),
        silent('page', '100-lead page'),
        silent('search-text', 'search: free text'),
        silent('lead-c10', 'lead read, 10 at once'),
      ],
    })
    expect(checks(waiting).filter((c) => c.subject !== 'rss' && c.subject !== 'seed')).toEqual([
      { subject: 'page', target: 'p99 < 20 ms', pass: false },
      { subject: 'search-text', target: 'p99 < 30 ms', pass: false },
      { subject: 'lead-c10', target: 'answers, none failed', pass: false },
    ])
  })

  it('prints one table with the ratio to the raw limit and a mark next to each target', () => {
    expect(formatReport(figures())).toBe(
      [
        '2 cores, sqlite (data/bench/leads-100000.db), 100,000 leads, 10 s per run, load by wrk',
        '',
        'scenario                   req/s c=32  loader cpu  p50 ms c=1  p99 ms c=1  × raw  failed  target       result',
        'raw limit (lead by id)         20,000        25 %        0.13        0.50      –       0',
        'lead read GET /lead/{id}/      15,000        25 %        0.30        1.20   0.75       0  ≥ 0.7× raw   ✓',
        'GET /me/                        8,000        25 %        0.20        0.80   0.40       0  ≥ 0.7× raw   ✗',
        '100-lead page                     300        25 %        4.97        19.9      –       0  p99 < 20 ms  ✓',
        'search: free text                 150        25 %        7.75        31.0      –       0  p99 < 30 ms  ✗',
        '',
        'API peak RSS: 180 MB (target < 250 MB) ✓',
        'Seeding: 24.5 s (target < 30 s) ✓',
        '2 of 6 targets missed.',
      ].join('\n'),
    )
  })

  it('marks each of two rows of one search (index and SQL) by its own figures', () => {
    const both = figures({
      scenarios: [
        scenario('search-fields', 'search: fields (index)', 60, 27.9),
        scenario('search-fields', 'search: fields (sql)', 23, 95.7),
      ],
    })
    const rows = formatReport(both).split('\n')
    expect(rows.find((row) => row.startsWith('search: fields (index)'))?.endsWith('✓')).toBe(true)
    expect(rows.find((row) => row.startsWith('search: fields (sql)'))?.endsWith('✗')).toBe(true)
  })

  it('prints the database size per lead and its largest indexes, and gives machines the same', () => {
    const sized = figures({
      size: { bytes: 2_098_216_960, largestIndexes: [{ name: 'activity_org_user_idx', bytes: 92_938_240 }] },
    })
    expect(formatReport(sized)).toContain(
      'Database: 2,098 MB, 21.0 KB a lead; largest indexes: activity_org_user_idx 93 MB',
    )
    expect(reportJson(sized).database_bytes).toBe(2_098_216_960)
    expect(reportJson(figures()).database_bytes).toBeNull()
  })

  it('says when its rates are the median of several rounds', () => {
    const [first] = formatReport(figures({ rounds: 3 })).split('\n')
    expect(first).toBe(
      '2 cores, sqlite (data/bench/leads-100000.db), 100,000 leads, 10 s per run, req/s the median of 3 rounds, load by wrk',
    )
    expect(reportJson(figures({ rounds: 3 })).rounds).toBe(3)
  })

  it('gives machines the same figures', () => {
    const json = reportJson(figures())
    expect(json.all_targets_met).toBe(false)
    expect(json.seed_seconds).toBe(24.5)
    expect(json.scenarios[1]).toEqual({
      key: 'lead',
      name: 'lead read GET /lead/{id}/',
      requests_per_second: 15_000,
      loader_cores: 0.25,
      p50_ms: 0.3,
      p99_ms: 1.2,
      ratio_to_raw: 0.75,
      non_2xx: 0,
      errors: 0,
      target: '≥ 0.7× raw',
      pass: true,
    })
    expect(JSON.parse(JSON.stringify(json))).toEqual(json)
  })
})

describe('bench helpers', () => {
  it('takes the median of the rounds', () => {
    expect(median([3, 1, 2])).toBe(2)
    expect(median([4, 1, 3, 2])).toBe(2.5)
    expect(median([7])).toBe(7)
    expect(median([])).toBeNaN()
  })

  it("reads wrk's figures and its CPU from bash's times", () => {
    const output = [
      'Running 3s test @ http://127.0.0.1:4000',
      '',
      'BENCH {"requests":9000,"us":3000000,"status":4,"errors":2,"p50":812,"p99":2450}',
      '0m0.010s 0m0.004s',
      '0m0.450s 0m1.050s',
      '',
    ].join('\n')
    expect(parseWrk(output, 3000)).toEqual({
      requests: 9000,
      seconds: 3,
      non2xx: 4,
      errors: 2,
      p50Ms: 0.812,
      p99Ms: 2.45,
      loaderCores: 0.5,
    })
    // Nothing answered within the run: wrk's empty histogram says 0 µs, which is no latency at all.
    const silent = parseWrk(
      'BENCH {"requests":0,"us":3000000,"status":0,"errors":0,"p50":0,"p99":0}\n0m0.1s 0m0.1s',
      3000,
    )
    expect([silent.requests, silent.p50Ms, silent.p99Ms]).toEqual([0, Number.NaN, Number.NaN])
    expect(() => parseWrk('unable to connect to 127.0.0.1:1 Connection refused\n0m0.000s 0m0.000s', 10)).toThrow(
      /wrk printed no figures/,
    )
  })

  it('takes percentiles by nearest rank', () => {
    const values = Array.from({ length: 100 }, (_, i) => i + 1)
    expect(percentile(values, 50)).toBe(50)
    expect(percentile(values, 99)).toBe(99)
    expect(percentile([7], 99)).toBe(7)
    expect(percentile([], 50)).toBeNaN()
  })

  it('checks the report on its median, and says what it grouped', () => {
    const report = (p50: number) => ({ ...scenario('report', 'report: won by month', 4, p50 * 4), p50 })
    const quick = figures({ scenarios: [report(99)], reportOpportunities: 1_000_000 })
    expect(checks(quick).find((c) => c.subject === 'report')).toEqual({
      subject: 'report',
      target: 'p50 < 100 ms',
      pass: true,
    })
    expect(checks(figures({ scenarios: [report(100)] })).find((c) => c.subject === 'report')?.pass).toBe(false)
    expect(formatReport(quick)).toContain('over 1,000,000 opportunities')
    expect(reportJson(quick).report_opportunities).toBe(1_000_000)
  })

  it('checks the sorted opportunity pages on their p99 against a search’s budget at a million, at any lead count', () => {
    const sorts = (p99: number) => scenario('opportunity-sorts', 'opportunity list: sorted pages', 200, p99)
    const check = (p99: number) =>
      checks(figures({ scenarios: [sorts(p99)], reportOpportunities: 1_000_000 })).find(
        (c) => c.subject === 'opportunity-sorts',
      )
    expect(check(99)).toEqual({ subject: 'opportunity-sorts', target: 'p99 < 100 ms', pass: true })
    expect(check(100)?.pass).toBe(false)
    expect(formatReport(figures({ scenarios: [sorts(99)], reportOpportunities: 1_000_000 }))).toContain(
      "the sorted pages and the board's columns are over 1,000,000 opportunities",
    )
    const columns = scenario('board-columns', "board: a pipeline's columns", 200, 101)
    expect(checks(figures({ scenarios: [columns], reportOpportunities: 1_000_000 }))).toContainEqual({
      subject: 'board-columns',
      target: 'p99 < 100 ms',
      pass: false,
    })
  })

  it('checks the lead read through the BFF against the direct one, both ten at a time', () => {
    const direct = { ...scenario('lead-c10', 'lead read, 10 at once', 10_000, 4), p50: 1.0 }
    const viaBff = (p50: number, rate: number) => ({ ...scenario('bff-lead', 'via the BFF', rate, p50 * 2), p50 })
    const check = (p50: number, rate: number) =>
      checks(figures({ scenarios: [direct, viaBff(p50, rate)] })).find((c) => c.subject === 'bff-lead')
    expect(check(2.5, 5_000)).toEqual({
      subject: 'bff-lead',
      target: 'p50 ≤ direct + 1.5 ms, ≥ 0.5× direct',
      pass: true,
    })
    expect(check(2.6, 5_000)?.pass).toBe(false)
    expect(check(2.0, 4_999)?.pass).toBe(false)
    expect(checks(figures({ scenarios: [viaBff(1, 9_000)] })).find((c) => c.subject === 'bff-lead')?.pass).toBe(false)
  })

  it('checks the command palette’s search against its 100 ms at p99', () => {
    const palette = (p99: number) => ({ ...scenario('palette', 'palette: search as one types', 40, p99), p99 })
    expect(checks(figures({ scenarios: [palette(99)] })).find((c) => c.subject === 'palette')).toEqual({
      subject: 'palette',
      target: 'p99 < 100 ms',
      pass: true,
    })
    expect(checks(figures({ scenarios: [palette(100)] })).find((c) => c.subject === 'palette')?.pass).toBe(false)
  })

  it('measures every scenario unless --only names some, and refuses a name it does not know', () => {
    expect([...parseOnly(undefined)]).toEqual([
      'raw',
      'lead',
      'me',
      'lead-c10',
      'bff-lead',
      'page',
      'search-text',
      'search-text-new',
      'search-fields',
      'search-dates',
      'search-filters',
      'palette',
      'sort-columns',
      'activity-types',
      'report',
      'opportunity-sorts',
      'board-columns',
    ])
    expect([...parseOnly('raw, lead,me')]).toEqual(['raw', 'lead', 'me'])
    expect(() => parseOnly('raw,leads')).toThrow(
      '--only takes scenarios out of raw, lead, me, lead-c10, bff-lead, page',
    )
    expect(() => parseOnly(',')).toThrow('--only')
  })

  it('prints the bulk edit’s time and rate beside its 60 s, and passes it only under them', () => {
    const edit = (seconds: number) =>
      formatBulkEdit({
        query: 'status:potential',
        leads: 100_000,
        nLeads: 50_056,
        nChanged: 50_000,
        seconds,
        apiPeakRssMb: 412.4,
      })
    expect(edit(41.5)).toBe(
      [
        'bulk edit: the status of "status:potential" (50,056 of 100,000 leads, 50,000 changed) on SQLite',
        '  41.5 s, 1,206 leads/s (target < 60 s, 835 leads/s: pass)',
        '  api peak RSS 412 MB',
        'Every target met.',
      ].join('\n'),
    )
    expect(edit(60)).toContain('  60.0 s, 834 leads/s (target < 60 s, 835 leads/s: FAIL)')
    expect(edit(60)).toContain('1 of 1 targets missed.')
  })

  it("prints each screen's median and slowest paint against 300 ms, and refuses a screen that was not reached", () => {
    const printed = (screens: object[]) => JSON.stringify({ screens })
    const paints = parseScreenPaints(
      printed([
        { name: 'Leads', path: '/leads', lcp: [240.4, 180, 900], landed: ['/leads'] },
        { name: 'Reports', path: '/reports', lcp: [320, 310, 330], landed: ['/reports', '/reports/owners'] },
        { name: 'Inbox', path: '/inbox', lcp: [100, null, 100], landed: ['/inbox'] },
      ]),
    )
    expect(formatScreenPaints(paints).split('\n')).toEqual([
      'screen          path                     LCP p50 ms   slowest   target     result',
      'Leads           /leads                          240       900   < 300 ms  ✓',
      'Reports         /reports                        320       330   < 300 ms  ✗',
      'Inbox           /inbox                         none      none   < 300 ms  ✗',
      '2 of 3 screens missed the target.',
    ])
    expect(() =>
      parseScreenPaints(printed([{ name: 'Leads', path: '/leads', lcp: [200], landed: ['/leads', '/sign-in'] }])),
    ).toThrow('Leads (/leads) ended on /sign-in')
    expect(() => parseScreenPaints(printed([{ name: 'Leads', path: '/leads', lcp: [200] }]))).toThrow('ended on')
    expect(() =>
      parseScreenPaints(printed([{ name: 'Leads', path: '/leads', lcp: [200], landed: ['/leadsx'] }])),
    ).toThrow('ended on /leadsx')
    expect(() => parseScreenPaints('{}')).toThrow('no screens')
  })

  it('never prints a Postgres password', () => {
    expect(redactedUrl('postgres://bench:s3cret@db.internal:5432/leadline')).toBe(
      'postgres://bench:***@db.internal:5432/leadline',
    )
    expect(redactedUrl('postgres://postgres@127.0.0.1:5432/postgres')).toBe(
      'postgres://postgres@127.0.0.1:5432/postgres',
    )
    expect(redactedUrl('sqlite:data/bench/leads-10.db')).toBe('data/bench/leads-10.db')
  })

  it("asks each of a scenario's paths once before measuring it, sending its headers, and stops at its limit", async () => {
    const seen: string[] = []
    const server = createServer((req, res) => {
      seen.push(`${req.url ?? ''} ${req.headers.authorization ?? ''} ${String(req.headers['x-requested-with'])}`)
      if (req.url === '/slow') return // never answered: the limit ends it
      res.statusCode = req.url === '/missing' ? 404 : 200
      res.end('{}')
    })
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done))
    try {
      const address = server.address()
      if (address === null || typeof address === 'string') throw new Error('no port')
      const url = `http://127.0.0.1:${String(address.port)}`
      const target = { url, authorization: 'Basic k', headers: { 'x-requested-with': 'bench' } }
      const first = await firstAnswers({ ...target, paths: ['/a', '/b', '/a', '/missing'] }, 10_000)
      expect(first).toMatchObject({ asked: 3, answered: 2 })
      expect(seen).toEqual(['/a Basic k bench', '/b Basic k bench', '/missing Basic k bench'])
      const limited = await firstAnswers({ ...target, paths: ['/slow', '/a'] }, 300)
      expect(limited).toMatchObject({ asked: 2, answered: 0 })
      expect(limited.slowestMs).toBeGreaterThanOrEqual(250)
    } finally {
      server.closeAllConnections()
      await new Promise((done) => server.close(done))
    }
  })
})
