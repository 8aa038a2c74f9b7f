import type { Server, ServerResponse } from 'node:http'

export interface Closable {
  /** Ends the answers that never finish by themselves (event streams), so that they do not wait for the deadline. */
  endStreams?(): void
  /** Closes what the app holds open (timers, the upstream pool, pending session writes). */
  close(options?: { abortUpstream?: boolean }): Promise<void>
}

/**
 * Call right after creating the server. The returned function stops taking connections, lets requests in flight
 * finish (each connection closes as its last answer is sent), cuts whatever is left after `graceMs`, then closes
 * the app. Resolves when everything is closed.
 */
export function gracefulStop(server: Server, app: Closable, graceMs: number): () => Promise<void> {
  const inFlight = new Set<ServerResponse>()
  let stopping = false
  // Node 20 keeps a keep-alive connection open after close() once its answer is sent (until keepAliveTimeout, and
  // it would take new requests meanwhile), so every answer during shutdown says Connection: close and its
  // connection is closed as soon as it is idle.
  const closeIdleSoon = () => {
    setImmediate(() => {
      server.closeIdleConnections()
    })
  }
  server.on('request', (_req, res: ServerResponse) => {
    inFlight.add(res)
    if (stopping && !res.headersSent) res.setHeader('connection', 'close')
    res.once('close', () => {
      inFlight.delete(res)
      if (stopping) closeIdleSoon()
    })
  })

  let stopped: Promise<void> | undefined
  return () => {
    stopped ??= (async () => {
      stopping = true
      for (const res of inFlight) if (!res.headersSent) res.setHeader('connection', 'close')
      app.endStreams?.()
      let cut = false
      const deadline = setTimeout(() => {
        cut = true
        server.closeAllConnections()
      }, graceMs)
      const closed = new Promise<void>((resolve, reject) => {
        server.close((error) => {
          if (error === undefined) resolve()
          else reject(error)
        })
      })
      server.closeIdleConnections()
      try {
        await closed
      } finally {
        clearTimeout(deadline)
      }
      // Requests cut at the deadline may still wait on the API; nobody is left to answer.
      await app.close({ abortUpstream: cut })
    })()
    return stopped
  }
}
