import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'

// `leadline`'s entry point decides whether a large seed starts again before it loads the commands (a second of
// modules the first start would load for nothing): it imports the restart's module alone, and that module nothing of
// the app's.

/** The modules a file imports statically: `import … from '…'` over one line or several, and `import '…'`. */
const staticImports = (file: string) =>
  [...readFileSync(new URL(file, import.meta.url), 'utf8').matchAll(/^import\s[^']*'([^']+)'/gm)].map(
    (match) => match[1],
  )

describe("the CLI's entry point", () => {
  it('loads the commands only after deciding whether a large seed starts again', () => {
    expect(staticImports('./cli.ts')).toEqual(['./huge-pages.js'])
    expect(staticImports('./huge-pages.ts').every((name) => name?.startsWith('node:'))).toBe(true)
    expect(readFileSync(new URL('./cli.ts', import.meta.url), 'utf8')).toContain("import('./cli-program.js')")
  })
})
