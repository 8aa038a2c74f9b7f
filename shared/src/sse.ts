// Server-sent events (the WHATWG `text/event-stream` format): what the API's event stream and the BFF's `/events`
// write, and what the BFF (and the tests) read back. Browsers read it with EventSource.

export interface SseMessage {
  type: 'message'
  /** `message` unless the message named another. */
  event: string
  data: string
  /** The stream's last event id as of this message (EventSource's `lastEventId`). */
  lastEventId: string
}

export interface SseComment {
  type: 'comment'
  text: string
}

/** A message with an id and no data: EventSource dispatches nothing, but its last id moves (a resume point). */
export interface SseId {
  type: 'id'
  lastEventId: string
}

export type SseItem = SseMessage | SseComment | SseId

/** Text for one message; `data` may span lines. With only an `id` it moves the reader's last id and dispatches nothing. */
export function sseMessage(message: { event?: string; id?: string; data?: string; retryMs?: number }): string {
  let text = ''
  if (message.retryMs !== undefined) text += `retry: ${String(message.retryMs)}\n`
  if (message.event !== undefined) text += `event: ${oneLine(message.event)}\n`
  if (message.id !== undefined) text += `id: ${oneLine(message.id)}\n`
  if (message.data !== undefined) for (const line of message.data.split(/\r\n|\r|\n/)) text += `data: ${line}\n`
  return `${text}\n`
}

/** A comment line: readers ignore it; it keeps a quiet connection (and the proxies on its way) from timing out. */
export function sseComment(text: string): string {
  return `: ${oneLine(text)}\n\n`
}

function oneLine(value: string): string {
  if (/[\r\n\0]/.test(value)) throw new Error('an event name, id or comment must be one line without NUL')
  return value
}

/**
 * Reads an event stream as it arrives, in chunks cut anywhere (even between the CR and LF of a line end), as the
 * specification's parser does: `retry` fields are read and ignored, an id with NUL is ignored, a message without
 * data is not dispatched but its id still counts (and is reported as an `SseId`).
 */
export class SseReader {
  #rest = ''
  #skipLeadingLf = false
  #event = ''
  #data: string[] = []
  #idBuffer = ''
  #idSeen = false
  #lastEventId = ''

  constructor(lastEventId = '') {
    this.#idBuffer = lastEventId
    this.#lastEventId = lastEventId
  }

  get lastEventId(): string {
    return this.#lastEventId
  }

  /** The messages and comments completed by this chunk, in order. */
  push(chunk: string): SseItem[] {
    let text = this.#rest + chunk
    if (this.#skipLeadingLf && text.startsWith('\n')) text = text.slice(1)
    this.#skipLeadingLf = false
    const out: SseItem[] = []
    const lineEnd = /\r\n|\r|\n/g
    let start = 0
    for (let match = lineEnd.exec(text); match !== null; match = lineEnd.exec(text)) {
      const item = this.#line(text.slice(start, match.index))
      if (item !== undefined) out.push(item)
      start = lineEnd.lastIndex
      // A CR that ends the chunk may be the first half of a CRLF.
      if (match[0] === '\r' && start === text.length) this.#skipLeadingLf = true
    }
    this.#rest = text.slice(start)
    return out
  }

  #line(line: string): SseItem | undefined {
    if (line === '') return this.#dispatch()
    if (line.startsWith(':')) return { type: 'comment', text: line.slice(1).trimStart() }
    const colon = line.indexOf(':')
    const field = colon === -1 ? line : line.slice(0, colon)
    let value = colon === -1 ? '' : line.slice(colon + 1)
    if (value.startsWith(' ')) value = value.slice(1)
    if (field === 'event') this.#event = value
    else if (field === 'data') this.#data.push(value)
    else if (field === 'id' && !value.includes('\0')) {
      this.#idBuffer = value
      this.#idSeen = true
    }
    return undefined
  }

  #dispatch(): SseMessage | SseId | undefined {
    this.#lastEventId = this.#idBuffer
    const data = this.#data
    const event = this.#event
    const idSeen = this.#idSeen
    this.#data = []
    this.#event = ''
    this.#idSeen = false
    if (data.length === 0) return idSeen ? { type: 'id', lastEventId: this.#lastEventId } : undefined
    return {
      type: 'message',
      event: event === '' ? 'message' : event,
      data: data.join('\n'),
      lastEventId: this.#lastEventId,
    }
  }
}

/** What a byte stream (a fetch body, an HTTP response) carries, decoded as UTF-8 across chunks. */
export async function* readSse(
  body: AsyncIterable<Uint8Array | string>,
  reader = new SseReader(),
): AsyncGenerator<SseItem> {
  const decoder = new TextDecoder()
  for await (const chunk of body) {
    yield* reader.push(typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true }))
  }
}
