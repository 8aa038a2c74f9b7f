import type { BodyBuffers } from './body-buffers.js'

/**
 * A response body that is already JSON text (a cached view): the serializer sends it as it is, and only a request
 * with `_fields` pays for parsing it back.
 */
export class RawJson {
  constructor(private readonly json: string) {}

  /** The JSON text. */
  get text(): string {
    return this.json
  }

  parse(): unknown {
    return JSON.parse(this.text)
  }

  /** What the serializer sends. */
  body(): string | Buffer {
    return this.json
  }
}

/**
 * A JSON array of texts that are JSON already (a page of cached views) between a head and a tail: sent as one buffer
 * the texts are encoded into (reused from response to response: body-buffers.ts), where a string of them joined (a
 * third of a megabyte for a page of 100 leads) was made, flattened to be measured, and encoded again to be written —
 * large objects the collector reclaims late.
 */
export class RawJsonList extends RawJson {
  constructor(
    private readonly head: string,
    private readonly items: readonly string[],
    private readonly tail: string,
  ) {
    super('')
  }

  override get text(): string {
    return `${this.head}[${this.items.join(',')}]${this.tail}`
  }

  override body(buffers?: BodyBuffers): Buffer {
    let size = Buffer.byteLength(this.head) + Buffer.byteLength(this.tail) + 2 + Math.max(0, this.items.length - 1)
    for (const item of this.items) size += Buffer.byteLength(item)
    const out = buffers?.take(size) ?? Buffer.allocUnsafe(size)
    let at = out.write(this.head, 0)
    out[at++] = 0x5b // [
    this.items.forEach((item, i) => {
      if (i > 0) out[at++] = 0x2c // ,
      at += out.write(item, at)
    })
    out[at++] = 0x5d // ]
    at += out.write(this.tail, at)
    // Never more than the bytes written: a reused buffer holds an earlier body past them.
    return out.subarray(0, at)
  }
}

/** A stored JSON object column (a row's type-specific `data`), as a fresh object; anything else reads as `{}`. */
export function parseJsonObject(text: string): Record<string, unknown> {
  const parsed: unknown = JSON.parse(text)
  return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? { ...parsed } : {}
}
