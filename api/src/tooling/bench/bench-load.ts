import autocannon from 'autocannon'

// One load generator for every scenario: autocannon, driven through its API. Throughput is measured with many
// connections at once; latency with one, where a request's time is its own and not its place in a queue.

export interface LoadTarget {
  /** The server's origin, `http://127.0.0.1:port`. */
  url: string
  authorization: string
  /** Other request headers (the BFF's session cookie and X-Requested-With). */
  headers?: Readonly<Record<string, string>>
  /** The path of the next request; called once per request, so a scenario can rotate through several. */
  nextPath: () => string
}

export interface ThroughputRun {
  requestsPerSecond: number
  non2xx: number
  errors: number
}

export interface LatencyRun {
  p50: number
  p99: number
  non2xx: number
  errors: number
}

/** The value below which `p` per cent of the sorted `values` lie (nearest rank). */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN
  const rank = Math.ceil((p / 100) * sorted.length)
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1] ?? Number.NaN
}

function run(
  target: LoadTarget,
  connections: number,
  seconds: number,
  onLatency?: (ms: number) => void,
): Promise<autocannon.Result> {
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url: target.url,
        connections,
        duration: seconds,
        headers: { ...(target.authorization === '' ? {} : { authorization: target.authorization }), ...target.headers },
        requests: [{ method: 'GET', setupRequest: (request) => ({ ...request, path: target.nextPath() }) }],
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

/** Requests per second with `connections` at once, for `seconds`. */
export async function measureThroughput(
  target: LoadTarget,
  connections: number,
  seconds: number,
): Promise<ThroughputRun> {
  const result = await run(target, connections, seconds)
  return {
    requestsPerSecond: result.requests.total / Math.max(result.duration, 1e-9),
    non2xx: result.non2xx,
    errors: result.errors,
  }
}

/** p50 and p99 latency in ms of requests made `connections` at a time (one unless given), for `seconds`. */
export async function measureLatency(target: LoadTarget, seconds: number, connections = 1): Promise<LatencyRun> {
  const latencies: number[] = []
  const result = await run(target, connections, seconds, (ms) => latencies.push(ms))
  latencies.sort((a, b) => a - b)
  return {
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    non2xx: result.non2xx,
    errors: result.errors,
  }
}
