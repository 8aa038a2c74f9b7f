import { randomBytes } from 'node:crypto'
import { join } from 'node:path'
import { BuildFile, type BuildFileOptions } from './build-file.js'

// A signed-in page's styles (decision 0092). The app's stylesheet is written into the page rather than linked from
// it: a page that carries its screen drawn by the server is then painted as soon as it has arrived, where a linked
// stylesheet, fetched beside the app's modules, arrived with them, and the browser ran the modules before it painted
// anything. The page's policy lets in the `<style>` elements that carry this page's nonce, and no other: the sheet,
// and those React Aria adds as it runs (it reads the nonce from the `csp-nonce` meta element), which the policy
// refused before.

/** The build's one stylesheet link in index.html (the build's own file, never a request's text). */
const STYLESHEET_LINK = /<link rel="stylesheet"[^>]*? href="\/assets\/([A-Za-z0-9_.-]{1,200}\.css)"[^>]*>/

/** A larger stylesheet stays linked: every page would carry it. The build's is some 40 kB (7 kB compressed). */
export const INLINE_STYLESHEET_MAX_BYTES = 256 * 1024

/** A new nonce for one page: 128 random bits, as CSP asks. */
export function styleNonce(): string {
  return randomBytes(16).toString('base64')
}

/** The security policy's rule for styles: the site's own files, and the page's `<style>` elements with `nonce`. */
export function styleRuleFor(nonce: string): string {
  return `style-src 'self' 'nonce-${nonce}'`
}

/** Reads the stylesheet when the build changes it; one at a time is kept. */
export class PageStylesheet {
  private kept: BuildFile<string> | undefined

  constructor(
    private readonly webDist: string,
    private readonly options: Omit<BuildFileOptions, 'maxBytes'> = {},
  ) {}

  /**
   * `html` with the nonce's meta element and its stylesheet link replaced by the sheet itself, under `nonce` (a
   * sheet that cannot be inlined stays linked). Serve it under `styleRuleFor(nonce)`.
   */
  withStyles(html: string, nonce: string): string {
    const link = STYLESHEET_LINK.exec(html)
    const css = link?.[1] === undefined ? undefined : this.sheet(link[1])
    const inlined =
      link === null || css === undefined
        ? html
        : html.slice(0, link.index) + `<style nonce="${nonce}">${css}</style>` + html.slice(link.index + link[0].length)
    const meta = `<meta property="csp-nonce" nonce="${nonce}">`
    const head = inlined.indexOf('</head>')
    return head === -1 ? meta + inlined : inlined.slice(0, head) + meta + inlined.slice(head)
  }

  private sheet(name: string): string | undefined {
    const file = join(this.webDist, 'assets', name)
    if (this.kept?.path !== file) {
      // A sheet that could end the element it is written in stays linked.
      const inlinable = (css: string) => (css.toLowerCase().includes('</style') ? undefined : css)
      this.kept = new BuildFile(file, inlinable, { ...this.options, maxBytes: INLINE_STYLESHEET_MAX_BYTES })
    }
    return this.kept.get()
  }
}
