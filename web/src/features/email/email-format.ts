// The composer's body: plain text with a little markdown-like formatting (**bold**, _italic_, [a link](https://…),
// lines starting with "- " or "1. " as lists), written out as the email's HTML and plain-text parts. No React, so the
// rules are unit-tested; the toolbar's edits are here too.

const escapes: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }

/** Text safe inside HTML, attribute values included. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => escapes[c] ?? c)
}

// Links first (their text may hold underscores), then bold, italic, and bare web addresses.
const INLINE =
  /\[([^\]\n]+)\]\(((?:https?:\/\/|mailto:)[^\s()]+)\)|\*\*(.+?)\*\*|(?<![\w*])_(.+?)_(?![\w])|(https?:\/\/[^\s<>()]+[^\s<>().,;:!?'"])/g

interface Inline {
  html: string
  text: string
}

function inline(source: string): Inline {
  let html = ''
  let text = ''
  let last = 0
  for (const match of source.matchAll(INLINE)) {
    const plain = source.slice(last, match.index)
    html += escapeHtml(plain)
    text += plain
    last = match.index + match[0].length
    const [, linkText, linkUrl, bold, italic, bare] = match
    if (linkText !== undefined && linkUrl !== undefined) {
      const inner = inline(linkText)
      html += `<a href="${escapeHtml(linkUrl)}">${inner.html}</a>`
      text += inner.text === linkUrl || `mailto:${inner.text}` === linkUrl ? inner.text : `${inner.text} (${linkUrl})`
    } else if (bold !== undefined) {
      const inner = inline(bold)
      html += `<strong>${inner.html}</strong>`
      text += inner.text
    } else if (italic !== undefined) {
      const inner = inline(italic)
      html += `<em>${inner.html}</em>`
      text += inner.text
    } else if (bare !== undefined) {
      html += `<a href="${escapeHtml(bare)}">${escapeHtml(bare)}</a>`
      text += bare
    }
  }
  const rest = source.slice(last)
  return { html: html + escapeHtml(rest), text: text + rest }
}

const BULLET = /^\s*[-*]\s+(.*)$/
const NUMBERED = /^\s*(\d+)[.)]\s+(.*)$/

type Block = { kind: 'p'; lines: string[] } | { kind: 'ul' | 'ol'; items: string[] }

function blocksOf(source: string): Block[] {
  const blocks: Block[] = []
  for (const line of source.replace(/\r\n?/g, '\n').split('\n')) {
    const bullet = BULLET.exec(line)
    const numbered = bullet === null ? NUMBERED.exec(line) : null
    const last = blocks.at(-1)
    if (bullet !== null || numbered !== null) {
      const kind = bullet === null ? 'ol' : 'ul'
      const item = bullet?.[1] ?? numbered?.[2] ?? ''
      if (last?.kind === kind) last.items.push(item)
      else blocks.push({ kind, items: [item] })
    } else if (line.trim() === '') {
      if (last !== undefined && !(last.kind === 'p' && last.lines.length === 0)) blocks.push({ kind: 'p', lines: [] })
    } else if (last?.kind === 'p') last.lines.push(line)
    else blocks.push({ kind: 'p', lines: [line] })
  }
  return blocks.filter((b) => b.kind !== 'p' || b.lines.length > 0)
}

/** The email's two parts from what the composer holds: HTML, and plain text without the formatting marks. */
export function emailBodyParts(source: string): { html: string; text: string } {
  const html: string[] = []
  const text: string[] = []
  for (const block of blocksOf(source)) {
    if (block.kind === 'p') {
      const lines = block.lines.map(inline)
      html.push(`<p>${lines.map((l) => l.html).join('<br>')}</p>`)
      text.push(lines.map((l) => l.text).join('\n'))
    } else {
      const items = block.items.map(inline)
      html.push(`<${block.kind}>${items.map((i) => `<li>${i.html}</li>`).join('')}</${block.kind}>`)
      text.push(items.map((i, n) => `${block.kind === 'ul' ? '-' : `${String(n + 1)}.`} ${i.text}`).join('\n'))
    }
  }
  return { html: html.join(''), text: text.join('\n\n') }
}

/** A textarea's value and selection, before or after a toolbar's edit. */
export interface TextEdit {
  value: string
  start: number
  end: number
}

/** Bold or italic around the selection (or around a placeholder word, selected, when nothing is selected). */
export function wrapSelection({ value, start, end }: TextEdit, marker: '**' | '_'): TextEdit {
  const selected = value.slice(start, end) || (marker === '**' ? 'bold text' : 'italic text')
  const next = value.slice(0, start) + marker + selected + marker + value.slice(end)
  return { value: next, start: start + marker.length, end: start + marker.length + selected.length }
}

/** The selection as a link's text, with the address selected to be typed over. */
export function linkSelection({ value, start, end }: TextEdit): TextEdit {
  const selected = value.slice(start, end) || 'link text'
  const url = 'https://'
  const next = `${value.slice(0, start)}[${selected}](${url})${value.slice(end)}`
  const urlStart = start + selected.length + 3
  return { value: next, start: urlStart, end: urlStart + url.length }
}

/** The selected lines as a bulleted list, or back to plain lines when they all are one already. */
export function listSelection({ value, start, end }: TextEdit): TextEdit {
  const from = value.lastIndexOf('\n', start - 1) + 1
  const newline = value.indexOf('\n', end > start && value[end - 1] === '\n' ? end - 1 : end)
  const to = newline === -1 ? value.length : newline
  const lines = value.slice(from, to).split('\n')
  const listed = lines.every((l) => BULLET.test(l))
  const changed = lines.map((l) => (listed ? l.replace(/^(\s*)[-*]\s+/, '$1') : `- ${l}`)).join('\n')
  return { value: value.slice(0, from) + changed + value.slice(to), start: from, end: from + changed.length }
}

const unescapes: Record<string, string> = { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"', '&#39;': "'" }

function fromHtml(html: string): string {
  return html
    .replace(/<a href="([^"]*)">(.*?)<\/a>/g, (_, url: string, text: string) =>
      url === text ? url : `[${text}](${url})`,
    )
    .replace(/<\/?strong>/g, '**')
    .replace(/<\/?em>/g, '_')
    .replace(/<ul>(.*?)<\/ul>/g, (_, items: string) => `${items.replace(/<li>(.*?)<\/li>/g, '- $1\n')}\n`)
    .replace(/<ol>(.*?)<\/ol>/g, (_, items: string) => {
      let n = 0
      return `${items.replace(/<li>(.*?)<\/li>/g, (__, item: string) => `${String(++n)}. ${item}\n`)}\n`
    })
    .replace(/<p>(.*?)<\/p>/g, '$1\n\n')
    .replace(/<br>/g, '\n')
    .replace(/&(?:amp|lt|gt|quot|#39);/g, (e) => unescapes[e] ?? e)
    .trim()
}

/**
 * What the composer holds for an email written before (a draft reopened, a rendered template): the formatting back
 * as marks when its HTML is what such marks write, else its plain text.
 */
export function composerSource(html: string, text: string): string {
  const source = fromHtml(html)
  return source !== '' && emailBodyParts(source).html === html ? source : text
}
