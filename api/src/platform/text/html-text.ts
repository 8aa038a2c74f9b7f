import { decodeHTML } from 'entities'
import { scanHtml } from './html-scan.js'

// The plain-text part of an email from its HTML: what a reader would see, in lines and paragraphs. Text between
// tags is decoded once (so an escaped `&lt;b&gt;` reads `<b>`, and is never taken for a tag); whitespace collapses
// as a browser collapses it; blocks start lines, paragraphs and headings are set apart by a blank line, list items
// get a dash, a link keeps its address after its text. The HTML is read by a tokenizer (platform/text/html-scan.ts) and
// the text is built in one pass, so the cost is linear in the HTML, whatever it holds.

/** Elements whose content is not shown. */
const DROPPED = new Set(['script', 'style', 'title'])
/** What a document's `<head>` holds; anything else (or text) ends it, as in a browser. */
const HEAD_CONTENT = new Set(['meta', 'link', 'base', 'title', 'style', 'script', 'noscript', 'template'])
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
function webAddress(attributes: ReadonlyMap<string, string>): string | undefined {
  const href = decodeHTML(attributes.get('href') ?? '').trim()
  return /^https?:\/\//i.test(href) ? href : undefined
}

/**
 * Text made line by line: each line's spaces collapse and its ends are trimmed as it ends, at most one empty line
 * stands between two others, and it knows how many line breaks it ends with (spaces aside), so it never reads back.
 */
class PlainText {
  private readonly lines: string[] = []
  private line: string[] = []
  private emptyLines = 0
  private newlines = 0
  /** What is added while a link's text is being caught. */
  caught: string[] | undefined

  add(text: string): void {
    if (text === '') return
    this.line.push(text)
    this.caught?.push(text)
    if (/[^ ]/.test(text)) this.newlines = 0
  }

  lineBreak(): void {
    const text = this.line.join('').replace(/ {2,}/g, ' ').trim()
    this.line = []
    this.newlines++
    this.caught?.push('\n')
    if (text !== '') this.emptyLines = 0
    else if (this.lines.length === 0 || ++this.emptyLines > 1) return
    this.lines.push(text)
  }

  /** Ends the text so far in at least `count` line breaks (a block's end and the next one's start make one). */
  endLines(count: number): void {
    while (this.newlines < count) this.lineBreak()
  }

  toString(): string {
    this.lineBreak()
    while (this.lines.at(-1) === '') this.lines.pop()
    return this.lines.join('\n')
  }
}

/** The plain-text form of an HTML fragment or document. */
export function htmlToText(html: string): string {
  const out = new PlainText()
  let dropped: string | undefined
  let inHead = false
  let link: string | undefined

  const tag = (name: string, closing: boolean, attributes?: ReadonlyMap<string, string>) => {
    if (name === 'a') {
      if (attributes !== undefined) {
        link = webAddress(attributes)
        out.caught = link === undefined ? undefined : []
      } else if (link !== undefined && out.caught !== undefined) {
        const text = out.caught.join('').trim()
        out.caught = undefined
        if (text !== link) out.add(` (${link})`)
        link = undefined
      }
    } else if (name === 'br') out.lineBreak()
    else if (name === 'li' && !closing) {
      out.endLines(1)
      out.add('- ')
    } else if (PARAGRAPHS.has(name)) out.endLines(2)
    else if (LINES.has(name)) out.endLines(1)
    else if (CELLS.has(name) && !closing) out.add(' ')
  }

  scanHtml(html, {
    text(raw) {
      if (dropped !== undefined) return
      // Each run of whitespace but a lone space becomes a space (lone spaces, the most of them, stay as they are).
      const text = raw.replace(/(?:[^\S ]| \s)\s*/g, ' ')
      if (inHead && text.trim() === '') return
      inHead = false
      out.add(text.includes('&') ? decodeHTML(text) : text)
    },
    openTag(name, attributes) {
      if (name === 'head') inHead = true
      else if (inHead && !HEAD_CONTENT.has(name)) inHead = false
      if (DROPPED.has(name)) dropped = name
      else if (!inHead) tag(name, false, attributes)
    },
    closeTag(name) {
      if (name === dropped) dropped = undefined
      else if (name === 'head') inHead = false
      else if (!inHead) tag(name, true)
    },
  })
  return out.toString()
}
