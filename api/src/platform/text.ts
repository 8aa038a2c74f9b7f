/** Trims text; blank becomes null; absent stays absent (so a patch leaves the field alone). */
export function cleanText(value: string | null | undefined): string | null | undefined {
  if (value === undefined || value === null) return value
  const trimmed = value.trim()
  return trimmed === '' ? null : trimmed
}

/** A web address; the scheme is optional (`acme.com` is fine) but must be http(s) when given. */
export function isWebAddress(value: string): boolean {
  try {
    const url = new URL(/^[a-z][a-z0-9+.-]*:/i.test(value) ? value : `http://${value}`)
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname.includes('.')
  } catch {
    return false
  }
}

/**
 * Lower-cases one code point at a time, keeping the first code point of a multi-character result (`İ` → `i`), the
 * way Postgres's `lower()` folds in a UTF-8 database. SQLite's own `lower()` folds only ASCII, so the SQLite
 * connection registers this as `leadline_lower` (db/database.ts) and field searches compare with it there.
 */
export function foldCase(text: string): string {
  let out = ''
  for (const ch of text) {
    const first = ch.toLowerCase().codePointAt(0)
    out += first === undefined ? ch : String.fromCodePoint(first)
  }
  return out
}
