/** The bytes of a slab: a page of 100 lead views is about a third of that. */
export const BODY_SLAB_BYTES = 1 << 20

/**
 * Text shorter than this is sent as it is: Node writes up to 16 KiB of a string from memory on its stack, and a
 * character takes at most three bytes.
 */
const ENCODED_FROM_CHARS = 16 * 1024

/** The most free slabs kept between responses. */
export const BODY_SLABS_KEPT = 8

/**
 * Memory that large response bodies (a page of cached lead views, any long JSON answer) are encoded into, used again
 * once a response has been handed to the kernel. A buffer made for every body is memory outside V8's heap that V8
 * counts toward its next full collection: at the api's heap growth (decision 0066) a page of 100 leads on Postgres
 * ran one every 40 pages, and its p99 was those pauses (decision 0084).
 *
 * A body fits in a slab or gets a buffer of its own. A slab is lent until `give` is called for its body, which the
 * platform does when the response has finished writing; a body whose response never finishes (the client went away)
 * never comes back, and its slab is left to the collector: the pool only ever holds slabs nobody reads.
 */
export class BodyBuffers {
  private readonly free: ArrayBuffer[] = []
  private readonly lent = new WeakSet<ArrayBufferLike>()

  constructor(
    private readonly slabBytes = BODY_SLAB_BYTES,
    private readonly kept = BODY_SLABS_KEPT,
  ) {}

  /** A buffer of exactly `bytes` to encode a body into. */
  take(bytes: number): Buffer {
    if (bytes > this.slabBytes) return Buffer.allocUnsafe(bytes)
    const slab = this.free.pop() ?? new ArrayBuffer(this.slabBytes)
    this.lent.add(slab)
    return Buffer.from(slab, 0, bytes)
  }

  /**
   * `text` as a response body: encoded into a slab when it is long (Node would otherwise encode it into fresh memory
   * of its own for each response), as it is when short.
   */
  encode(text: string): string | Buffer {
    if (text.length < ENCODED_FROM_CHARS) return text
    const bytes = Buffer.byteLength(text)
    if (bytes > this.slabBytes) return text
    const body = this.take(bytes)
    return body.subarray(0, body.write(text))
  }

  /** Whether `body` is a part of a slab lent out and not yet given back. */
  lends(body: unknown): body is Buffer {
    return Buffer.isBuffer(body) && this.lent.has(body.buffer)
  }

  /** Gives back the slab of a body taken here, once nothing will read the body again; anything else is left alone. */
  give(body: Buffer): void {
    const slab = body.buffer
    if (!this.lent.has(slab) || !(slab instanceof ArrayBuffer)) return
    this.lent.delete(slab)
    if (this.free.length < this.kept) this.free.push(slab)
  }

  /** Slabs waiting to be lent (for tests). */
  get freeSlabs(): number {
    return this.free.length
  }
}
