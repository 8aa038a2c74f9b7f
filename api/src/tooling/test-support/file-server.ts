import { readFileSync } from 'node:fs'
import { createServer, type Server } from 'node:https'
import type { AddressInfo } from 'node:net'

// A real HTTPS server on loopback serving files as told, with the self-signed certificate of `localhost` the tests
// trust (SINK_CERT): where an email's https attachments are fetched from in tests.

const tlsFile = (name: string) => readFileSync(new URL(`./tls/${name}`, import.meta.url), 'utf8')

/** How a path answers: a status, a body, and headers; `chunked` sends the body without a Content-Length. */
export interface FileAnswer {
  status: number
  body?: Buffer
  headers?: Record<string, string>
  chunked?: boolean
}

export interface FileServer {
  /** `https://localhost:<port>` */
  origin: string
  /** Each request's path, in order. */
  requests: string[]
  /** How `path` answers from now on (any other path: 404). */
  serve(path: string, answer: FileAnswer): void
  close(): Promise<void>
}

export async function startFileServer(): Promise<FileServer> {
  const answers = new Map<string, FileAnswer>()
  const requests: string[] = []
  const server: Server = createServer(
    { key: tlsFile('self-signed-key.pem'), cert: tlsFile('self-signed-cert.pem') },
    (req, res) => {
      const path = req.url ?? ''
      requests.push(path)
      const answer = answers.get(path) ?? { status: 404, body: Buffer.from('not here') }
      const body = answer.body ?? Buffer.alloc(0)
      res.writeHead(answer.status, {
        ...(answer.chunked === true ? {} : { 'content-length': String(body.length) }),
        ...answer.headers,
      })
      if (answer.chunked === true) {
        res.write(body)
        res.end()
      } else res.end(body)
    },
  )
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    origin: `https://localhost:${String(port)}`,
    requests,
    serve: (path, answer) => {
      answers.set(path, answer)
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
