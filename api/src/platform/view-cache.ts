interface Entry {
  revision: number
  metaVersion: number
  text: string
}

/**
 * Built views (their JSON text, e.g. a lead's), least recently used evicted past a size budget. An entry is only
 * served while the object's revision and its organization's meta version are the ones it was built at; callers read
 * both from the database on every request, so a change made through any process is never hidden by this cache.
 */
export class ViewCache {
  private readonly entries = new Map<string, Entry>()
  private bytes = 0

  constructor(private readonly maxBytes: number) {}

  get(key: string, revision: number, metaVersion: number): string | undefined {
    const entry = this.entries.get(key)
    if (entry === undefined) return undefined
    if (entry.revision !== revision || entry.metaVersion !== metaVersion) return undefined
    this.entries.delete(key)
    this.entries.set(key, entry)
    return entry.text
  }

  set(key: string, revision: number, metaVersion: number, text: string): void {
    // JavaScript strings take about two bytes a character.
    const size = text.length * 2
    if (size > this.maxBytes) return
    this.delete(key)
    this.entries.set(key, { revision, metaVersion, text })
    this.bytes += size
    for (const [oldest, entry] of this.entries) {
      if (this.bytes <= this.maxBytes) break
      this.entries.delete(oldest)
      this.bytes -= entry.text.length * 2
    }
  }

  delete(key: string): void {
    const entry = this.entries.get(key)
    if (entry === undefined) return
    this.entries.delete(key)
    this.bytes -= entry.text.length * 2
  }
}
