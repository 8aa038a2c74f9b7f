// An event stream opened with fetch, collecting what arrives: what the api's, the bff's and the journeys' tests
// read the streams with (browsers have EventSource).

import { readSse, type SseMessage } from './sse.js'

/** An event stream opened over real HTTP, collecting what arrives. */
export interface SseClient {
  status: number
  headers: Headers
  /** The body of an answer that was not a stream (an error), parsed. */
  error: unknown
  messages: SseMessage[]
  comments: string[]
  /** The last id the stream gave, by a message or an id-only line, as EventSource would send it back. */
  lastEventId(): string
  /** Resolves once at least `count` messages have arrived (all of them so far), or rejects after `timeoutMs`. */
  waitFor(count: number, timeoutMs?: number): Promise<SseMessage[]>
  /** Resolves once the stream has given an id (the first thing a fresh stream sends). */
  waitForId(timeoutMs?: number): Promise<string>
  /** Resolves once `count` comments have arrived. */
  waitForComments(count: number, timeoutMs?: number): Promise<string[]>
  /** How the stream ended: `end` when the server finished it cleanly, `error` when the connection broke. */
  ended: Promise<'end' | 'error'>
  close(): void
}

export async function openSse(url: string, headers: Record<string, string> = {}): Promise<SseClient> {
  const abort = new AbortController()
  const response = await fetch(url, { headers: { accept: 'text/event-stream', ...headers }, signal: abort.signal })
  const messages: SseMessage[] = []
  const comments: string[] = []
  const waiters = new Set<() => void>()
  const notify = () => {
    for (const waiter of waiters) waiter()
  }
  let lastEventId = ''
  let error: unknown
  let ended: Promise<'end' | 'error'>
  const body = response.body
  if (!response.ok || body === null) {
    const text = await response.text()
    error = text === '' ? undefined : JSON.parse(text)
    ended = Promise.resolve('end')
  } else {
    ended = (async () => {
      try {
        for await (const item of readSse(body)) {
          if (item.type === 'comment') comments.push(item.text)
          else {
            lastEventId = item.lastEventId
            if (item.type === 'message') messages.push(item)
          }
          notify()
        }
        return 'end' as const
      } catch {
        return 'error' as const
      } finally {
        notify()
      }
    })()
  }
  const until = <T>(done: () => T | undefined, what: string, timeoutMs: number): Promise<T> =>
    new Promise((resolve, reject) => {
      const check = () => {
        const value = done()
        if (value === undefined) return
        waiters.delete(check)
        clearTimeout(timer)
        resolve(value)
      }
      const timer = setTimeout(() => {
        waiters.delete(check)
        reject(new Error(`${what} within ${String(timeoutMs)} ms; got ${JSON.stringify(messages.map((m) => m.data))}`))
      }, timeoutMs)
      waiters.add(check)
      check()
    })
  return {
    status: response.status,
    headers: response.headers,
    error,
    messages,
    comments,
    lastEventId: () => lastEventId,
    waitFor: (count, timeoutMs = 5000) =>
      until(() => (messages.length >= count ? [...messages] : undefined), `no ${String(count)} messages`, timeoutMs),
    waitForId: (timeoutMs = 5000) => until(() => (lastEventId === '' ? undefined : lastEventId), 'no id', timeoutMs),
    waitForComments: (count, timeoutMs = 5000) =>
      until(() => (comments.length >= count ? [...comments] : undefined), `no ${String(count)} comments`, timeoutMs),
    ended,
    close: () => {
      abort.abort()
    },
  }
}
