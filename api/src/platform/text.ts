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

// With the u flag a surrogate pair is one code point, so only an unpaired surrogate falls in this range.
const UNPAIRED_SURROGATE = /[\ud800-\udfff]/u

/** Postgres refuses NUL in text, and UTF-8 cannot hold an unpaired surrogate: neither could be stored as sent. */
export function isStorableText(text: string): boolean {
  return !text.includes('\u0000') && !UNPAIRED_SURROGATE.test(text)
}

/**
 * Where in a parsed JSON value (or query string) a string or object key is not storable text, each place as its
 * path of keys. Walks without recursion, keeping a parent link instead of a path per node, so a deeply nested
 * body costs neither the stack nor quadratic time.
 */
export function unstorableTextPaths(value: unknown): string[][] {
  interface Node {
    value: unknown
    key: string
    parent: Node | undefined
  }
  const pathOf = (node: Node | undefined): string[] => {
    const path: string[] = []
    for (let n = node; n?.parent !== undefined; n = n.parent) path.push(n.key)
    return path.reverse()
  }
  const found: string[][] = []
  const stack: Node[] = [{ value, key: '', parent: undefined }]
  for (let node = stack.pop(); node !== undefined; node = stack.pop()) {
    if (typeof node.value === 'string') {
      if (!isStorableText(node.value)) found.push(pathOf(node))
    } else if (typeof node.value === 'object' && node.value !== null) {
      const entries: [string, unknown][] = Object.entries(node.value)
      for (const [key, child] of entries) {
        const childNode = { value: child, key, parent: node }
        if (!isStorableText(key)) found.push(pathOf(childNode))
        stack.push(childNode)
      }
    }
  }
  return found
}
