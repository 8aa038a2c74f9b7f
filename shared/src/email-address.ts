// Address fields (`"Ann Smith" <ann@example.com>, Team: bo@example.com;`) read into mailboxes and groups, as the API's
// mailer, nodemailer, reads them: one parser for the web app and the API, so that both agree on what an address is.
// Our own because nodemailer's is a deep import of a Node mailer and no address parser is a dependency here.
// Every step walks the field a bounded number of times (no pattern that can backtrack), so its work is linear in it.

/** One mailbox: its address and the name shown with it; either is '' when the field gave none. */
export interface Mailbox {
  name: string
  address: string
  group?: undefined
}

/** A group (`Team: a@b.co, c@d.co;`): its name shows, its members receive. */
export interface AddressGroup {
  name: string
  group: Mailbox[]
  address?: undefined
}

export type AddressEntry = Mailbox | AddressGroup

/** Every mailbox and group of an address field, in order (nodemailer's `addressparser(field)`). */
export function parseAddressList(field: string): AddressEntry[] {
  return readList(field, tokenize(field))
}

/** Every mailbox of an address field, the members of its groups in their place (`addressparser(field, { flatten: true })`). */
export function parseMailboxList(field: string): Mailbox[] {
  return parseAddressList(field).flatMap((entry) => (entry.group === undefined ? [entry] : entry.group))
}

// ── Tokens ────────────────────────────────────────────────────────────────────────────────────────────────────────

type Operator = '"' | '(' | ')' | '<' | '>' | ',' | ':' | ';'
/** `start` and `end`: where the token's value stands in the field, whitespace and controls around it left out. */
type Token =
  | { op: Operator; noBreak: boolean; start: number; end: number }
  | { op: undefined; text: string; start: number; end: number }

/** What each operator opens until: a quoted string its closing quote, a comment its ')', an angle-addr its '>'. */
const CLOSERS: Partial<Record<string, '"' | ')' | '>' | ''>> = {
  '"': '"',
  '(': ')',
  '<': '>',
  ',': '',
  ':': '',
  ';': '',
}

function isOperator(chr: string): chr is Operator {
  return '"()<>,:;'.includes(chr)
}

/** The characters `\s` matches. */
function isSpace(chr: string): boolean {
  const code = chr.charCodeAt(0)
  return (
    code === 0x20 ||
    (code >= 0x09 && code <= 0x0d) ||
    code === 0xa0 ||
    code === 0x1680 ||
    (code >= 0x2000 && code <= 0x200a) ||
    code === 0x2028 ||
    code === 0x2029 ||
    code === 0x202f ||
    code === 0x205f ||
    code === 0x3000 ||
    code === 0xfeff
  )
}

/** Whitespace, controls and DEL: left out at the edges of a value. */
function isDropped(chr: string): boolean {
  const code = chr.charCodeAt(0)
  return code < 0x20 || code === 0x7f || isSpace(chr)
}

/** Splits a field into operators and the trimmed text between them; line breaks read as spaces, controls drop out. */
function tokenize(field: string): Token[] {
  const tokens: Token[] = []
  // The text run being read: it stands from `textStart`; what is before `segmentStart` is in `cleaned`, without the
  // characters left out (escaping backslashes, controls) and with line breaks as spaces.
  let inText = false
  let textStart = 0
  let segmentStart = 0
  let cleaned = ''
  let expecting: '"' | ')' | '>' | '' = ''
  let escaped = false
  let inLiteral = false
  let afterAt = false
  let inGroup = false
  // Inside an angle-addr: the quoted strings, comments and domain literals whose '>' does not close it.
  let innerQuoted = false
  let innerComment = 0
  let innerLiteral = false
  let innerEscaped = false
  const resetInner = () => {
    innerQuoted = false
    innerComment = 0
    innerLiteral = false
    innerEscaped = false
  }
  const skip = (i: number, instead: string) => {
    cleaned += field.slice(segmentStart, i) + instead
    segmentStart = i + 1
  }
  const closeText = (at: number) => {
    const value = inText ? (cleaned + field.slice(segmentStart, at)).trim() : ''
    if (value !== '') {
      let start = textStart
      let end = at
      while (start < end && isDropped(field.charAt(start))) start++
      while (end > start && isDropped(field.charAt(end - 1))) end--
      tokens.push({ op: undefined, text: value, start, end })
    }
    inText = false
  }
  const trackInner = (chr: string): boolean => {
    if (innerEscaped) {
      innerEscaped = false
      return true
    }
    if (innerQuoted) {
      if (chr === '\\') innerEscaped = true
      else if (chr === '"') innerQuoted = false
      return true
    }
    if (innerComment > 0) {
      if (chr === '\\') innerEscaped = true
      else if (chr === '(') innerComment++
      else if (chr === ')') innerComment--
      return true
    }
    if (innerLiteral) {
      if (chr === ']') innerLiteral = false
      return true
    }
    if (chr === '"') innerQuoted = true
    else if (chr === '(') innerComment = 1
    else if (chr === '[' && afterAt) innerLiteral = true
    else {
      if (!isSpace(chr)) afterAt = chr === '@'
      return false
    }
    return true
  }

  for (let i = 0; i < field.length; i++) {
    const chr = field.charAt(i)
    // A domain literal (`a@[IPv6:1::2]`) hides the ':' of a group; the list separators still end it.
    if (!escaped && expecting === '') {
      if (!inLiteral && chr === '[' && afterAt) inLiteral = true
      else if (inLiteral && (chr === ']' || chr === ',' || chr === ';')) inLiteral = false
    }
    let nested = false
    if (expecting === '>') {
      nested = trackInner(chr)
      if (!nested && chr === ';' && inGroup) {
        // The ';' of a group ends an angle-addr left open inside it.
        closeText(i)
        expecting = ''
        resetInner()
      }
    } else if (expecting === ')' && !escaped) {
      if (chr === '(') innerComment++
      else if (chr === ')' && innerComment > 0) {
        innerComment--
        nested = true
      }
    }
    if (!escaped && expecting !== '' && chr === expecting && !nested) {
      closeText(i)
      const next = field.charAt(i + 1)
      tokens.push({ op: expecting, noBreak: next !== '' && !' \t\r\n,;'.includes(next), start: i, end: i + 1 })
      if (chr !== ')') afterAt = false
      expecting = ''
      resetInner()
      continue
    }
    if (!escaped && expecting === '' && !(inLiteral && chr === ':') && isOperator(chr) && chr !== ')' && chr !== '>') {
      closeText(i)
      tokens.push({ op: chr, noBreak: false, start: i, end: i + 1 })
      if (chr === ':') inGroup = true
      else if (chr === ';') inGroup = false
      if (chr !== '(') afterAt = false
      expecting = CLOSERS[chr] ?? ''
      resetInner()
      continue
    }
    if (!escaped && (expecting === '"' || expecting === ')') && chr === '\\') {
      escaped = true
      if (inText) skip(i, '')
      continue
    }
    if (!inText) {
      inText = true
      textStart = i
      segmentStart = i
      cleaned = ''
    }
    if (chr === '\n') skip(i, ' ')
    else if (chr.charCodeAt(0) >= 0x21 || chr === ' ' || chr === '\t') {
      if (expecting === '' && chr !== ' ' && chr !== '\t') afterAt = chr === '@'
    } else skip(i, '')
    escaped = false
  }
  closeText(field.length)
  return tokens
}

// ── The list and its groups ───────────────────────────────────────────────────────────────────────────────────────

function opAt(tokens: readonly Token[], i: number): Operator | '' {
  return tokens[i]?.op ?? ''
}

function readList(field: string, tokens: readonly Token[]): AddressEntry[] {
  const entries: AddressEntry[] = []
  let group: AddressGroup | undefined
  let members: Mailbox[] = []
  let from = 0
  for (let i = 0; i <= tokens.length; i++) {
    const op = i < tokens.length ? opAt(tokens, i) : ''
    if (i < tokens.length && op !== ',' && op !== ';' && op !== ':') continue
    if (op === ':') {
      // A ':' inside a group stands for a group nested in it: its members belong to the outer one.
      if (group === undefined) {
        group = { name: collectParts(field, tokens, from, i).data.text.join(' '), group: [] }
        members = []
      }
      from = i + 1
      continue
    }
    if (i > from) {
      const address = readAddress(field, tokens, from, i)
      if (group === undefined) entries.push(address)
      else members.push(address)
    }
    from = i + 1
    if (group !== undefined && (op === ';' || i === tokens.length)) {
      group.group = mergeNameFragments(members)
      entries.push(group)
      group = undefined
    }
  }
  return mergeNameFragments(entries)
}

/** `Joe Foo, PhD <joe@example.com>` is split at its comma: a name alone before a named address is part of its name. */
function mergeNameFragments<T extends AddressEntry>(list: readonly T[]): T[] {
  const merged: T[] = []
  for (let i = list.length - 1; i >= 0; i--) {
    const current = list[i]
    if (current === undefined) continue
    const next = merged[merged.length - 1]
    if (
      next !== undefined &&
      current.address === '' &&
      current.name !== '' &&
      next.address !== undefined &&
      next.address !== '' &&
      next.name !== ''
    ) {
      next.name = `${current.name}, ${next.name}`
    } else merged.push(current)
  }
  return merged.reverse()
}

// ── One address ───────────────────────────────────────────────────────────────────────────────────────────────────

interface Parts {
  address: string[]
  comment: string[]
  text: string[]
  /** Whether each text run came (partly) out of a quoted string: no address is taken out of one. */
  textWasQuoted: boolean[]
  /** Where the '@' after a quoted local part sits in each text run, or -1. */
  quotedLocalAt: number[]
}

/** Sorts the tokens of one entry into display text, angle-addr and comments. */
function collectParts(
  field: string,
  tokens: readonly Token[],
  from: number,
  to: number,
): { data: Parts; textFromComment: boolean } {
  const data: Parts = { address: [], comment: [], text: [], textWasQuoted: [], quotedLocalAt: [] }
  let state: 'text' | 'address' | 'comment' = 'text'
  let insideQuotes = false
  let lastTextPureQuoted = false
  let lastTextHasAt = false
  // Whether the last text run may go on into a domain past a comment, and whether only folding whitespace and
  // comments stand since it ended (`a@victim.example(x).allowed.example` is one domain).
  let lastTextOpen = false
  let gapFrom = 0
  let gapsFolding = true
  const lastChars = { address: '', comment: '', text: '' }
  for (let i = from; i < to; i++) {
    const token = tokens[i]
    if (token === undefined) continue
    if (token.op !== undefined) {
      if (token.op === '<') state = 'address'
      else if (token.op === '(') state = 'comment'
      else state = 'text'
      insideQuotes = token.op === '"' ? !insideQuotes : false
      if (token.op === '(') gapsFolding = gapsFolding && isFoldingGap(field, gapFrom, token.start)
      else if (token.op === ')') gapFrom = token.end
      else lastTextOpen = false
      continue
    }
    const value = token.text
    const previous = i > from ? tokens[i - 1] : undefined
    const prevOperator = previous?.op ?? ''
    const prevNoBreak = previous?.op !== undefined && previous.noBreak
    // An empty quoted string leaves no text: the run after it carries the quoting (`""@example.com`).
    const afterEmptyQuotes = prevOperator === '"' && prevNoBreak && i > from + 1 && opAt(tokens, i - 2) === '"'
    const parts = data[state]
    // A comment is whitespace: it joins nothing across it but at an '@', and never a second '@' into one run.
    const secondAt: boolean = lastTextHasAt && prevOperator === ')' && value.includes('@')
    const joinsDomain: boolean =
      !secondAt &&
      lastTextOpen &&
      lastTextHasAt &&
      prevOperator === ')' &&
      (lastChars.text === '.' || value.startsWith('.')) &&
      gapsFolding &&
      isFoldingGap(field, gapFrom, token.start)
    const joins: boolean =
      joinsDomain ||
      (!secondAt &&
        prevNoBreak &&
        parts.length > 0 &&
        (prevOperator !== ')' || lastChars[state] === '@' || value.startsWith('@')))
    if (joins) {
      const last = parts.length - 1
      if (state === 'text' && !insideQuotes) {
        if (lastTextPureQuoted && value.startsWith('@')) data.quotedLocalAt[last] = (data.text[last] ?? '').length
        lastTextPureQuoted = false
      }
      parts[last] = `${parts[last] ?? ''}${value}`
      if (state === 'text' && insideQuotes) data.textWasQuoted[last] = true
    } else {
      parts.push(value)
      if (state === 'text') {
        data.textWasQuoted.push(insideQuotes || afterEmptyQuotes)
        data.quotedLocalAt.push(afterEmptyQuotes && value.startsWith('@') ? 0 : -1)
        lastTextPureQuoted = insideQuotes
      }
    }
    lastChars[state] = value.charAt(value.length - 1)
    if (state === 'text') {
      lastTextHasAt = (joins && lastTextHasAt) || (!insideQuotes && value.includes('@'))
      lastTextOpen = true
      gapFrom = token.end
      gapsFolding = true
    }
  }
  // A comment only names a mailbox: no address is read out of one.
  if (data.text.length === 0 && data.comment.length > 0) {
    data.text = data.comment
    data.comment = []
    return { data, textFromComment: true }
  }
  return { data, textFromComment: false }
}

function readAddress(field: string, tokens: readonly Token[], from: number, to: number): Mailbox {
  const { data, textFromComment: fromComment } = collectParts(field, tokens, from, to)
  let textFromComment = fromComment
  const addressComments: string[] = []
  const addresses: string[] = []
  for (const part of data.address) {
    const stripped = stripAddressComments(part)
    addressComments.push(...stripped.comments)
    if (stripped.address !== '') addresses.push(stripped.address)
  }
  data.address = addresses

  if (data.address.length === 0 && data.text.length > 0 && !textFromComment) takeAddressFromText(data)
  if (data.text.length === 0 && data.comment.length > 0) {
    data.text = data.comment
    data.comment = []
  }
  if (data.address.length > 1) data.text = data.text.concat(data.address.splice(1))
  const fromQuotedText = data.address.length === 0 && data.textWasQuoted.some(Boolean)
  let text = data.text.join(' ')
  let address = data.address.join(' ')
  if (fromQuotedText && text.includes('@')) {
    // The mailbox is in quoted text (`"user"@example.com`): its quoting goes back on.
    address = quoteLocalPart(joinAtSpacing(text, domainAt(text)))
    text = ''
  }
  ;({ address, text } = recoverAddrSpec(address, text))
  if (text === '' && addressComments.length > 0) {
    text = addressComments.join(' ')
    textFromComment = true
  }
  const mailbox = { address: address || (textFromComment ? '' : text), name: text || address }
  if (mailbox.address === mailbox.name) {
    if (mailbox.address.includes('@')) mailbox.name = ''
    else mailbox.address = ''
  }
  return mailbox
}

/** No angle-addr: the first addr-spec of the unquoted text is the mailbox, else one read loosely out of it. */
function takeAddressFromText(data: Parts): void {
  const candidates = data.text.map(collapseAtSpacing)
  for (let i = 0; i < data.text.length; i++) {
    const run = data.text[i] ?? ''
    const local = data.quotedLocalAt[i] ?? -1
    const quotedLocal =
      data.textWasQuoted[i] === true && local >= 0 && isQuotedLocalDomain(run.slice(local)) ? quoteLocalPart(run) : ''
    const candidate = candidates[i] ?? ''
    if (quotedLocal !== '' || (data.textWasQuoted[i] !== true && isAddrSpec(candidate))) {
      data.address = [quotedLocal || candidate]
      data.text.splice(i, 1)
      data.textWasQuoted.splice(i, 1)
      data.quotedLocalAt.splice(i, 1)
      return
    }
  }
  for (let i = 0; i < data.text.length; i++) {
    if (data.textWasQuoted[i] === true) continue
    const part = candidates[i] ?? ''
    const match = looseAddress(part)
    if (match === undefined) {
      data.text[i] = (data.text[i] ?? '').trim()
      continue
    }
    data.address = [part.slice(match.start, match.end).trim()]
    data.text[i] = `${part.slice(0, match.start)} ${part.slice(match.end)}`.trim()
    return
  }
}

/** Where a quoted string that opens `value` at `from` ends (past its closing quote), or -1. */
function quotedStringEnd(value: string, from: number): number {
  if (value.charAt(from) !== '"') return -1
  for (let i = from + 1; i < value.length; i++) {
    const chr = value.charAt(i)
    if (chr === '\\') i++
    else if (chr === '"') return i + 1
  }
  return -1
}

function hasSpace(value: string): boolean {
  for (const chr of value) if (isSpace(chr)) return true
  return false
}

/** One run with a single '@' between non-blank parts, or a domain literal for the domain. */
function isAddrSpec(value: string): boolean {
  const at = value.indexOf('@')
  if (at <= 0 || at === value.length - 1 || hasSpace(value)) return false
  const domain = value.slice(at + 1)
  return !domain.includes('@') || isDomainLiteral(domain)
}

/** `[…]` holding no bracket, backslash or whitespace. */
function isDomainLiteral(domain: string): boolean {
  if (!domain.startsWith('[') || !domain.endsWith(']') || domain.length < 2) return false
  const inside = domain.slice(1, -1)
  return !/[[\]\\]/.test(inside) && !hasSpace(inside)
}

/** The '@' and domain after a quoted local part. */
function isQuotedLocalDomain(value: string): boolean {
  if (!value.startsWith('@')) return false
  const domain = value.slice(1)
  return isDomainLiteral(domain) || (domain !== '' && !/[@"]/.test(domain) && !hasSpace(domain))
}

/** The '@' that splits the domain off: the one before a domain literal that ends the address, else the last. */
function domainAt(address: string): number {
  if (address.endsWith(']')) {
    const open = address.lastIndexOf('[')
    if (open > 0 && address.charAt(open - 1) === '@' && !/[\]\\]/.test(address.slice(open + 1, -1))) return open - 1
  }
  return address.lastIndexOf('@')
}

/** Puts quotes back on a local part that needs them (`"a b"@x.co`), so that no '@' or ',' in it misroutes. */
function quoteLocalPart(address: string): string {
  const at = domainAt(address)
  if (at < 0) return address
  const user = address.slice(0, at)
  if ((user !== '' && !/[\s"(),:;<>@[\\\]]/.test(user)) || quotedStringEnd(user, 0) === user.length) return address
  return `"${user.replace(/["\\]/g, '\\$&')}"@${address.slice(at + 1)}`
}

function isFoldingSpace(chr: string): boolean {
  return chr === ' ' || chr === '\t' || chr === '\r' || chr === '\n'
}

function isFoldingGap(field: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) if (!isFoldingSpace(field.charAt(i))) return false
  return true
}

/** Printable ASCII but the specials, or any other non-space character. */
function isAtext(chr: string): boolean {
  if (chr === '') return false
  const code = chr.charCodeAt(0)
  if (code >= 0x80) return !isSpace(chr)
  return code > 0x20 && code < 0x7f && !'()<>[]:;@\\,."'.includes(chr)
}

/** `user @ good.com` is user@good.com, and `a@b .c` is a@b.c (whitespace around '@' and a domain's dots). */
function joinAtSpacing(value: string, at: number): string {
  if (at < 0) return value
  let start = at
  while (start > 0 && isSpace(value.charAt(start - 1))) start--
  let end = at + 1
  while (end < value.length && isSpace(value.charAt(end))) end++
  const joined = start === at && end === at + 1 ? value : `${value.slice(0, start)}@${value.slice(end)}`
  return joinDomainDotSpacing(joined, start)
}

function joinDomainDotSpacing(value: string, at: number): string {
  let pos = at + 1
  let spaced = false
  for (;;) {
    const labelStart = pos
    while (pos < value.length && isAtext(value.charAt(pos))) pos++
    if (pos === labelStart) break
    let next = pos
    while (next < value.length && isFoldingSpace(value.charAt(next))) next++
    if (value.charAt(next) !== '.') break
    next++
    while (next < value.length && isFoldingSpace(value.charAt(next))) next++
    if (!isAtext(value.charAt(next))) break
    spaced = spaced || next !== pos + 1
    pos = next
  }
  if (!spaced) return value
  let domain = ''
  for (let k = at + 1; k < pos; k++) if (!isFoldingSpace(value.charAt(k))) domain += value.charAt(k)
  return value.slice(0, at + 1) + domain + value.slice(pos)
}

/** Drops the whitespace beside the one '@' that splits the domain off; with several, which one is unclear. */
function collapseAtSpacing(value: string): string {
  const quoted = quotedStringEnd(value, 0)
  if (quoted >= 0) {
    let at = quoted
    while (at < value.length && isSpace(value.charAt(at))) at++
    if (value.charAt(at) === '@' && !value.includes('@', at + 1)) return joinAtSpacing(value, at)
  }
  const at = value.indexOf('@')
  if (at < 0 || value.includes('@', at + 1) || value.lastIndexOf('"') > at) return value
  return joinAtSpacing(value, at)
}

/** `\w` without the unicode flag; out of range reads as a non-word, as for `\b`. */
function isWord(text: string, at: number): boolean {
  const code = text.charCodeAt(at)
  return (
    (code >= 0x30 && code <= 0x39) || (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a) || code === 0x5f
  )
}

function isBoundary(text: string, at: number): boolean {
  return isWord(text, at - 1) !== isWord(text, at)
}

/**
 * Where `/\s*\b[^@\s]+@[^\s]+\b\s*` first matches in free text (`Ann Smith ann@x.co`), found run by run: a match
 * starts at a boundary before an '@' of a run and ends at the run's last boundary past it.
 */
function looseAddress(text: string): { start: number; end: number } | undefined {
  let pos = 0
  while (pos < text.length) {
    while (pos < text.length && isSpace(text.charAt(pos))) pos++
    const runStart = pos
    while (pos < text.length && !isSpace(text.charAt(pos))) pos++
    const runEnd = pos
    // Looked for inside the run only: a search on to the end of the field would cost a pass a run.
    let at = indexOfAt(text, runStart, runEnd)
    if (at < 0) continue
    let lastBoundary = -1
    for (let k = runEnd; k > runStart; k--) {
      if (isBoundary(text, k)) {
        lastBoundary = k
        break
      }
    }
    let atomStart = runStart
    while (lastBoundary >= 0 && at >= 0) {
      if (at > atomStart && lastBoundary > at + 1) {
        for (let start = atomStart; start < at; start++) {
          if (!isBoundary(text, start)) continue
          let padded = start
          if (start === runStart) while (padded > 0 && isSpace(text.charAt(padded - 1))) padded--
          let end = lastBoundary
          while (end < text.length && isSpace(text.charAt(end))) end++
          return { start: padded, end }
        }
      }
      atomStart = at + 1
      at = indexOfAt(text, atomStart, runEnd)
    }
  }
  return undefined
}

function indexOfAt(text: string, from: number, to: number): number {
  for (let i = from; i < to; i++) if (text.charAt(i) === '@') return i
  return -1
}

/**
 * An angle-addr holding unquoted whitespace (`<ann@x.co ann@x.co>`): the run that reads as an addr-spec is the
 * address, and the rest joins the name.
 */
function recoverAddrSpec(raw: string, text: string): { address: string; text: string } {
  const address = collapseAtSpacing(raw)
  if (!hasSpace(address)) return { address, text }
  let picked: string
  let rest: string[]
  const quoted = quotedStringEnd(address, 0)
  if (quoted > 0 && address.charAt(quoted) === '@') {
    let domainEnd = quoted + 1
    while (domainEnd < address.length && !isSpace(address.charAt(domainEnd))) domainEnd++
    // The whitespace is inside the quoted local part: a well-formed mailbox.
    if (domainEnd === address.length) return { address, text }
    if (domainEnd === quoted + 1) return { address, text }
    const tail = address.slice(domainEnd).trim()
    if (tail === '') return { address, text }
    picked = address.slice(0, domainEnd)
    rest = [tail]
  } else {
    if (address.includes('"')) return { address, text }
    const parts = address.split(/\s+/)
    let index = parts.findIndex(isAddrSpec)
    if (index < 0) index = parts.findIndex(isLooseAddrSpec)
    if (index < 0) return { address, text }
    picked = parts[index] ?? ''
    rest = parts.filter((_, i) => i !== index)
  }
  return { address: picked, text: [text, ...rest].filter((part) => part !== '').join(' ') }
}

/** An '@' after a part without '@' or whitespace, and no whitespace after it. */
function isLooseAddrSpec(value: string): boolean {
  const at = value.indexOf('@')
  return at > 0 && at < value.length - 1 && !hasSpace(value)
}

/**
 * The contents of an angle-addr without its comments (`<ann(x)@x.co>`), whose text comes back apart; a stray '<'
 * drops what is before it, and a route (`<@relay:ann@x.co>`) is no part of the mailbox.
 */
function stripAddressComments(address: string): { address: string; comments: string[] } {
  const comments: string[] = []
  let result = ''
  let comment = ''
  let depth = 0
  let closer = ''
  let lastChar = ''
  let pendingSpace = false
  let firstChar = ''
  let quoteSeen = false
  let routeEnd = -1
  for (let i = 0; i < address.length; i++) {
    const chr = address.charAt(i)
    if (depth > 0) {
      if (chr === '\\' && i < address.length - 1) comment += address.charAt(++i)
      else if (chr === '(') {
        depth++
        comment += chr
      } else if (chr === ')' && --depth === 0) {
        comments.push(comment.trim())
        comment = ''
        pendingSpace = lastChar !== '@'
      } else comment += chr
      continue
    }
    if (pendingSpace && chr !== '(') {
      pendingSpace = false
      if (chr !== '@' && chr !== '<' && !isSpace(chr)) {
        result += ' '
        lastChar = ' '
      }
    }
    if (closer !== '') {
      if (chr === '\\' && closer === '"' && i < address.length - 1) {
        result += chr + address.charAt(++i)
        lastChar = address.charAt(i)
        continue
      }
      if (chr === closer) closer = ''
    } else if (chr === '"') {
      closer = '"'
      quoteSeen = true
    } else if (chr === ':' && routeEnd < 0 && firstChar === '@' && !quoteSeen) {
      routeEnd = result.length + 1
    } else if (chr === '[') {
      closer = ']'
    } else if (chr === '(') {
      depth = 1
      continue
    } else if (chr === '<') {
      result = ''
      lastChar = ''
      comments.length = 0
      firstChar = ''
      quoteSeen = false
      routeEnd = -1
      continue
    }
    result += chr
    lastChar = chr
    if (firstChar === '' && !isSpace(chr)) firstChar = chr
  }
  if (routeEnd >= 0 && result.includes('@', routeEnd)) result = result.slice(routeEnd)
  if (depth > 0) comments.push(comment.trim())
  return { address: result.trim(), comments: comments.filter((text) => text !== '') }
}
