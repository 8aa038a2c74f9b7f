import { decodeHTML } from 'entities'

// The plain-text part of an email from its HTML: what a reader would see, in lines and paragraphs. Text between
// tags is decoded once (so an escaped `&lt;b&gt;` reads `<b>`, and is never taken for a tag); whitespace collapses
// as a browser collapses it; blocks start lines, paragraphs and headings are set apart by a blank line, list items
// get a dash, a link keeps its address after its text.

const DROPPED = /<(script|style|head|title)\b[^>]*>[\s\S]*?<\/\1\s*>/gi
const COMMENT = /<!--[\s\S]*?(?:-->|$)/g
const TAG = /<(\/?)([a-zA-Z][a-zA-Z0-9-]*)((?:[^>"']|"[^"]*"|'[^']*')*)>/g
const HREF = /\bhref\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+))/i

const PARAGRAPHS = new Set(['p', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'blockquote', 'pre', 'ul', 'ol', 'table'])
const LINES = new Set([
  'div',
  'li',
  'tr',
  'hr',
  'section',
  'article',
  'header',
  'footer',
  'dl',
  'dt',
  'dd',
  'address',
  'figure',
  'figcaption',
])
const CELLS = new Set(['td', 'th'])

/** A link's `https://…` or `http://…` address: worth keeping beside its text. */
function webAddress(attributes: string): string | undefined {
  const match = HREF.exec(attributes)
  const href = decodeHTML(match?.[1] ?? match?.[2] ?? match?.[3] ?? '').trim()
  return /^https?:\/\//i.test(href) ? href : undefined
}

/** The text so far, ending in at least `count` line breaks (a block's end and the next one's start make one). */
function endLines(text: string, count: number): string {
  const trimmed = text.replace(/ +$/, '')
  const present = /\n*$/.exec(trimmed)?.[0].length ?? 0
  return trimmed + '\n'.repeat(Math.max(0, count - present))
}

/** The plain-text form of an HTML fragment or document. */
export function htmlToText(html: string): string {
  const source = html.replace(COMMENT, '').replace(DROPPED, '').replace(/\s+/g, ' ')
  let out = ''
  let last = 0
  let link: { href: string; start: number } | undefined
  for (const match of source.matchAll(TAG)) {
    out += decodeHTML(source.slice(last, match.index))
    last = match.index + match[0].length
    const closing = match[1] === '/'
    const tag = (match[2] ?? '').toLowerCase()
    if (tag === 'a') {
      if (!closing) {
        const href = webAddress(match[3] ?? '')
        link = href === undefined ? undefined : { href, start: out.length }
      } else if (link !== undefined) {
        const text = out.slice(link.start).trim()
        if (text !== link.href) out += ` (${link.href})`
        link = undefined
      }
    } else if (tag === 'br') out += '\n'
    else if (tag === 'li' && !closing) out = endLines(out, 1) + '- '
    else if (PARAGRAPHS.has(tag)) out = endLines(out, 2)
    else if (LINES.has(tag)) out = endLines(out, 1)
    else if (CELLS.has(tag) && !closing) out += ' '
  }
  out += decodeHTML(source.slice(last))
  return out
    .split('\n')
    .map((line) => line.replace(/ {2,}/g, ' ').trim())
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim()
}
