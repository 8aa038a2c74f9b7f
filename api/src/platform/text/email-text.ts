import { parseAddressList, parseMailboxList } from '@leadline/shared/email-address'
import { htmlToText } from './html-text.js'
import { scanHtml } from './html-scan.js'
import { isEmail } from './text.js'

// The text of an email: its two bodies (each derived from the other when only one is given), its preview, the reply
// told from the quoted text below it, and its addresses read into `{email, name}`.

/**
 * Both bodies of an email from what was given: HTML without text gives its text (as a template's text is made); text without HTML gives the text escaped, its line breaks as `<br>`.
 */
export function emailBodies(text: string | null | undefined, html: string | null | undefined) {
  const givenText = text ?? ''
  const givenHtml = html ?? ''
  if (givenHtml !== '' && givenText === '') {
    return { text: htmlToText(givenHtml), html: givenHtml }
  }
  if (givenText !== '' && givenHtml === '') {
    const escaped = givenText.replace(/[&<>"']/g, (c) => `&#${String(c.charCodeAt(0))};`)
    return { text: givenText, html: escaped.replace(/\r?\n/g, '<br>') }
  }
  return { text: givenText, html: givenHtml }
}

const PREVIEW_CHARS = 200

/** The start of an email's text, as lists show it. */
export function bodyPreview(text: string): string {
  return text.slice(0, PREVIEW_CHARS)
}

/** An "On <date>, <someone> wrote:" line, which mail clients put above what they quote. */
function isAttribution(line: string): boolean {
  const trimmed = line.trim()
  return /^on\b/i.test(trimmed) && /\bwrote:$/i.test(trimmed)
}

/** The body's text split into the reply (`expand: true`) and the quoted text below it (`expand: false`). */
export function quotedText(text: string): { text: string; expand: boolean }[] {
  const lines = text.split('\n')
  let at = lines.findIndex((line) => line.startsWith('>'))
  if (at <= 0) return [{ text, expand: true }]
  let before = at - 1
  while (before > 0 && (lines[before] ?? '').trim() === '') before--
  if (isAttribution(lines[before] ?? '')) at = before
  const reply = lines.slice(0, at).join('\n')
  if (reply.trim() === '') return [{ text, expand: true }]
  return [
    { text: reply, expand: true },
    { text: lines.slice(at).join('\n'), expand: false },
  ]
}

/**
 * The HTML body split the same way: the quote starts at the first `<blockquote>`, or at an attribution that ends the
 * last text above it (only tags and spaces between). Read with a tokenizer, in time linear in the HTML.
 */
export function quotedHtml(html: string): { html: string; expand: boolean }[] {
  // The first quote's offset; the last text with more than spaces before it, and whether any such text came before.
  const seen: { quote: number; last?: { raw: string; start: number }; textBeforeLast: boolean } = {
    quote: -1,
    textBeforeLast: false,
  }
  scanHtml(html, {
    text(raw, start) {
      if (seen.quote >= 0 || raw.trim() === '') return
      seen.textBeforeLast ||= seen.last !== undefined
      seen.last = { raw, start }
    },
    openTag(name, _attributes, start) {
      if (seen.quote < 0 && name === 'blockquote') seen.quote = start
    },
  })
  const { quote, last, textBeforeLast } = seen
  if (quote < 0 || last === undefined) return [{ html, expand: true }]
  let at = quote
  let replyHasText = true
  const attribution = /\bwrote:$/i.test(last.raw.trimEnd()) ? /\bon\b/i.exec(last.raw) : null
  if (attribution !== null) {
    at = last.start + attribution.index
    replyHasText = textBeforeLast || last.raw.slice(0, attribution.index).trim() !== ''
  }
  if (!replyHasText) return [{ html, expand: true }]
  return [
    { html: html.slice(0, at), expand: true },
    { html: html.slice(at), expand: false },
  ]
}

/** An address as the envelope lists it. */
export interface EnvelopeAddress {
  email: string
  name: string
}

/** One address written `a@b.c`, `Name <a@b.c>` or `"Name" <a@b.c>`; undefined when it is not one valid address. */
export function parseAddress(raw: string): EnvelopeAddress | undefined {
  const parsed = parseMailboxList(raw)
  const [only] = parsed
  if (parsed.length !== 1 || only === undefined || !isEmail(only.address)) return undefined
  return { email: only.address, name: only.name }
}

/**
 * One mailbox as an email is written to and sent to: like `parseAddress`, but a group (`Name: a@b.c;`), whose name
 * shows while the address inside it receives, is not one.
 */
export function parseMailbox(raw: string): EnvelopeAddress | undefined {
  const parsed = parseAddressList(raw)
  const [only] = parsed
  if (parsed.length !== 1 || only === undefined || only.group !== undefined) return undefined
  return parseAddress(raw)
}

/** The addresses of a field, those that read as addresses (stored ones were checked when written). */
export function envelopeAddresses(raws: readonly (string | null)[]): EnvelopeAddress[] {
  return raws.flatMap((raw) => {
    const address = raw === null ? undefined : parseAddress(raw)
    return address === undefined ? [] : [address]
  })
}

/** The domain of an address (`a@b.c` → `b.c`), lowercased. */
export function addressDomain(email: string): string {
  return email.slice(email.lastIndexOf('@') + 1).toLowerCase()
}
