import { request as httpRequest, createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

// A load balancer in miniature for the topology journey: each request goes to the next of its targets in turn. A
// target that refuses the connection (its process is gone) is skipped for the next, as a balancer's health check
// would; anything else that fails is a 502. Bodies are read whole first, so a refused request can go elsewhere.

export interface RoundRobin {
  url: string
  /** Which target answered each request, in order: `[method path, target]`. */
  served: { method: string; path: string; target: string; status: number }[]
  close(): Promise<void>
}

export async function startRoundRobin(targets: string[]): Promise<RoundRobin> {
  let next = 0
  const served: RoundRobin['served'] = []
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      const start = next
      next = (next + 1) % targets.length
      forward(req, res, Buffer.concat(chunks), start, 0)
    })
  })

  function forward(req: IncomingMessage, res: ServerResponse, body: Buffer, index: number, tried: number): void {
    const target = targets[index % targets.length] ?? ''
    const upstream = httpRequest(
      new URL(req.url ?? '/', target),
      { method: req.method, headers: req.headers, agent: false },
      (answer) => {
        served.push({ method: req.method ?? '', path: req.url ?? '', target, status: answer.statusCode ?? 0 })
        res.writeHead(answer.statusCode ?? 502, answer.headers)
        answer.pipe(res)
        answer.on('error', () => res.destroy())
        res.on('close', () => answer.destroy())
      },
    )
    upstream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'ECONNREFUSED' && tried + 1 < targets.length) {
        forward(req, res, body, index + 1, tried + 1)
        return
      }
      if (res.headersSent) res.destroy()
      else res.writeHead(502, { 'content-type': 'text/plain' }).end(`no answer from ${target}`)
    })
    upstream.end(body)
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${String(port)}`,
    served,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => {
          resolve()
        })
      }),
  }
}
