import { describe, expect, it } from 'vitest'
import { readSse, sseComment, sseMessage, SseReader, type SseItem } from './sse.js'

function readAll(chunks: string[], lastEventId = ''): SseItem[] {
  const reader = new SseReader(lastEventId)
  return chunks.flatMap((chunk) => reader.push(chunk))
}

const STREAM =
  'retry: 2000\r\n' +
  'id: start\r\n\r\n' +
  ': heartbeat\r\n\r\n' +
  'event: reset\r\nid: r1\r\ndata: {}\r\n\r\n' +
  'data: first line\rdata:second line\r\rid\n' +
  'data: after an empty id\n\n' +
  'field without colon\nid: x\0y\ndata: a NUL id is ignored\n\n'

const EXPECTED = [
  { type: 'id', lastEventId: 'start' },
  { type: 'comment', text: 'heartbeat' },
  { type: 'message', event: 'reset', data: '{}', lastEventId: 'r1' },
  { type: 'message', event: 'message', data: 'first line\nsecond line', lastEventId: 'r1' },
  { type: 'message', event: 'message', data: 'after an empty id', lastEventId: '' },
  { type: 'message', event: 'message', data: 'a NUL id is ignored', lastEventId: '' },
]

describe('SseReader', () => {
  it('reads messages, comments, ids and every kind of line end', () => {
    expect(readAll([STREAM])).toEqual(EXPECTED)
  })

  it('reads the same whatever the chunks, even a CRLF cut in two', () => {
    for (let cut = 0; cut <= STREAM.length; cut++) {
      expect(readAll([STREAM.slice(0, cut), STREAM.slice(cut)]), `cut at ${String(cut)}`).toEqual(EXPECTED)
    }
    expect(readAll(Array.from({ length: STREAM.length }, (_, i) => STREAM.charAt(i)))).toEqual(EXPECTED)
  })

  it('reports an id-only message as an id, not a message, and starts from a given id', () => {
    const reader = new SseReader('from-before')
    expect(reader.lastEventId).toBe('from-before')
    expect(reader.push('id: moved\n\n')).toEqual([{ type: 'id', lastEventId: 'moved' }])
    expect(reader.lastEventId).toBe('moved')
    // A blank line alone dispatches nothing.
    expect(reader.push('\n\n')).toEqual([])
    expect(reader.push('data: x\n')).toEqual([])
    expect(reader.push('\n')).toEqual([{ type: 'message', event: 'message', data: 'x', lastEventId: 'moved' }])
  })
})

describe('writing', () => {
  it('writes what the reader reads back', () => {
    const text =
      sseMessage({ retryMs: 1500, id: 'p0' }) +
      sseComment('still here') +
      sseMessage({ event: 'reset', id: 'p1', data: '{"a":1}' }) +
      sseMessage({ data: 'two\nlines' })
    expect(text.startsWith('retry: 1500\nid: p0\n\n')).toBe(true)
    expect(readAll([text])).toEqual([
      { type: 'id', lastEventId: 'p0' },
      { type: 'comment', text: 'still here' },
      { type: 'message', event: 'reset', data: '{"a":1}', lastEventId: 'p1' },
      { type: 'message', event: 'message', data: 'two\nlines', lastEventId: 'p1' },
    ])
  })

  it('refuses an id, event name or comment that would break the framing', () => {
    expect(() => sseMessage({ id: 'a\nb' })).toThrow()
    expect(() => sseMessage({ event: 'x\r' })).toThrow()
    expect(() => sseComment('a\nb')).toThrow()
  })
})

describe('readSse', () => {
  it('decodes UTF-8 cut anywhere between chunks', async () => {
    const bytes = new TextEncoder().encode(sseMessage({ id: 'é1', data: 'Ünïcødé ✓ 🚀' }))
    for (let cut = 0; cut <= bytes.length; cut++) {
      const chunks = async function* () {
        yield bytes.slice(0, cut)
        yield bytes.slice(cut)
      }
      const read = []
      for await (const item of readSse(chunks())) read.push(item)
      expect(read).toEqual([{ type: 'message', event: 'message', data: 'Ünïcødé ✓ 🚀', lastEventId: 'é1' }])
    }
  })
})
