import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { htmlToText } from './html-text.js'
import { parsePart, renderPart } from './template-engine.js'

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
