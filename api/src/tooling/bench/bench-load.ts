import { spawn, spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import autocannon from 'autocannon'

// One load generator for every scenario. Throughput is measured with many connections at once; latency with one,
// where a request's time is its own and not its place in a queue. wrk (Debian's package) when it is installed: a C
// loader that takes a fraction of a core, where autocannon, in this process, takes one of its own and on a 2-core
// machine caps the server it measures (issue 34 measured the lead read at 0.34× raw with wrk, 0.7× with autocannon).

export interface LoadTarget {
  /** The server's origin, `http://127.0.0.1:port`. */
  url: string
  authorization: string
  /** Other request headers (the BFF's session cookie and X-Requested-With). */
  headers?: Readonly<Record<string, string>>
  /** The paths requested, in turn, over and over. */
  paths: readonly string[]
}

/** What the loader itself cost: CPU time over the run's wall time, so 0.3 is 30 % of one core. */
export interface LoaderCost {
  loaderCores: number
}

export interface ThroughputRun extends LoaderCost {
  requestsPerSecond: number
  non2xx: number
  errors: number
}

export interface LatencyRun extends LoaderCost {
  p50: number
  p99: number
  non2xx: number
  errors: number
}

export type LoaderName = 'wrk' | 'autocannon'

/** wrk when it is on the PATH, else autocannon. */
export function availableLoader(): LoaderName {
  const probe = spawnSync('wrk', ['--version'], { stdio: 'ignore' })
  return probe.error === undefined ? 'wrk' : 'autocannon'
}

/** The value below which `p` per cent of the sorted `values` lie (nearest rank). */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN
  const rank = Math.ceil((p / 100) * sorted.length)
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1] ?? Number.NaN
}

/** Requests per second with `connections` at once, for `seconds`. */
export async function measureThroughput(
  loader: LoaderName,
  target: LoadTarget,
  connections: number,
  seconds: number,
): Promise<ThroughputRun> {
  if (loader === 'wrk') {
    const run = await runWrk(target, connections, seconds)
    return {
      requestsPerSecond: run.requests / Math.max(run.seconds, 1e-9),
      non2xx: run.non2xx,
      errors: run.errors,
      loaderCores: run.loaderCores,
    }
  }
  const cpu = process.cpuUsage()
  const started = performance.now()
  const result = await runAutocannon(target, connections, seconds)
  return {
    requestsPerSecond: result.requests.total / Math.max(result.duration, 1e-9),
    non2xx: result.non2xx,
    errors: result.errors,
    loaderCores: coresSince(cpu, started),
  }
}

/** p50 and p99 latency in ms of requests made `connections` at a time (one unless given), for `seconds`. */
export async function measureLatency(
  loader: LoaderName,
  target: LoadTarget,
  seconds: number,
  connections = 1,
): Promise<LatencyRun> {
  if (loader === 'wrk') {
    const run = await runWrk(target, connections, seconds)
    return { p50: run.p50Ms, p99: run.p99Ms, non2xx: run.non2xx, errors: run.errors, loaderCores: run.loaderCores }
  }
  const latencies: number[] = []
  const cpu = process.cpuUsage()
  const started = performance.now()
  const result = await runAutocannon(target, connections, seconds, (ms) => latencies.push(ms))
  latencies.sort((a, b) => a - b)
  return {
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    non2xx: result.non2xx,
    errors: result.errors,
    loaderCores: coresSince(cpu, started),
  }
}

function coresSince(cpu: NodeJS.CpuUsage, startedMs: number): number {
  const used = process.cpuUsage(cpu)
  return (used.user + used.system) / 1000 / Math.max(performance.now() - startedMs, 1e-9)
}

function runAutocannon(
  target: LoadTarget,
  connections: number,
  seconds: number,
  onLatency?: (ms: number) => void,
): Promise<autocannon.Result> {
  let next = 0
  const nextPath = () => target.paths[next++ % target.paths.length] ?? '/'
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url: target.url,
        connections,
        duration: seconds,
        headers: { ...(target.authorization === '' ? {} : { authorization: target.authorization }), ...target.headers },
        requests: [{ method: 'GET', setupRequest: (request) => ({ ...request, path: nextPath() }) }],
      },
      (error: unknown, result) => {
        if (error === null || error === undefined) resolve(result)
        else reject(error instanceof Error ? error : new Error('autocannon failed', { cause: error }))
      },
    )
    if (onLatency !== undefined) {
      // autocannon's own histogram counts whole milliseconds; a point read takes a fraction of one.
      instance.on('response', (_client, _status, _bytes, responseTime) => {
        onLatency(responseTime)
      })
    }
  })
}

/**
 * wrk's script: the paths from the file BENCH_PATHS in turn, and at the end one JSON line of the run's figures (its
 * latency histogram counts microseconds). `errors.status` is wrk's count of answers of 400 and above.
 */
const WRK_SCRIPT = `
local paths = {}
for line in io.lines(os.getenv("BENCH_PATHS")) do paths[#paths + 1] = line end
local n = 0
request = function()
  n = n % #paths + 1
  return wrk.format(nil, paths[n])
end
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format('\\nBENCH {"requests":%d,"us":%d,"status":%d,"errors":%d,"p50":%d,"p99":%d}\\n',
    summary.requests, summary.duration, e.status, e.connect + e.read + e.write + e.timeout,
    latency:percentile(50), latency:percentile(99)))
end
`

interface WrkRun {
  requests: number
  seconds: number
  non2xx: number
  errors: number
  p50Ms: number
  p99Ms: number
  loaderCores: number
}

/** One wrk run (one thread), through bash so that `times` reports wrk's own CPU once it has exited. */
async function runWrk(target: LoadTarget, connections: number, seconds: number): Promise<WrkRun> {
  const dir = mkdtempSync(join(tmpdir(), 'leadline-wrk-'))
  try {
    const script = join(dir, 'paths.lua')
    const pathsFile = join(dir, 'paths.txt')
    writeFileSync(script, WRK_SCRIPT)
    writeFileSync(pathsFile, `${target.paths.join('\n')}\n`)
    const headers = {
      ...(target.authorization === '' ? {} : { authorization: target.authorization }),
      ...target.headers,
    }
    const args = [
      '-t1',
      `-c${String(connections)}`,
      `-d${String(seconds)}s`,
      '--timeout',
      '10s',
      '-s',
      script,
      ...Object.entries(headers).flatMap(([name, value]) => ['-H', `${name}: ${value}`]),
      target.url,
    ]
    const started = performance.now()
    const output = await new Promise<string>((resolve, reject) => {
      const child = spawn('bash', ['-c', 'wrk "$@"; code=$?; times; exit $code', 'bash', ...args], {
        env: { ...process.env, BENCH_PATHS: pathsFile },
        stdio: ['ignore', 'pipe', 'pipe'],
      })
      let text = ''
      child.stdout.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')))
      child.stderr.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')))
      child.on('error', reject)
      child.on('close', (code) => {
        if (code === 0) resolve(text)
        else reject(new Error(`wrk exited with ${String(code)}:\n${text}`))
      })
    })
    return parseWrk(output, performance.now() - started)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/** wrk's JSON line and bash's `times` (its last line: the children's user and system time, `0m1.230s 0m0.450s`). */
export function parseWrk(output: string, wallMs: number): WrkRun {
  const line = output.split('\n').find((l) => l.startsWith('BENCH '))
  if (line === undefined) throw new Error(`wrk printed no figures:\n${output}`)
  const figures = JSON.parse(line.slice('BENCH '.length)) as Record<string, number>
  const times = output.trimEnd().split('\n').at(-1) ?? ''
  const cpuSeconds = [...times.matchAll(/(\d+)m([\d.]+)s/g)].reduce(
    (sum, match) => sum + Number(match[1]) * 60 + Number(match[2]),
    0,
  )
  const number = (key: string) => figures[key] ?? Number.NaN
  // With no answer (every request still waiting when the run ended) wrk's histogram says 0: no latency was measured.
  const answered = number('requests') > 0
  return {
    requests: number('requests'),
    seconds: number('us') / 1e6,
    non2xx: number('status'),
    errors: number('errors'),
    p50Ms: answered ? number('p50') / 1000 : Number.NaN,
    p99Ms: answered ? number('p99') / 1000 : Number.NaN,
    loaderCores: (cpuSeconds * 1000) / Math.max(wallMs, 1e-9),
  }
}

/** How a scenario's first answers went: each distinct path asked once, in turn, before it is warmed up and measured. */
export interface FirstAnswers {
  asked: number
  answered: number
  slowestMs: number
  seconds: number
}

/**
 * Asks each of a target's distinct paths once, one at a time, until `limitMs` has passed: what a first search costs
 * (an organization's index read from the database, a sort's keys loaded) is paid here, where it is reported, not in
 * the warm-up's seconds, from which a million-lead index would still be building through every run.
 */
export async function firstAnswers(target: LoadTarget, limitMs: number): Promise<FirstAnswers> {
  const started = performance.now()
  const deadline = started + limitMs
  const paths = [...new Set(target.paths)]
  let answered = 0
  let slowestMs = 0
  for (const path of paths) {
    const left = deadline - performance.now()
    if (left <= 0) break
    const asked = performance.now()
    try {
      const res = await fetch(`${target.url}${path}`, {
        headers: { ...(target.authorization === '' ? {} : { authorization: target.authorization }), ...target.headers },
        signal: AbortSignal.timeout(Math.ceil(left)),
      })
      await res.arrayBuffer()
      if (res.ok) answered += 1
    } catch {
      // Timed out or refused: not answered, and the run's own counts will show it.
    }
    slowestMs = Math.max(slowestMs, performance.now() - asked)
  }
  return { asked: paths.length, answered, slowestMs, seconds: (performance.now() - started) / 1000 }
}
