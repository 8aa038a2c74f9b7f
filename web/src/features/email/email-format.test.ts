import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { composerSource, emailBodyParts, linkSelection, listSelection, wrapSelection } from './email-format'

describe('emailBodyParts', () => {
  it('writes paragraphs, line breaks, bold, italic, links and lists as HTML, and plain text without the marks', () => {
    const source = [
      'Hi **Ann**,',
      'see _our_ [price list](https://example.com/prices?a=1&b=2).',
      '',
      '- one',
      '- two',
      '',
      '1. first',
      '2. second',
      'More at https://example.com.',
    ].join('\n')
    expect(emailBodyParts(source)).toEqual({
      html:
        '<p>Hi <strong>Ann</strong>,<br>see <em>our</em> <a href="https://example.com/prices?a=1&amp;b=2">price list</a>.</p>' +
        '<ul><li>one</li><li>two</li></ul><ol><li>first</li><li>second</li></ol>' +
        '<p>More at <a href="https://example.com">https://example.com</a>.</p>',
      text:
        'Hi Ann,\nsee our price list (https://example.com/prices?a=1&b=2).\n\n- one\n- two\n\n1. first\n2. second\n\n' +
        'More at https://example.com.',
    })
  })

  it('escapes HTML and leaves links other than web and mail addresses as text', () => {
    expect(emailBodyParts('<b>5 > 3</b> & [x](javascript:alert(1)) snake_case_name').html).toBe(
      '<p>&lt;b&gt;5 &gt; 3&lt;/b&gt; &amp; [x](javascript:alert(1)) snake_case_name</p>',
    )
  })

  it('never lets a tag through, whatever is typed', () => {
    fc.assert(
      fc.property(fc.string(), (source) => {
        const tags = emailBodyParts(source).html.match(/<[^>]*>/g) ?? []
        for (const tag of tags) expect(tag).toMatch(/^<\/?(p|br|strong|em|ul|ol|li|a( href="[^"<>]*")?)>$/)
      }),
    )
  })
})

describe('composerSource', () => {
  it('gets the marks back from HTML the composer wrote, and falls back to the text otherwise', () => {
    const source = 'Hi **Ann** & _Bo_,\n\n- [prices](https://example.com/p)\n- https://example.com\n\n1. one'
    const { html, text } = emailBodyParts(source)
    expect(composerSource(html, text)).toBe(source)
    expect(composerSource('<div style="color:red">Hi</div>', 'Hi')).toBe('Hi')
    expect(composerSource('', '')).toBe('')
  })
})

describe('the toolbar', () => {
  it('wraps the selection in bold or italic marks and keeps it selected', () => {
    expect(wrapSelection({ value: 'say hi now', start: 4, end: 6 }, '**')).toEqual({
      value: 'say **hi** now',
      start: 6,
      end: 8,
    })
    expect(wrapSelection({ value: 'x', start: 1, end: 1 }, '_')).toEqual({ value: 'x_italic text_', start: 2, end: 13 })
  })

  it('makes the selection a link with its address selected', () => {
    const edit = linkSelection({ value: 'see prices', start: 4, end: 10 })
    expect(edit.value).toBe('see [prices](https://)')
    expect(edit.value.slice(edit.start, edit.end)).toBe('https://')
  })

  it('makes the selected lines a list, and a list plain lines again', () => {
    const listed = listSelection({ value: 'intro\none\ntwo\nend', start: 7, end: 12 })
    expect(listed).toEqual({ value: 'intro\n- one\n- two\nend', start: 6, end: 17 })
    expect(listSelection(listed).value).toBe('intro\none\ntwo\nend')
  })
})
