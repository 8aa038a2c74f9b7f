// Name similarity as Postgres's pg_trgm measures it, so that both databases agree: each word of the folded text
// (runs of letters and digits) padded with two spaces before and one after, its three-character pieces taken as a
// set, and the similarity of two texts the share of their pieces they have in common (|A ∩ B| / |A ∪ B|).

/** Only the start of a long name is compared: enough to tell names apart, and the work stays small. */
const COMPARED_CHARACTERS = 200

const WORD = /[\p{L}\p{N}]+/gu

/** The pg_trgm trigrams of a text. */
export function nameTrigrams(text: string): Set<string> {
  const trigrams = new Set<string>()
  for (const [word] of text.slice(0, COMPARED_CHARACTERS).toLowerCase().matchAll(WORD)) {
    const padded = [' ', ' ', ...Array.from(word), ' ']
    for (let i = 0; i + 3 <= padded.length; i++) trigrams.add(padded.slice(i, i + 3).join(''))
  }
  return trigrams
}

/** pg_trgm's `similarity`: 0 (nothing in common, or either has no trigram) to 1 (the same trigrams). */
export function trigramSimilarity(a: Set<string>, b: Set<string>): number {
  if (a.size === 0 || b.size === 0) return 0
  let shared = 0
  for (const trigram of a) if (b.has(trigram)) shared++
  return shared / (a.size + b.size - shared)
}

/**
 * The distinct three-character pieces of a folded text as it stands (spaces and punctuation included), as SQLite's
 * trigram index holds them: to find the texts that share some with it. At most `max`, from its start.
 */
export function rawTrigrams(text: string, max: number): string[] {
  const characters = Array.from(text.slice(0, COMPARED_CHARACTERS))
  const pieces = new Set<string>()
  for (let i = 0; i + 3 <= characters.length && pieces.size < max; i++) pieces.add(characters.slice(i, i + 3).join(''))
  return [...pieces]
}
