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

/** An `https://` URL with a host: what a browser on an https page may load (recordings, MMS attachments). */
export function isHttpsUrl(value: string): boolean {
  try {
    const url = new URL(value)
    return url.protocol === 'https:' && url.hostname !== ''
  } catch {
    return false
  }
}

const KIB = 1024
const MIB = 1024 * KIB

/** A number of bytes as people read it: `1 MiB`, `512 KiB`, else `1000 bytes`. */
export function bytesText(bytes: number): string {
  if (bytes >= MIB && bytes % MIB === 0) return `${String(bytes / MIB)} MiB`
  if (bytes >= KIB && bytes % KIB === 0) return `${String(bytes / KIB)} KiB`
  return `${String(bytes)} bytes`
}

const ASCII = /^\p{ASCII}*$/u

/**
 * Lower-cases one code point at a time, keeping the first code point of a multi-character result (`İ` → `i`), the
 * way Postgres's `lower()` folds in a UTF-8 database. SQLite's own `lower()` folds only ASCII, so the SQLite
 * connection registers this as `leadline_lower` (platform/data/database.ts) and field searches compare with it there.
 */
export function foldCase(text: string): string {
  // ASCII has no multi-character or context-dependent lower case: lower-casing it whole is the same, and cheaper.
  if (ASCII.test(text)) return text.toLowerCase()
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
function isStorableText(text: string): boolean {
  return !text.includes('\u0000') && !UNPAIRED_SURROGATE.test(text)
}

/** Whether every key and value of an object of strings (a route's parameters, most query strings) is storable. */
export function isStorableFlatText(value: unknown): boolean {
  if (value === undefined || value === null) return true
  if (typeof value !== 'object') return false
  for (const key of Object.keys(value)) {
    const child: unknown = Reflect.get(value, key)
    if (typeof child !== 'string' || !isStorableText(key) || !isStorableText(child)) return false
  }
  return true
}

/**
 * The first `limit` places, in document order, where a parsed JSON value (or query string) holds a string or an
 * object key that is not storable text, each as its path of keys. Walks without recursion and keeps a parent link
 * rather than a path per node, and stops at `limit`: a deeply nested body costs neither the stack nor time (or an
 * answer) that grows with the square of its depth.
 */
export function unstorableTextPaths(value: unknown, limit = 10): string[][] {
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
  for (let node = stack.pop(); node !== undefined && found.length < limit; node = stack.pop()) {
    if (node.parent !== undefined && !isStorableText(node.key)) found.push(pathOf(node))
    else if (typeof node.value === 'string' && !isStorableText(node.value)) found.push(pathOf(node))
    else if (typeof node.value === 'object' && node.value !== null) {
      const entries: [string, unknown][] = Object.entries(node.value)
      // Pushed last to first, so the first is walked first.
      for (const [key, child] of entries.reverse()) stack.push({ value: child, key, parent: node })
    }
  }
  return found
}

// C0 controls (NUL, TAB, LF, CR…), DEL, C1 controls (NEL among them), and the Unicode line and paragraph separators:
// none belongs in a header, and each can end one. One character class, so the test is linear in the text.
const CONTROL = /[\p{Cc}\u2028\u2029]/u
const CONTROL_RUNS = /[\p{Cc}\u2028\u2029\s]+/gu

/** What a field that ends up in a message header (an address, a subject, a file name) may not contain. */
export const NO_CONTROL_CHARACTERS = 'Must not contain line breaks or other control characters.'

/** Whether the text holds a control character or a line or paragraph separator. */
export function hasControlCharacter(text: string): boolean {
  return CONTROL.test(text)
}

/** The text on one line: each run of control characters, separators and white space becomes one space. */
export function oneLine(text: string): string {
  return text.replace(CONTROL_RUNS, ' ')
}

const LOCAL_AT_DOMAIN = /^[^\s@]+@[^\s@]+$/

/** One `@` between non-blank parts, and a dot inside the domain (checked without a pattern that could backtrack). */
export function isEmail(value: string): boolean {
  if (!LOCAL_AT_DOMAIN.test(value)) return false
  const domain = value.slice(value.indexOf('@') + 1)
  const dot = domain.indexOf('.', 1)
  return dot > 0 && dot < domain.length - 1
}
