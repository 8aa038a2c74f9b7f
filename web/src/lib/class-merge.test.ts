import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import fc from 'fast-check'
import { twMerge as fullMerge } from 'tailwind-merge'
import { describe, expect, it } from 'vitest'
import { twMerge } from './class-merge'

/**
 * Every class-like word in the app's source (the configuration's own group names aside): the vocabulary the app's
 * configuration must merge as the full one does.
 */
function classesInSource(): string[] {
  const root = join(import.meta.dirname, '..')
  const words = new Set<string>()
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name)
      if (entry.isDirectory()) walk(path)
      else if (/\.tsx?$/.test(entry.name) && !/\.test\.|routeTree|class-merge/.test(entry.name)) {
        // Comments aside: an apostrophe in one is not a string.
        const source = readFileSync(path, 'utf8')
          .replace(/\/\*[\s\S]*?\*\//g, '')
          .replace(/(^|\s)\/\/[^\n]*/g, '$1')
        for (const literal of source.matchAll(/(['"`])((?:(?!\1)[^\\\n$])*)\1/g)) {
          for (const word of (literal[2] ?? '').split(/\s+/)) {
            if (/^[a-z[!-][\w:[\]/.\-!&>=()*%#,']*$/.test(word) && /[a-z]/.test(word)) words.add(word)
          }
        }
      }
    }
  }
  walk(root)
  return [...words].sort()
}

const vocabulary = classesInSource()

describe('twMerge (the app’s configuration)', () => {
  it('finds the classes the app writes', () => {
    expect(vocabulary.length).toBeGreaterThan(200)
    expect(vocabulary).toContain('px-3')
    expect(vocabulary).toContain('focus-visible:ring-2')
  })

  // Every pair of the words is hundreds of thousands of merges: seconds, and more with each screen's words.
  it('merges every pair of them as the full configuration does', () => {
    const differences: string[] = []
    for (const a of vocabulary) {
      for (const b of vocabulary) {
        const classes = `${a} ${b}`
        const slim = twMerge(classes)
        const full = fullMerge(classes)
        if (slim !== full) differences.push(`${classes} → ${slim} (full: ${full})`)
      }
    }
    expect(differences.slice(0, 20)).toEqual([])
  }, 30_000)

  it('merges longer lists of them as the full configuration does', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...vocabulary), { minLength: 2, maxLength: 8 }), (classes) => {
        expect(twMerge(...classes)).toBe(fullMerge(...classes))
      }),
      { numRuns: 3000 },
    )
  })
})
