import type { ServerResponse } from 'node:http'
import type { Logger } from 'pino'
import { Pool, type Dispatcher } from 'undici'
import { liveEventOf } from '@leadline/shared/live-event'
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
/** The longest stream id taken from a browser; the API's are under 100 characters. */
const MAX_UPSTREAM_ID = 512
/** A browser catching up that has been sent this many events without meeting the channel starts over instead. */
const MAX_CATCH_UP_EVENTS = 10_000

interface Browser {
  /** The session cookie's value, which unseals the session's key; kept in memory only. */
  sessionId: string
  res: ServerResponse
  /** What the browser said it saw last (`Last-Event-ID`). */
  lastEventId: string | undefined
  /** Whether its answer has begun: not before the organization's upstream first connects (see `attach`). */
  started: boolean
  /**
   * While it catches up from an id this process never gave (another BFF's, or one older than the ring): its own
   * stream from the API, and the events it has sent; the channel's events reach it once the two meet.
   */
  catchUp: { abort: AbortController; sent: Set<string> } | undefined
  /** Events its catch-up sent before the channel had them: the channel does not send them again. */
  skip: Set<string> | undefined
}

interface Upstream {
  sessionId: string
  abort: AbortController
}

/** One organization's browsers in this process, its upstream stream, and its recent events. */
class Channel {
  constructor(readonly organizationId: string) {}

  readonly browsers = new Set<Browser>()
  /**
   * Recent positions of the upstream, oldest first: each id the API gave, with the event it came with as sent to
   * browsers (none for an id alone). Browsers get the API's ids, which any process can resume from (decision 0075).
   */
  ring: { upstreamId: string; eventId: string | undefined; text: string }[] = []
  readonly eventIds = new Set<string>()
  /** The upstream's last id: where a re-opened upstream resumes, and where a new browser starts. */
  upstreamId: string | undefined
  /** Whether the upstream has answered once: browsers' streams begin then. */
  connected = false
  /** A reconnecting browser's id this channel's first upstream resumes from, so that it misses nothing. */
  seed: string | undefined
  upstream: Upstream | undefined
  /** A connected session's key is being read to open the upstream. */
  opening = false
  /** Sessions whose keys the API refused the stream (a rep's key without the shared secret). */
  readonly refused = new Set<string>()
  failures = 0
  retryTimer: NodeJS.Timeout | undefined
  lingerTimer: NodeJS.Timeout | undefined
  heartbeat: NodeJS.Timeout | undefined

  /** The ring's events after an id, or undefined when the ring does not hold that id. */
  after(upstreamId: string): string[] | undefined {
    if (upstreamId === this.upstreamId) return []
    const index = this.ring.findIndex((entry) => entry.upstreamId === upstreamId)
    return index < 0 ? undefined : this.#texts(index + 1)
  }

  /** The ring's events after the one with this event id, or undefined when the ring does not hold it. */
  afterEvent(eventId: string): { eventId: string; text: string }[] | undefined {
    const index = this.ring.findIndex((entry) => entry.eventId === eventId)
    if (index < 0) return undefined
    return this.ring
      .slice(index + 1)
      .flatMap((entry) => (entry.eventId === undefined ? [] : [{ eventId: entry.eventId, text: entry.text }]))
  }

  #texts(from: number): string[] {
    return this.ring.slice(from).flatMap((entry) => (entry.eventId === undefined ? [] : [entry.text]))
  }
}

/** The ids the API gives its stream's messages: base64url, never long. Anything else is no position to resume. */
function isUpstreamId(id: string): boolean {
  return id.length > 0 && id.length <= MAX_UPSTREAM_ID && /^[A-Za-z0-9_-]+$/.test(id)
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

  /** Browsers catching up through a stream of their own (see `#catchUp`). */
  get catchingUp(): number {
    let count = 0
    for (const channel of this.#channels.values())
      for (const browser of channel.browsers) if (browser.catchUp !== undefined) count += 1
    return count
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

    const browser: Browser = {
      sessionId: session.id,
      res,
      lastEventId,
      started: false,
      catchUp: undefined,
      skip: undefined,
    }
    joined.browsers.add(browser)
    res.once('close', () => {
      browser.catchUp?.abort.abort()
      this.#detach(session.organizationId, joined, browser)
    })
    // The first browser of an organization here, back from another process: the upstream starts where it was.
    if (!joined.connected && joined.upstreamId === undefined && lastEventId !== undefined && isUpstreamId(lastEventId))
      joined.seed = joined.upstreamId = lastEventId
    // A browser's stream opens once the organization's upstream is connected: from its `open` event on, nothing
    // is missed, even for the first browser of an organization.
    if (joined.connected) this.#begin(joined, browser)
    joined.heartbeat ??= setInterval(() => {
      this.#beat(joined).catch((error: unknown) => {
        this.#storeFailed(error)
      })
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
    const here = channel.upstreamId ?? ''
    const { lastEventId } = browser
    const missed = lastEventId === undefined ? undefined : channel.after(lastEventId)
    if (missed !== undefined) {
      this.#write(browser, sseMessage({ retryMs: BROWSER_RETRY_MS }) + missed.join(''))
      return
    }
    if (lastEventId !== undefined && isUpstreamId(lastEventId)) {
      // Not an id of this ring: the API itself sends what came after it, until this channel has caught up.
      this.#write(browser, sseMessage({ retryMs: BROWSER_RETRY_MS }))
      this.#catchUp(channel, browser, lastEventId)
      return
    }
    let first = sseMessage({ retryMs: BROWSER_RETRY_MS, id: here })
    if (lastEventId !== undefined) first += resetMessage(here)
    this.#write(browser, first)
  }

  /**
   * A browser's own stream from the API after `from`, sent to it as it comes, until it brings an event this channel
   * has: then the channel's events after that one follow, and the browser is the channel's like any other. When the
   * API cannot resume from there (a reset, a refusal, a broken stream), the browser is told to read everything again.
   */
  #catchUp(channel: Channel, browser: Browser, from: string): void {
    const catchUp = { abort: new AbortController(), sent: new Set<string>() }
    browser.catchUp = catchUp
    const join = (text: string) => {
      if (browser.catchUp !== catchUp) return
      joinChannel(browser)
      this.#write(browser, text)
    }
    const startOver = () => {
      join(resetMessage(channel.upstreamId ?? ''))
    }
    this.#followCatchUp(channel, browser, catchUp, from, join).then(
      (met) => {
        if (!met && !catchUp.abort.signal.aborted) startOver()
      },
      (error: unknown) => {
        if (catchUp.abort.signal.aborted) return
        this.options.logger.warn(
          { err: error },
          'a browser could not catch up through the API; it reads everything again',
        )
        startOver()
      },
    )
  }

  /** Resolves true once the browser met the channel, false when the API could not take it there. */
  async #followCatchUp(
    channel: Channel,
    browser: Browser,
    catchUp: { abort: AbortController; sent: Set<string> },
    from: string,
    join: (text: string) => void,
  ): Promise<boolean> {
    const session = await this.options.store.peek(browser.sessionId, this.options.now())
    const apiKey = session === undefined ? undefined : this.options.store.apiKey(browser.sessionId, session)
    if (apiKey === undefined) {
      end(browser, 401)
      return true
    }
    const response = await this.#pool.request({
      path: STREAM_PATH,
      method: 'GET',
      headers: { ...this.#streamHeaders(apiKey), 'last-event-id': from },
      signal: catchUp.abort.signal,
      headersTimeout: this.options.apiTimeoutMs,
      bodyTimeout: UPSTREAM_SILENCE_MS,
    })
    if (response.statusCode !== 200) {
      await response.body.dump()
      return false
    }
    for await (const item of readSse(response.body)) {
      if (browser.catchUp !== catchUp) return true
      if (item.type !== 'message') continue
      if (item.event !== 'message') return false
      const live = liveEventOf(parseJson(item.data))
      if (live === undefined || catchUp.sent.has(live.id)) continue
      const rest = channel.afterEvent(live.id)
      if (rest !== undefined) {
        join(rest.flatMap((entry) => (catchUp.sent.has(entry.eventId) ? [] : [entry.text])).join(''))
        return true
      }
      if (catchUp.sent.size >= MAX_CATCH_UP_EVENTS) return false
      catchUp.sent.add(live.id)
      this.#write(browser, sseMessage({ id: item.lastEventId, data: JSON.stringify(live) }))
    }
    return false
  }

  #streamHeaders(apiKey: string): Record<string, string> {
    const headers: Record<string, string> = { accept: 'text/event-stream', authorization: basicAuthorization(apiKey) }
    if (this.options.streamSecret !== undefined) headers[STREAM_SECRET_HEADER] = this.options.streamSecret
    return headers
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
  async #beat(channel: Channel): Promise<void> {
    const now = this.options.now()
    for (const browser of [...channel.browsers]) {
      if ((await this.options.store.peek(browser.sessionId, now)) === undefined) end(browser, 401)
      else this.#write(browser, sseComment('heartbeat'))
    }
  }

  /**
   * A member was deactivated: every session of theirs ends (in the store all BFF processes share), and so do their
   * browsers' streams here, whose EventSource then gets a 401 and the tab goes to sign-in. Each process's own
   * upstream brings it the event, so every process closes its own tabs.
   */
  async #endMember(channel: Channel, userId: string): Promise<void> {
    const ended = await this.options.store.deleteMember(channel.organizationId, userId)
    const now = this.options.now()
    let closed = 0
    for (const browser of [...channel.browsers]) {
      if ((await this.options.store.peek(browser.sessionId, now)) !== undefined) continue
      end(browser, 401)
      closed += 1
    }
    this.options.logger.info({ userId, ended, closed }, 'a member was deactivated: their sessions ended')
  }

  /**
   * Opens the channel's upstream with the key of a connected session, unless it is open or being opened; with the id
   * of the browser's request that opens it, if one does (a re-opened stream gets the api's own).
   */
  #open(channel: Channel, requestId?: string): void {
    if (this.#closed || channel.upstream !== undefined || channel.opening || channel.browsers.size === 0) return
    clearTimeout(channel.retryTimer)
    channel.retryTimer = undefined
    channel.opening = true
    this.#openWithKey(channel, requestId)
      .catch((error: unknown) => {
        this.#storeFailed(error)
        this.#retryLater(channel)
      })
      .finally(() => {
        channel.opening = false
      })
  }

  async #openWithKey(channel: Channel, requestId: string | undefined): Promise<void> {
    const now = this.options.now()
    const sessions = new Set([...channel.browsers].map((b) => b.sessionId))
    for (const sessionId of sessions) {
      if (channel.refused.has(sessionId)) continue
      const session = await this.options.store.peek(sessionId, now)
      const apiKey = session === undefined ? undefined : this.options.store.apiKey(sessionId, session)
      if (apiKey === undefined) {
        this.endSession(sessionId)
        continue
      }
      if (this.#closed || channel.upstream !== undefined || channel.browsers.size === 0) return
      const upstream = { sessionId, abort: new AbortController() }
      channel.opening = false
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
    const headers = this.#streamHeaders(apiKey)
    if (requestId !== undefined) headers[REQUEST_ID_HEADER] = requestId
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
          if (!channel.connected) {
            channel.connected = true
            // Resumed from a browser's id: the ring starts there, so every browser that gave it follows from it.
            if (channel.seed !== undefined)
              channel.ring.push({ upstreamId: channel.seed, eventId: undefined, text: '' })
            channel.seed = undefined
          }
          const previous = channel.upstreamId
          channel.upstreamId = item.lastEventId
          for (const browser of channel.browsers) if (!browser.started) this.#begin(channel, browser)
          if (item.type === 'message') this.#receive(channel, item.event, item.data, item.lastEventId)
          else if (item.lastEventId !== previous)
            this.#remember(channel, { upstreamId: item.lastEventId, eventId: undefined, text: '' })
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
      await this.options.store.delete(upstream.sessionId).catch((error: unknown) => {
        this.#storeFailed(error)
      })
      this.endSession(upstream.sessionId)
      this.#open(channel)
    } else if (status === 403) {
      channel.refused.add(upstream.sessionId)
      this.#open(channel)
    } else if (status === 400 && channel.seed !== undefined) {
      // A browser's id the API does not take: the upstream starts where the log stands, and that browser over.
      channel.seed = channel.upstreamId = undefined
      this.#open(channel)
    } else {
      if (status !== 200 && status !== 0)
        this.options.logger.warn({ status }, 'the API refused the event stream; trying again')
      this.#retryLater(channel)
    }
  }

  #receive(channel: Channel, event: string, data: string, upstreamId: string): void {
    const marker = { upstreamId, eventId: undefined, text: '' }
    if (event === 'reset') {
      // The API no longer has what came after our position: browsers must read everything again.
      channel.ring = [marker]
      channel.eventIds.clear()
      const text = resetMessage(upstreamId)
      for (const browser of channel.browsers) if (browser.catchUp === undefined) this.#write(browser, text)
      return
    }
    const live = event === 'message' ? liveEventOf(parseJson(data)) : undefined
    // A resumed upstream may repeat the last events it sent.
    if (live === undefined || channel.eventIds.has(live.id)) {
      this.#remember(channel, marker)
      return
    }
    const text = sseMessage({ id: upstreamId, data: JSON.stringify(live) })
    this.#remember(channel, { upstreamId, eventId: live.id, text })
    for (const browser of channel.browsers) {
      // Its catch-up sent this event first: from here on the channel's events are the ones it has not had.
      if (browser.catchUp?.sent.has(live.id) === true) joinChannel(browser)
      if (browser.catchUp !== undefined) continue
      if (browser.skip?.delete(live.id) === true) continue
      this.#write(browser, text)
    }
    if (live.object_type === 'membership' && live.member_user_id != null) {
      const stored =
        live.member_status === 'inactive'
          ? this.#endMember(channel, live.member_user_id)
          : // A new role holds for their sessions at once: the app reads it again from this event.
            live.member_role == null
            ? undefined
            : this.options.store.setMemberRole(channel.organizationId, live.member_user_id, live.member_role)
      stored?.catch((error: unknown) => {
        this.#storeFailed(error)
      })
    }
  }

  /** Adds a position to the ring, which keeps the newest `ringSize`. */
  #remember(channel: Channel, entry: Channel['ring'][number]): void {
    channel.ring.push(entry)
    if (entry.eventId !== undefined) channel.eventIds.add(entry.eventId)
    while (channel.ring.length > this.#timings.ringSize) {
      const dropped = channel.ring.shift()
      if (dropped?.eventId !== undefined) channel.eventIds.delete(dropped.eventId)
    }
  }

  #storeFailed(error: unknown): void {
    this.options.logger.error({ err: error }, 'the session store failed; live updates go on and try it again')
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

/** A browser's catch-up ends: its stream closes, and the channel sends it what the catch-up has not. */
function joinChannel(browser: Browser): void {
  const sent = browser.catchUp?.sent
  browser.catchUp?.abort.abort()
  browser.catchUp = undefined
  browser.skip = sent !== undefined && sent.size > 0 ? sent : undefined
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

function resetMessage(id: string): string {
  const reason = 'Some changes may have been missed: read everything again.'
  return sseMessage({ event: 'reset', id, data: JSON.stringify({ reason }) })
}
