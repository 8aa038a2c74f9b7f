import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { pathologicalHtml } from '../../tooling/test-support/pathological-html.js'
import { htmlToText } from './html-text.js'
import { parsePart, renderPart } from '../../email/templates/template-engine.js'

describe('htmlToText', () => {
  it('turns blocks into lines and paragraphs, collapses whitespace and decodes entities once', () => {
    const html = `<html><head><title>Hi</title><style>p { color: red }</style></head><body>
      <h1>Hello&nbsp;there</h1>
      <p>Line one<br>line   two<br/>
         line three</p>
      <!-- a note -->
      <div>Tom &amp; &quot;Jerry&quot; &lt;b&gt;bold&lt;/b&gt; &amp;amp;</div>
      <ul><li>First</li><li>Second <b>item</b></li></ul>
      <script>alert("x")</script>
      <p>Book <a href="https://cal.example/x?a=1&amp;b=2">a call</a>, or mail <a href="mailto:a@b.example">me</a>, see <a href='https://acme.example'>https://acme.example</a></p>
      <table><tr><td>a</td><td>b</td></tr><tr><th>c</th><td>d</td></tr></table>
    </body></html>`
    expect(htmlToText(html)).toBe(
      [
        'Hello\u00a0there',
        '',
        'Line one',
        'line two',
        'line three',
        '',
        'Tom & "Jerry" <b>bold</b> &amp;',
        '',
        '- First',
        '- Second item',
        '',
        'Book a call (https://cal.example/x?a=1&b=2), or mail me, see https://acme.example',
        '',
        'a b',
        'c d',
      ].join('\n'),
    )
  })

  it('keeps text that only looks like markup, and plain text as it is', () => {
    expect(htmlToText('a < b and c > d, 1<2')).toBe('a < b and c > d, 1<2')
    expect(htmlToText('Just text')).toBe('Just text')
    expect(htmlToText('')).toBe('')
  })
})

describe('escaping in the HTML body', () => {
  const parsed = parsePart('body', '<p>Hi {{ contact.name }}!</p>')
  const render = (name: string) => renderPart('body', parsed, { contact: { name } })

  it('never lets a value make a tag, and the plain text shows the value as it is', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ unit: 'grapheme' }),
          fc.string({ unit: fc.constantFrom('<', '>', '&', '"', "'", '/', 'b', ' ', ';', '#', '\n', 'amp', 'lt') }),
        ),
        (name) => {
          const html = render(name)
          expect(html.startsWith('<p>Hi ')).toBe(true)
          expect(html.endsWith('!</p>')).toBe(true)
          const value = html.slice('<p>Hi '.length, -'!</p>'.length)
          expect(value).not.toMatch(/[<>"']/)
          expect(htmlToText(html)).toBe(`Hi ${name}!`.replace(/\s+/g, ' '))
        },
      ),
    )
  })
})

describe('htmlToText on hostile HTML', () => {
  it.each(Object.entries(pathologicalHtml(1_000_000)))('reads 1 MB of %s in under a second', (_name, html) => {
    const started = performance.now()
    htmlToText(html)
    expect(performance.now() - started).toBeLessThan(1_000)
  })

  it('drops the head, scripts, styles and comments, also when the HTML leaves them open', () => {
    expect(htmlToText('<head><meta charset="utf-8"><title>T</title><p>Shown')).toBe('Shown')
    expect(htmlToText('Before<script>alert(1)')).toBe('Before')
    expect(htmlToText('a<!-- b')).toBe('a')
    expect(htmlToText('<!DOCTYPE html><p>x</p>')).toBe('x')
  })

  const word = fc.stringMatching(/^[a-z]{1,8}$/).map((w) => ({ html: w, words: [w] }))
  const tagName = fc.constantFrom('p', 'div', 'b', 'i', 'span', 'li', 'td', 'h1', 'a', 'blockquote', 'em')
  const attribute = fc
    .tuple(
      fc.constantFrom('class', 'title', 'href', 'data-x'),
      fc.string({ unit: fc.constantFrom('a', '<', '>', "'", ' ', '=', '"') }),
    )
    .map(([name, value]) => ` ${name}="${value.replaceAll('"', '&quot;')}"`)
  /** Well-formed HTML and the words of its text, in order. */
  const { tree } = fc.letrec<{ tree: { html: string; words: string[] } }>((tie) => ({
    tree: fc.oneof(
      { depthSize: 'small' },
      word,
      fc
        .tuple(tagName, fc.array(attribute, { maxLength: 2 }), fc.array(tie('tree'), { maxLength: 4 }))
        .map(([name, attributes, children]) => ({
          html: `<${name}${attributes.join('')}>${children.map((c) => c.html).join(' ')}</${name}>`,
          words: children.flatMap((c) => c.words),
        })),
    ),
  }))

  it('gives well-formed HTML as its words, without a tag or a bracket', () => {
    fc.assert(
      fc.property(tree, ({ html, words }) => {
        const text = htmlToText(html)
        expect(text).not.toMatch(/[<>]/)
        expect(text.split(/[^a-z]+/).filter((w) => w !== '')).toEqual(words)
      }),
      { seed: 27, numRuns: 300 },
    )
  })
})
