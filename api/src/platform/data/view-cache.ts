interface Entry {
  revision: number
  metaVersion: number
  text: string
  /** Read since it was last passed over for eviction. */
  used: boolean
}

/**
 * Built views (their JSON text, e.g. a lead's), the least recently used evicted past a size budget, approximately:
 * a read only marks its entry, and eviction gives a marked entry a second chance (moves it to the back, unmarked).
 * Moving every entry read to the back of the map cost more than the rest of a cached lead read's own work.
 * An entry is only served while the object's revision and its organization's meta version are the ones it was built
 * at; callers read both from the database on every request, so a change made through any process is never hidden by
 * this cache.
 */
export class ViewCache {
  private readonly entries = new Map<string, Entry>()
  private bytes = 0

  constructor(private readonly maxBytes: number) {}

  get(key: string, revision: number, metaVersion: number): string | undefined {
    const entry = this.entries.get(key)
    if (entry === undefined) return undefined
    if (entry.revision !== revision || entry.metaVersion !== metaVersion) return undefined
    entry.used = true
    return entry.text
  }

  set(key: string, revision: number, metaVersion: number, text: string): void {
    // JavaScript strings take about two bytes a character.
    const size = text.length * 2
    if (size > this.maxBytes) return
    this.delete(key)
    this.entries.set(key, { revision, metaVersion, text, used: false })
    this.bytes += size
    // A map iterates in insertion order, entries moved to the back included: each is moved at most once, unmarked,
    // and evicted when reached again. The entry just stored fits by itself and is never the one evicted.
    for (const [oldest, entry] of this.entries) {
      if (this.bytes <= this.maxBytes) break
      if (oldest === key) continue
      this.entries.delete(oldest)
      if (entry.used) {
        entry.used = false
        this.entries.set(oldest, entry)
      } else {
        this.bytes -= entry.text.length * 2
      }
    }
  }

  delete(key: string): void {
    const entry = this.entries.get(key)
    if (entry === undefined) return
    this.entries.delete(key)
    this.bytes -= entry.text.length * 2
  }
}
