interface Entry {
  revision: number
  metaVersion: number
  text: string
}

/**
 * Built lead views (their JSON text), least recently used evicted past a size budget. An entry is only served while
 * the lead's revision and its organization's meta version are the ones it was built at; both are read from the
 * database on every request, so a change made through any process is never hidden by this one's cache.
 */
export class LeadViewCache {
  private readonly entries = new Map<string, Entry>()
  private bytes = 0

  constructor(private readonly maxBytes: number) {}

  get(leadId: string, revision: number, metaVersion: number): string | undefined {
    const entry = this.entries.get(leadId)
    if (entry === undefined) return undefined
    if (entry.revision !== revision || entry.metaVersion !== metaVersion) return undefined
    this.entries.delete(leadId)
    this.entries.set(leadId, entry)
    return entry.text
  }

  set(leadId: string, revision: number, metaVersion: number, text: string): void {
    // JavaScript strings take about two bytes a character.
    const size = text.length * 2
    if (size > this.maxBytes) return
    this.delete(leadId)
    this.entries.set(leadId, { revision, metaVersion, text })
    this.bytes += size
    for (const [oldest, entry] of this.entries) {
      if (this.bytes <= this.maxBytes) break
      this.entries.delete(oldest)
      this.bytes -= entry.text.length * 2
    }
  }

  delete(leadId: string): void {
    const entry = this.entries.get(leadId)
    if (entry === undefined) return
    this.entries.delete(leadId)
    this.bytes -= entry.text.length * 2
  }
}
