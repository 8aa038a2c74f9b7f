import { createServer, type IncomingHttpHeaders, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'

/** One request a receiver got, whatever it answered. */
export interface ReceivedRequest {
  method: string
  path: string
  headers: IncomingHttpHeaders
  body: string
  /** What the receiver answered. */
  status: number
}

export interface Answer {
  status: number
  headers?: Record<string, string>
}

/** Decides the answer to each request (the body already read; `index` counts from 0 for each responder). */
export type Responder = (request: Omit<ReceivedRequest, 'status'>, index: number) => Answer | Promise<Answer>

export interface Receiver {
  /** `http://127.0.0.1:<port>` */
  origin: string
  url: string
  requests: ReceivedRequest[]
  /** Requests read but not answered yet. */
  inFlight(): number
  respondWith(responder: Responder): void
  close(): Promise<void>
}

/** A real HTTP server on loopback that records every request made to it: a webhook subscriber for tests. */
export async function startReceiver(responder: Responder = () => ({ status: 200 })): Promise<Receiver> {
  let respond = responder
  let inFlight = 0
  let index = 0
  const requests: ReceivedRequest[] = []
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      inFlight++
      const request = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      }
      Promise.resolve(respond(request, index++))
        .then((answer) => {
          requests.push({ ...request, status: answer.status })
          res.writeHead(answer.status, { 'content-type': 'text/plain', ...answer.headers })
          res.end(answer.status < 300 ? 'ok' : `no: ${String(answer.status)}`)
        })
        .catch(() => {
          res.destroy()
        })
        .finally(() => {
          inFlight--
        })
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  const origin = `http://127.0.0.1:${String(port)}`
  return {
    origin,
    url: `${origin}/hook`,
    requests,
    inFlight: () => inFlight,
    respondWith: (next) => {
      respond = next
      index = 0
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections()
        server.close(() => {
          resolve()
        })
      }),
  }
}
