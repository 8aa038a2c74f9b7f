import { createHash } from 'node:crypto'
import { readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'

// The app's stylesheet written into a signed-in page rather than linked from it (decision 0092): a page that carries
// its screen drawn by the server is painted as soon as it has arrived, where a linked stylesheet, fetched beside the
// app's modules, arrived with them, and the browser ran the modules before it painted anything.

/** The build's one stylesheet link in index.html (the build's own file, never a request's text). */
const STYLESHEET_LINK = /<link rel="stylesheet"[^>]*? href="\/assets\/([A-Za-z0-9_.-]{1,200}\.css)"[^>]*>/

/** A larger stylesheet stays linked: every page would carry it. The build's is some 40 kB (7 kB compressed). */
export const INLINE_STYLESHEET_MAX_BYTES = 256 * 1024

/** The security policy's rule for styles that lets exactly `css` in as a `<style>` element, and no other. */
export function styleRuleFor(css: string): string {
  return `style-src 'self' 'sha256-${createHash('sha256').update(css).digest('base64')}'`
}

export interface InlinedStylesheet {
  html: string
  /** The `style-src` rule the page's Content-Security-Policy needs for it. */
  styleRule: string
}

/** Reads the stylesheet when the build changes it; one at a time is kept. */
export class PageStylesheet {
  private kept: { name: string; mtimeMs: number; css: string; styleRule: string } | undefined

  constructor(private readonly webDist: string) {}

  /** `html` with its stylesheet link replaced by the sheet itself, or undefined to leave the page as it is. */
  inline(html: string): InlinedStylesheet | undefined {
    const link = STYLESHEET_LINK.exec(html)
    const name = link?.[1]
    if (link === null || name === undefined) return undefined
    const sheet = this.sheet(name)
    if (sheet === undefined) return undefined
    const style = `<style>${sheet.css}</style>`
    return {
      html: html.slice(0, link.index) + style + html.slice(link.index + link[0].length),
      styleRule: sheet.styleRule,
    }
  }

  private sheet(name: string): { css: string; styleRule: string } | undefined {
    const file = join(this.webDist, 'assets', name)
    const stat = statSync(file, { throwIfNoEntry: false })
    if (stat === undefined || !stat.isFile() || stat.size > INLINE_STYLESHEET_MAX_BYTES) return undefined
    if (this.kept?.name !== name || this.kept.mtimeMs !== stat.mtimeMs) {
      const css = readFileSync(file, 'utf8')
      // A sheet that could end the element it is written in stays linked.
      if (css.toLowerCase().includes('</style')) return undefined
      this.kept = { name, mtimeMs: stat.mtimeMs, css, styleRule: styleRuleFor(css) }
    }
    return this.kept
  }
}
