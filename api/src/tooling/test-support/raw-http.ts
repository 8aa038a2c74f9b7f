import { connect } from 'node:net'
import type { FastifyInstance } from 'fastify'

export interface RawResponse {
  status: number
  headers: Record<string, string>
  body: string
}

export interface RawExchange {
  /** Everything the server sent, as Latin-1 text. */
  received: string
  /** Whether the server closed the connection (false: still open when the wait ended). */
  closed: boolean
  /** From the last write to the close, or to the end of the wait. */
  elapsedMs: number
}

/** The port of an app listening on 127.0.0.1 (`listenLocally` first). */
export function portOf(app: FastifyInstance): number {
  const address = app.server.address()
  if (address === null || typeof address === 'string') throw new Error('the app is not listening on a TCP port')
  return address.port
}

export async function listenLocally(app: FastifyInstance): Promise<number> {
  await app.listen({ port: 0, host: '127.0.0.1' })
  return portOf(app)
}

/**
 * Speaks HTTP by hand, for what `inject` cannot do: malformed or incomplete requests, and timeouts. Writes `parts`
 * in order (each once the previous one is flushed and it is ready itself), then collects what comes back until the
 * server closes the connection or `waitMs` passes.
 */
export function rawExchange(
  port: number,
  parts: (string | Buffer | Promise<string | Buffer>)[],
  waitMs: number,
): Promise<RawExchange> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1')
    const chunks: Buffer[] = []
    let sentAt = Date.now()
    let settled = false
    const finish = (closed: boolean) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      socket.destroy()
      resolve({ received: Buffer.concat(chunks).toString('latin1'), closed, elapsedMs: Date.now() - sentAt })
    }
    const timer = setTimeout(() => {
      finish(false)
    }, waitMs)
    socket.on('data', (chunk) => {
      chunks.push(chunk)
    })
    socket.on('close', () => {
      finish(true)
    })
    socket.on('error', (error: NodeJS.ErrnoException) => {
      // A server that answers and closes while the rest of a request is still being written resets the connection.
      if (error.code === 'ECONNRESET' || error.code === 'EPIPE') return
      settled = true
      clearTimeout(timer)
      reject(error)
    })
    const writeAll = async () => {
      for (const next of parts) {
        const part = await next
        await new Promise<void>((written) => {
          socket.write(part, () => {
            written()
          })
        })
      }
      sentAt = Date.now()
    }
    socket.once('connect', () => {
      void writeAll()
    })
  })
}

/** The responses in what a server sent on one connection, each framed by its Content-Length. */
export function parseResponses(received: string): RawResponse[] {
  const responses: RawResponse[] = []
  let rest = received
  while (rest.length > 0) {
    const end = rest.indexOf('\r\n\r\n')
    if (end === -1) throw new Error(`an incomplete response: ${JSON.stringify(rest)}`)
    const [statusLine = '', ...lines] = rest.slice(0, end).split('\r\n')
    const status = /^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1]
    if (status === undefined) throw new Error(`not a status line: ${JSON.stringify(statusLine)}`)
    const headers: Record<string, string> = {}
    for (const line of lines) {
      const colon = line.indexOf(':')
      headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim()
    }
    const length = Number(headers['content-length'] ?? 0)
    const bodyBytes = Buffer.from(rest.slice(end + 4), 'latin1').subarray(0, length)
    responses.push({ status: Number(status), headers, body: bodyBytes.toString('utf8') })
    rest = rest.slice(end + 4 + bodyBytes.toString('latin1').length)
  }
  return responses
}
