import { readFileSync, statSync } from 'node:fs'

/** How often a build file is looked at again: a rebuild while the BFF runs is in its pages within this. */
export const BUILD_FILE_CHECK_MS = 1000

export interface BuildFileOptions {
  /** A larger file is taken as none. */
  maxBytes?: number
  /** How long what was read stands before the file is looked at again (BUILD_FILE_CHECK_MS). */
  checkMs?: number
  /** Milliseconds on a clock that only goes forward (tests). */
  now?: () => number
}

/**
 * A file of the web app's build that the BFF makes signed-in pages from (index.html, the stylesheet, the routes'
 * preloads), read again only when the build rewrote it, and looked at no more than once every `checkMs`: each page
 * made its own `stat` of each file before, three system calls a page for files that change once a deployment. `parse`
 * makes what is kept from the text (undefined for a file it cannot use); a missing file, or one over `maxBytes`, is
 * undefined.
 */
export class BuildFile<T> {
  #kept: { mtimeMs: number; size: number; value: T | undefined } | undefined
  #checkedAt: number | undefined
  readonly #maxBytes: number
  readonly #checkMs: number
  readonly #now: () => number

  constructor(
    readonly path: string,
    private readonly parse: (text: string) => T | undefined,
    options: BuildFileOptions = {},
  ) {
    this.#maxBytes = options.maxBytes ?? Number.POSITIVE_INFINITY
    this.#checkMs = options.checkMs ?? BUILD_FILE_CHECK_MS
    this.#now = options.now ?? (() => performance.now())
  }

  /** What the file holds now, as `parse` made it (undefined when there is no file to use). */
  get(): T | undefined {
    const now = this.#now()
    if (this.#checkedAt !== undefined && now - this.#checkedAt < this.#checkMs) return this.#kept?.value
    this.#checkedAt = now
    const stat = statSync(this.path, { throwIfNoEntry: false })
    if (stat === undefined || !stat.isFile() || stat.size > this.#maxBytes) {
      this.#kept = undefined
      return undefined
    }
    if (this.#kept?.mtimeMs !== stat.mtimeMs || this.#kept.size !== stat.size) {
      let value: T | undefined
      try {
        value = this.parse(readFileSync(this.path, 'utf8'))
      } catch {
        // Gone between the two calls, or cut short by a build in progress: none until it is whole.
      }
      this.#kept = { mtimeMs: stat.mtimeMs, size: stat.size, value }
    }
    return this.#kept.value
  }
}
