import { describe, expect, it } from 'vitest'
import { pathologicalHtml } from '../../tooling/test-support/pathological-html.js'
import { parseAddress, quotedHtml, quotedText } from './email-text.js'
import { isEmail } from './text.js'

describe('quotedHtml', () => {
  it('splits at the attribution above the first quote, or at the quote', () => {
    expect(quotedHtml('<p>Thanks!</p><p>On Monday, Ann wrote:</p>\n<blockquote>Hi</blockquote>')).toEqual([
      { html: '<p>Thanks!</p><p>', expand: true },
      { html: 'On Monday, Ann wrote:</p>\n<blockquote>Hi</blockquote>', expand: false },
    ])
    expect(
      quotedHtml(
        'Sure.<br>On Mon, 3 Feb 2025 at 10:00, Ann &lt;ann@a.example&gt; wrote:<br><blockquote>Hi</blockquote>',
      ),
    ).toEqual([
      { html: 'Sure.<br>', expand: true },
      {
        html: 'On Mon, 3 Feb 2025 at 10:00, Ann &lt;ann@a.example&gt; wrote:<br><blockquote>Hi</blockquote>',
        expand: false,
      },
    ])
    expect(quotedHtml('<p>Sure.</p><p>Lemon wrote: this</p><blockquote>Hi</blockquote>')).toEqual([
      { html: '<p>Sure.</p><p>Lemon wrote: this</p>', expand: true },
      { html: '<blockquote>Hi</blockquote>', expand: false },
    ])
  })

  it('keeps the whole body when nothing but the quote has text, or there is no quote', () => {
    expect(quotedHtml('<p>On Monday, Ann wrote:</p><blockquote>Hi</blockquote>')).toEqual([
      { html: '<p>On Monday, Ann wrote:</p><blockquote>Hi</blockquote>', expand: true },
    ])
    expect(quotedHtml('<div> <br></div><blockquote>Hi</blockquote>')).toHaveLength(1)
    expect(quotedHtml('<p>Hi</p><!-- <blockquote> -->')).toEqual([
      { html: '<p>Hi</p><!-- <blockquote> -->', expand: true },
    ])
  })

  it.each(Object.entries(pathologicalHtml(1_000_000)))('reads 1 MB of %s in under a second', (_name, html) => {
    const started = performance.now()
    quotedHtml(html)
    expect(performance.now() - started).toBeLessThan(1_000)
  })
})

describe('quotedText', () => {
  it('splits at the attribution above the first quoted line', () => {
    expect(quotedText('Yes!\n\nOn Monday, Rey wrote:\r\n> Any news?')).toEqual([
      { text: 'Yes!\n', expand: true },
      { text: 'On Monday, Rey wrote:\r\n> Any news?', expand: false },
    ])
  })

  it.each([
    ['"On" without "wrote:"', 'Hi\n' + 'On '.repeat(333_333) + '\n> x'],
    ['spaces', 'Hi\n' + ' '.repeat(1_000_000) + 'x\n> x'],
    ['"wrote:" without "On"', 'Hi\n' + 'wrote: '.repeat(142_857) + '\n> x'],
  ])('reads 1 MB of %s in under a second', (_name, text) => {
    const started = performance.now()
    quotedText(text)
    expect(performance.now() - started).toBeLessThan(1_000)
  })
})

describe('parseAddress', () => {
  it('reads an address, and refuses 1 MB of dots and a space after the @ in under a second', () => {
    expect(parseAddress('"Ann" <ann@a.example>')).toEqual({ email: 'ann@a.example', name: 'Ann' })
    expect(parseAddress('ann@a.')).toBeUndefined()
    expect(parseAddress('ann@.a')).toBeUndefined()
    expect(parseAddress('ann@a..b')).toEqual({ email: 'ann@a..b', name: '' })
    const started = performance.now()
    expect(isEmail(`a@${'.'.repeat(1_000_000)} `)).toBe(false)
    expect(performance.now() - started).toBeLessThan(1_000)
  })
})
