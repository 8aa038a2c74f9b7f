import { createServer, type Server } from 'node:http'
import { isIP } from 'node:net'

// The `/metrics` port of the api and of the BFF (decision 0072): a plain `node:http` server of its own, opened only
// when its port variable is set, bound to loopback unless its host variable says otherwise. Node only (never imported
// by the web app).

/** The buckets (seconds) of every duration histogram of the api and the BFF, so that their figures line up. */
export const DURATION_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]

export interface MetricsEndpoint {
  port: number
  host: string
}

/** What a prom-client registry offers; structural, so that this module needs no prom-client of its own. */
export interface MetricsSource {
  metrics(): Promise<string>
  readonly contentType: string
}

/** `portName` (0 picks a free port) on `hostName` (127.0.0.1); null when the port is unset or empty. */
export function metricsEndpointFrom(
  env: Record<string, string | undefined>,
  portName: string,
  hostName: string,
): MetricsEndpoint | null {
  const raw = env[portName]
  if (raw === undefined || raw === '') return null
  const port = Number(raw)
  if (!/^\d{1,5}$/.test(raw) || port > 65535) throw new Error(`${portName} must be a TCP port, got "${raw}"`)
  const host = env[hostName] ?? '127.0.0.1'
  if (host === '' || isIP(host) === 0) throw new Error(`${hostName} must be an IP address, got "${host}"`)
  return { port, host }
}

/** `GET /metrics` on the endpoint (and nothing else); resolves with the bound URL. */
export async function serveMetrics(
  source: MetricsSource,
  { host, port }: MetricsEndpoint,
): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => {
    if (req.method !== 'GET' || req.url?.split('?')[0] !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('Not found: GET /metrics\n')
      return
    }
    source.metrics().then(
      (text) => {
        res.writeHead(200, { 'content-type': source.contentType, 'cache-control': 'no-store' }).end(text)
      },
      (error: unknown) => {
        res.writeHead(500, { 'content-type': 'text/plain' }).end(`metrics failed: ${String(error)}\n`)
      },
    )
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, host, () => {
      server.off('error', reject)
      resolve()
    })
  })
  const address = server.address()
  const bound = typeof address === 'object' && address !== null ? address.port : port
  return { server, url: `http://${host.includes(':') ? `[${host}]` : host}:${String(bound)}` }
}

/** Stops the metrics port: a scrape in flight is cut, Prometheus tries again at its next interval. */
export function closeMetrics(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => {
      resolve()
    })
    server.closeAllConnections()
  })
}

/** One sample's value in Prometheus text, by its name and labels as printed (`name{a="b"}`); undefined if absent. */
export function sampleValue(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `))
  return line === undefined ? undefined : Number(line.slice(series.length + 1))
}
