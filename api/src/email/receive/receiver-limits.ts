import { isIPv4, isIPv6 } from 'node:net'

// The receiver's limits per sending address (decision 0039). Both structures are bounded: the open connections by
// the connections smtp-server lets in (`maxClients`), the message counts by `capacity`.

/**
 * Whom a limit counts: an IPv4 address, or an IPv6 address's /64 (one site's network, where every host may pick
 * addresses at will); an IPv4 address written as IPv6 (`::ffff:192.0.2.1`) is the IPv4 one.
 */
export function clientKey(address: string): string {
  const bare = address.replace(/%.*$/, '')
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(bare)
  if (mapped?.[1] !== undefined) return mapped[1]
  if (isIPv4(bare) || !isIPv6(bare)) return bare.toLowerCase()
  const groups = (part: string) =>
    part === '' ? [] : part.split(':').flatMap((g) => (g.includes('.') ? ['0', '0'] : [g]))
  const [head = '', tail] = bare.split('::')
  const known = groups(head)
  const end = tail === undefined ? [] : groups(tail)
  const full =
    tail === undefined ? known : [...known, ...Array<string>(8 - known.length - end.length).fill('0'), ...end]
  return `${full
    .slice(0, 4)
    .map((g) => parseInt(g, 16).toString(16))
    .join(':')}::/64`
}

/** Open connections per client key; a key goes when its last connection closes. */
export class OpenConnections {
  private readonly open = new Map<string, number>()

  constructor(private readonly perKey: number) {}

  /** Counts a new connection of `key`; false (and nothing counted) when the key has `perKey` open already. */
  tryOpen(key: string): boolean {
    const count = this.open.get(key) ?? 0
    if (count >= this.perKey) return false
    this.open.set(key, count + 1)
    return true
  }

  /** A connection `tryOpen` counted has closed. */
  close(key: string): void {
    const count = this.open.get(key) ?? 0
    if (count <= 1) this.open.delete(key)
    else this.open.set(key, count - 1)
  }
}

/**
 * Counts events per key in fixed windows of `windowMs` (a key's window starts at its first event), for at most
 * `capacity` keys: when full, keys whose window is over go, then, if it is still full, the oldest window.
 */
export class WindowCounter {
  private readonly windows = new Map<string, { start: number; count: number }>()

  constructor(
    private readonly limit: number,
    private readonly windowMs: number,
    private readonly capacity: number,
  ) {}

  /** Counts one event of `key` at `now` (ms); false when the key has had `limit` in its window already. */
  take(key: string, now: number): boolean {
    let window = this.windows.get(key)
    if (window !== undefined && now - window.start >= this.windowMs) {
      this.windows.delete(key)
      window = undefined
    }
    if (window === undefined) {
      this.makeRoom(now)
      window = { start: now, count: 0 }
      // Inserted in the order windows start, so the first key of the map is the oldest window.
      this.windows.set(key, window)
    }
    if (window.count >= this.limit) return false
    window.count += 1
    return true
  }

  private makeRoom(now: number): void {
    if (this.windows.size < this.capacity) return
    for (const [key, window] of this.windows) {
      if (now - window.start < this.windowMs) break
      this.windows.delete(key)
    }
    if (this.windows.size < this.capacity) return
    const oldest = this.windows.keys().next()
    if (oldest.done !== true) this.windows.delete(oldest.value)
  }

  /** Keys counted now (for tests of the bound). */
  get size(): number {
    return this.windows.size
  }
}
