import { randomBytes } from 'node:crypto'
import type { ServerResponse } from 'node:http'
import type { Logger } from 'pino'
import { Pool, type Dispatcher } from 'undici'
import { liveEventOf, type LiveEvent } from '@leadline/shared/live-event'
import { readSse, sseComment, sseMessage } from '@leadline/shared/sse'
import { STREAM_SECRET_HEADER } from '@leadline/shared/stream-secret'
import { REQUEST_ID_HEADER } from '@leadline/shared/request-id'
import { basicAuthorization, requestIdOf } from './crm-proxy.js'
import type { SessionStore } from './session.js'

// `/events`: live updates for signed-in browsers (decision 0022). One upstream event stream per organization with
// browsers connected to this process, opened with one of their sessions' keys; each event goes to every browser of
// the organization, reduced to what the web needs to know what to refresh.

export interface LiveEventsOptions {
  apiUrl: string
  streamSecret: string | undefined
  store: SessionStore
  now: () => Date
  logger: Logger
  /** How long the API may take to answer the stream's headers. */
  apiTimeoutMs: number
  timings?: Partial<LiveTimings>
}

export interface LiveTimings {
  /** Comments to browsers, and the check that their sessions still live. */
  heartbeatMs: number
  /** An organization's recent events kept for browsers that reconnect. */
  ringSize: number
  /** How long an organization's recent events and upstream position outlive its last browser. */
  lingerMs: number
  /** The first wait before re-opening a failed upstream; it doubles up to `retryMaxMs`. */
  retryMs: number
  retryMaxMs: number
}

const DEFAULT_TIMINGS: LiveTimings = {
  heartbeatMs: 15_000,
  ringSize: 1000,
  lingerMs: 60_000,
  retryMs: 500,
  retryMaxMs: 30_000,
}

/** EventSource waits this long before reconnecting. */
const BROWSER_RETRY_MS = 2000
/** A browser that has not read this much is too slow: its stream ends and it reconnects with its last id. */
const MAX_UNREAD_BYTES = 1024 * 1024
/** The API sends a comment every 15 s; three missed mean the connection is dead. */
const UPSTREAM_SILENCE_MS = 45_000
const STREAM_PATH = '/api/v1/event/stream/'

interface Browser {
  /** The session cookie's value, which unseals the session's key; kept in memory only. */
  sessionId: string
  res: ServerResponse
  /** What the browser said it saw last (`Last-Event-ID`). */
  lastEventId: string | undefined
  /** Whether its answer has begun: not before the organization's upstream first connects (see `attach`). */
  started: boolean
}

interface Upstream {
  sessionId: string
  abort: AbortController
}

/** One organization's browsers in this process, its upstream stream, and its recent events. */
class Channel {
  constructor(readonly organizationId: string) {}

  readonly browsers = new Set<Browser>()
  /** Of the browsers' ids: `<generation>.<n>`, where the generation is this channel's alone. */
  readonly generation = randomBytes(6).toString('base64url')
  /** Recent events as sent, oldest first: `n` is their number in this channel. */
  readonly ring: { n: number; eventId: string; text: string }[] = []
  readonly eventIds = new Set<string>()
  /** Ids up to `last` have been given out; those after `base` can be replayed from the ring. */
  last = 0
  base = 0
  /** The upstream's last id: where a re-opened upstream resumes. */
  upstreamId: string | undefined
  upstream: Upstream | undefined
  /** Sessions whose keys the API refused the stream (a rep's key without the shared secret). */
  readonly refused = new Set<string>()
  failures = 0
  retryTimer: NodeJS.Timeout | undefined
  lingerTimer: NodeJS.Timeout | undefined
  heartbeat: NodeJS.Timeout | undefined

  idOf(n: number): string {
    return `${this.generation}.${String(n)}`
  }

  /** The ring's events after a browser's last id, or undefined when that id is not one this ring can follow. */
  after(lastEventId: string): string[] | undefined {
    const [generation, number, ...rest] = lastEventId.split('.')
    if (generation !== this.generation || rest.length > 0 || number === undefined || !/^\d{1,15}$/.test(number))
      return undefined
    const n = Number(number)
    if (n < this.base || n > this.last) return undefined
    return this.ring.filter((entry) => entry.n > n).map((entry) => entry.text)
  }
}

/** Live updates for browsers: `attach` a signed-in browser's response; `endSession` when a session ends. */
export class LiveEvents {
  readonly #channels = new Map<string, Channel>()
  readonly #pool: Pool
  readonly #timings: LiveTimings
  #closed = false
  #opened = 0

  constructor(private readonly options: LiveEventsOptions) {
    this.#timings = { ...DEFAULT_TIMINGS, ...options.timings }
    // Its own pool: each organization's stream holds a connection for as long as it is open, which must not take
    // them from the proxied requests'.
    this.#pool = new Pool(options.apiUrl, { keepAliveTimeout: 10_000 })
  }

  /** Browsers connected now, over all organizations (for tests and logs). */
  get browsers(): number {
    let count = 0
    for (const channel of this.#channels.values()) count += channel.browsers.size
    return count
  }

  /** Upstream streams opened since the start (a hand-over opens one more). */
  get opened(): number {
    return this.#opened
  }

  /** Upstream streams open now. */
  get upstreams(): number {
    return [...this.#channels.values()].filter((channel) => channel.upstream !== undefined).length
  }

  /** Starts the event stream on a signed-in browser's response; it ends when the browser leaves or the session does. */
  attach(res: ServerResponse, session: { id: string; organizationId: string }, lastEventId: string | undefined): void {
    if (this.#closed) {
      res.writeHead(503, { 'content-type': 'application/json; charset=utf-8' })
      res.end(JSON.stringify({ error: 'The server is shutting down.' }))
      return
    }
    let channel = this.#channels.get(session.organizationId)
    if (channel === undefined) {
      channel = new Channel(session.organizationId)
      this.#channels.set(session.organizationId, channel)
    }
    const joined = channel
    clearTimeout(joined.lingerTimer)
    joined.lingerTimer = undefined

    const browser: Browser = { sessionId: session.id, res, lastEventId, started: false }
    joined.browsers.add(browser)
    res.once('close', () => {
      this.#detach(session.organizationId, joined, browser)
    })
    // A browser's stream opens once the organization's upstream is connected: from its `open` event on, nothing
    // is missed, even for the first browser of an organization.
    if (joined.upstreamId !== undefined) this.#begin(joined, browser)
    joined.heartbeat ??= setInterval(() => {
      this.#beat(joined)
    }, this.#timings.heartbeatMs).unref()
    this.#open(joined, requestIdOf(res))
  }

  /** The answer's head, then the ring's events after the browser's last id, or its reset, or where it stands now. */
  #begin(channel: Channel, browser: Browser): void {
    browser.started = true
    browser.res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      'x-accel-buffering': 'no',
    })
    const here = channel.idOf(channel.last)
    const { lastEventId } = browser
    const missed = lastEventId === undefined ? undefined : channel.after(lastEventId)
    let first = sseMessage({ retryMs: BROWSER_RETRY_MS, id: here })
    if (missed !== undefined) first = sseMessage({ retryMs: BROWSER_RETRY_MS }) + missed.join('')
    else if (lastEventId !== undefined) first += resetMessage(here)
    this.#write(browser, first)
  }

  /** A session ended (signed out, its key refused): its browsers' streams end, and EventSource gets a 401 next. */
  endSession(sessionId: string): void {
    for (const channel of this.#channels.values())
      for (const browser of [...channel.browsers]) if (browser.sessionId === sessionId) end(browser, 401)
  }

  /** Ends every browser's stream (the server is stopping); the upstream streams close as their browsers leave. */
  endStreams(): void {
    this.#closed = true
    for (const channel of this.#channels.values()) for (const browser of [...channel.browsers]) end(browser, 503)
  }

  async close(): Promise<void> {
    this.endStreams()
    for (const channel of this.#channels.values()) this.#stop(channel)
    this.#channels.clear()
    await this.#pool.destroy()
  }

  #detach(organizationId: string, channel: Channel, browser: Browser): void {
    channel.browsers.delete(browser)
    if (channel.browsers.size === 0) {
      this.#stop(channel)
      if (this.#closed) {
        this.#channels.delete(organizationId)
        return
      }
      // Its recent events and upstream position stay a while, for browsers that come straight back.
      channel.lingerTimer = setTimeout(() => {
        if (this.#channels.get(organizationId) === channel && channel.browsers.size === 0)
          this.#channels.delete(organizationId)
      }, this.#timings.lingerMs).unref()
      return
    }
    const upstream = channel.upstream
    if (upstream !== undefined && ![...channel.browsers].some((b) => b.sessionId === upstream.sessionId)) {
      // The stream was opened with a key of a session no longer here: another connected session takes over.
      upstream.abort.abort()
      channel.upstream = undefined
      this.#open(channel)
    }
  }

  /** Closes the upstream and the timers; keeps the ring and the upstream position. */
  #stop(channel: Channel): void {
    channel.upstream?.abort.abort()
    channel.upstream = undefined
    clearTimeout(channel.retryTimer)
    clearInterval(channel.heartbeat)
    channel.retryTimer = undefined
    channel.heartbeat = undefined
  }

  /** Heartbeat comments, and the end of the streams whose sessions ended elsewhere (another process, expiry). */
  #beat(channel: Channel): void {
    const now = this.options.now()
    for (const browser of [...channel.browsers]) {
      if (this.options.store.peek(browser.sessionId, now) === undefined) end(browser, 401)
      else this.#write(browser, sseComment('heartbeat'))
    }
  }

  /**
   * A member was deactivated: every session of theirs ends (in the store all BFF processes share), and so do their
   * browsers' streams here, whose EventSource then gets a 401 and the tab goes to sign-in. Each process's own
   * upstream brings it the event, so every process closes its own tabs.
   */
  #endMember(channel: Channel, userId: string): void {
    const ended = this.options.store.deleteMember(channel.organizationId, userId)
    const now = this.options.now()
    let closed = 0
    for (const browser of [...channel.browsers]) {
      if (this.options.store.peek(browser.sessionId, now) !== undefined) continue
      end(browser, 401)
      closed += 1
    }
    this.options.logger.info({ userId, ended, closed }, 'a member was deactivated: their sessions ended')
  }

  /**
   * Opens the channel's upstream with the key of a connected session, unless it is open; with the id of the browser's
   * request that opens it, if one does (a re-opened stream gets the api's own).
   */
  #open(channel: Channel, requestId?: string): void {
    if (this.#closed || channel.upstream !== undefined || channel.browsers.size === 0) return
    clearTimeout(channel.retryTimer)
    channel.retryTimer = undefined
    const now = this.options.now()
    const sessions = new Set([...channel.browsers].map((b) => b.sessionId))
    for (const sessionId of sessions) {
      if (channel.refused.has(sessionId)) continue
      const session = this.options.store.peek(sessionId, now)
      const apiKey = session === undefined ? undefined : this.options.store.apiKey(sessionId, session)
      if (apiKey === undefined) {
        this.endSession(sessionId)
        continue
      }
      const upstream = { sessionId, abort: new AbortController() }
      channel.upstream = upstream
      this.#opened += 1
      void this.#follow(channel, upstream, apiKey, requestId)
      return
    }
    if (channel.browsers.size === 0) return
    // None of the connected sessions may stream (reps' keys, and no LEADLINE_STREAM_SECRET): wait for another, or a
    // fixed configuration.
    this.options.logger.warn(
      { streamSecret: this.options.streamSecret !== undefined },
      'no connected session may open the event stream; live updates wait (set LEADLINE_STREAM_SECRET on api and bff)',
    )
    channel.refused.clear()
    this.#retryLater(channel, this.#timings.retryMaxMs)
  }

  #retryLater(channel: Channel, ms?: number): void {
    if (this.#closed || channel.browsers.size === 0) return
    channel.failures += 1
    const wait = ms ?? Math.min(this.#timings.retryMs * 2 ** (channel.failures - 1), this.#timings.retryMaxMs)
    clearTimeout(channel.retryTimer)
    channel.retryTimer = setTimeout(() => {
      channel.retryTimer = undefined
      this.#open(channel)
    }, wait).unref()
  }

  /** Reads the upstream stream into the channel until it ends, fails or is aborted; then decides what is next. */
  async #follow(channel: Channel, upstream: Upstream, apiKey: string, requestId: string | undefined): Promise<void> {
    const headers: Record<string, string> = { accept: 'text/event-stream', authorization: basicAuthorization(apiKey) }
    if (requestId !== undefined) headers[REQUEST_ID_HEADER] = requestId
    if (this.options.streamSecret !== undefined) headers[STREAM_SECRET_HEADER] = this.options.streamSecret
    if (channel.upstreamId !== undefined) headers['last-event-id'] = channel.upstreamId
    const signal = upstream.abort.signal
    let status = 0
    try {
      const response: Dispatcher.ResponseData = await this.#pool.request({
        path: STREAM_PATH,
        method: 'GET',
        headers,
        signal,
        headersTimeout: this.options.apiTimeoutMs,
        bodyTimeout: UPSTREAM_SILENCE_MS,
      })
      status = response.statusCode
      if (status !== 200) {
        await response.body.dump()
      } else {
        channel.failures = 0
        for await (const item of readSse(response.body)) {
          if (item.type === 'comment') continue
          const first = channel.upstreamId === undefined
          channel.upstreamId = item.lastEventId
          if (first) for (const browser of channel.browsers) if (!browser.started) this.#begin(channel, browser)
          if (item.type === 'message') this.#receive(channel, item.event, item.data)
        }
      }
    } catch (error) {
      if (signal.aborted) return
      this.options.logger.warn({ err: error }, 'the event stream from the API broke off; re-opening it')
    }
    if (signal.aborted || channel.upstream !== upstream) return
    channel.upstream = undefined
    if (status === 401) {
      // The key was revoked: the session is worthless, as the proxy finds too.
      this.options.store.delete(upstream.sessionId)
      this.endSession(upstream.sessionId)
      this.#open(channel)
    } else if (status === 403) {
      channel.refused.add(upstream.sessionId)
      this.#open(channel)
    } else {
      if (status !== 200 && status !== 0)
        this.options.logger.warn({ status }, 'the API refused the event stream; trying again')
      this.#retryLater(channel)
    }
  }

  #receive(channel: Channel, event: string, data: string): void {
    if (event === 'reset') {
      // The API no longer has what came after our position: browsers must read everything again.
      channel.ring.length = 0
      channel.eventIds.clear()
      channel.last += 1
      channel.base = channel.last
      const text = resetMessage(channel.idOf(channel.last))
      for (const browser of channel.browsers) this.#write(browser, text)
      return
    }
    if (event !== 'message') return
    let live: LiveEvent | undefined
    try {
      live = liveEventOf(JSON.parse(data))
    } catch {
      live = undefined
    }
    // A resumed upstream may repeat the last events it sent.
    if (live === undefined || channel.eventIds.has(live.id)) return
    channel.last += 1
    const text = sseMessage({ id: channel.idOf(channel.last), data: JSON.stringify(live) })
    channel.ring.push({ n: channel.last, eventId: live.id, text })
    channel.eventIds.add(live.id)
    while (channel.ring.length > this.#timings.ringSize) {
      const dropped = channel.ring.shift()
      if (dropped === undefined) break
      channel.eventIds.delete(dropped.eventId)
      channel.base = dropped.n
    }
    for (const browser of channel.browsers) this.#write(browser, text)
    if (live.object_type === 'membership' && live.member_user_id != null) {
      if (live.member_status === 'inactive') this.#endMember(channel, live.member_user_id)
      // A new role holds for their sessions at once: the app reads it again from this event.
      else if (live.member_role != null)
        this.options.store.setMemberRole(channel.organizationId, live.member_user_id, live.member_role)
    }
  }

  #write(browser: Browser, text: string): void {
    if (!browser.started || browser.res.writableEnded) return
    if (browser.res.writableLength > MAX_UNREAD_BYTES) {
      browser.res.destroy()
      return
    }
    browser.res.write(text)
  }
}

const ENDED: Record<401 | 503, string> = {
  401: 'You are not signed in.',
  503: 'The server is shutting down.',
}

/** Ends a browser's stream; one that has not begun gets the error it would have got (401 after a sign-out). */
function end(browser: Browser, status: 401 | 503): void {
  const { res } = browser
  if (!browser.started && !res.headersSent) {
    res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' })
    res.end(JSON.stringify({ error: ENDED[status] }))
    return
  }
  res.end()
}

function resetMessage(id: string): string {
  const reason = 'Some changes may have been missed: read everything again.'
  return sseMessage({ event: 'reset', id, data: JSON.stringify({ reason }) })
}
