import { Tokenizer } from 'htmlparser2'

// HTML anyone can send (emails up to 25 MiB) read in one pass: htmlparser2's tokenizer, which follows the HTML
// spec's states (raw text in `<script>`, `<style>`, `<title>`…, comments, attributes in any quoting) in time linear
// in the input. Its Parser is not used: it keeps open elements in an array it shifts and searches, which costs the
// square of the nesting (`<div>` repeated). Text and attribute values are given as written, undecoded.

/** What a scan reports, in document order; `start` is the offset in the HTML where the text or tag begins. */
export interface HtmlEvents {
  /** A run of text (raw text of `<script>`… included), as written. */
  text?(raw: string, start: number): void
  /** A start tag: its lowercased name, its attributes (lowercased names, values as written; the first of each name). */
  openTag?(name: string, attributes: ReadonlyMap<string, string>, start: number): void
  /** An end tag, by lowercased name. */
  closeTag?(name: string, start: number): void
}

/** Reads `html` once, reporting its text and tags; comments, doctypes and processing instructions are skipped. */
export function scanHtml(html: string, events: HtmlEvents): void {
  let textStart = -1
  let textEnd = -1
  let tagName = ''
  let tagStart = 0
  const none: ReadonlyMap<string, string> = new Map()
  let attributes: Map<string, string> | undefined
  let attributeName = ''
  let attributeValue = ''

  const flushText = () => {
    if (textStart < 0) return
    events.text?.(html.slice(textStart, textEnd), textStart)
    textStart = -1
  }
  const openTagEnd = () => {
    flushText()
    events.openTag?.(tagName, attributes ?? none, tagStart)
  }

  const tokenizer = new Tokenizer(
    { decodeEntities: false },
    {
      ontext(start, end) {
        // Contiguous runs (the tokenizer may cut text in pieces) make one.
        if (textStart >= 0 && start === textEnd) textEnd = end
        else {
          flushText()
          textStart = start
          textEnd = end
        }
      },
      ontextentity() {},
      onopentagname(start, end) {
        tagName = html.slice(start, end).toLowerCase()
        tagStart = start - 1
        attributes = undefined
      },
      onattribname(start, end) {
        attributeName = html.slice(start, end).toLowerCase()
        attributeValue = ''
      },
      onattribdata(start, end) {
        attributeValue += html.slice(start, end)
      },
      onattribentity() {},
      onattribend() {
        attributes ??= new Map()
        if (!attributes.has(attributeName)) attributes.set(attributeName, attributeValue)
      },
      onopentagend: openTagEnd,
      onselfclosingtag: openTagEnd,
      onclosetag(start, end) {
        flushText()
        events.closeTag?.(html.slice(start, end).toLowerCase(), start - 2)
      },
      oncomment() {},
      oncdata() {},
      ondeclaration() {},
      onprocessinginstruction() {},
      onend: flushText,
    },
  )
  tokenizer.write(html)
  tokenizer.end()
}
