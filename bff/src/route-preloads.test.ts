import { utimesSync } from 'node:fs'
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, test } from 'vitest'
import { modulePreloadLinks, ROUTE_PRELOADS_FILE, RoutePreloads } from './route-preloads.js'
import { tempDir } from './test-support/harness.js'

let dir: Awaited<ReturnType<typeof tempDir>>

const LIST = {
  routes: [
    { path: '/leads/$leadId', files: ['assets/_app-1.js', 'assets/lead-2.js'] },
    { path: '/leads/import', files: ['assets/_app-1.js', 'assets/import-3.js'] },
    { path: '/leads', files: ['assets/_app-1.js', 'assets/leads-4.js'] },
    { path: '/sign-in', files: ['assets/sign-in-5.js'] },
  ],
}

async function writeList(list: unknown, mtime = new Date()): Promise<void> {
  const file = join(dir.path, ROUTE_PRELOADS_FILE)
  await writeFile(file, typeof list === 'string' ? list : JSON.stringify(list))
  utimesSync(file, mtime, mtime)
}

beforeEach(async () => {
  dir = await tempDir()
})

afterEach(async () => {
  await dir.remove()
})

describe('RoutePreloads', () => {
  test('finds a screen by its path: its own before a pattern, a parameter for one segment', async () => {
    await writeList(LIST)
    const preloads = new RoutePreloads(dir.path)
    expect(preloads.filesFor('/leads/lead_abc')).toEqual(['assets/_app-1.js', 'assets/lead-2.js'])
    expect(preloads.filesFor('/leads/import')).toEqual(['assets/_app-1.js', 'assets/import-3.js'])
    expect(preloads.filesFor('/leads')).toEqual(['assets/_app-1.js', 'assets/leads-4.js'])
    expect(preloads.filesFor('/leads/')).toEqual(['assets/_app-1.js', 'assets/leads-4.js'])
    expect(preloads.filesFor('/leads/lead_abc/more')).toEqual([])
    expect(preloads.filesFor('/nowhere')).toEqual([])
    expect(preloads.filesFor('/')).toEqual([])
  })

  test('reads the list again after a rebuild, and none while there is none or it does not read', async () => {
    // Looked at on every call here (the BFF's own looks once a second: build-file.ts).
    const preloads = new RoutePreloads(dir.path, { checkMs: 0 })
    expect(preloads.filesFor('/sign-in')).toEqual([])
    await writeList(LIST, new Date('2026-01-01T00:00:00Z'))
    expect(preloads.filesFor('/sign-in')).toEqual(['assets/sign-in-5.js'])
    await writeList(
      { routes: [{ path: '/sign-in', files: ['assets/sign-in-6.js'] }] },
      new Date('2026-01-02T00:00:00Z'),
    )
    expect(preloads.filesFor('/sign-in')).toEqual(['assets/sign-in-6.js'])
    await writeList('{"routes": [', new Date('2026-01-03T00:00:00Z'))
    expect(preloads.filesFor('/sign-in')).toEqual([])
  })

  test('only the build’s own chunk names reach the page', async () => {
    await writeList({
      routes: [
        {
          path: '/leads',
          files: ['assets/ok-1.js', '"><script>alert(1)</script>', '/etc/passwd', 'assets/../x.js', 'assets/a b.js', 7],
        },
        { path: '/<b>', files: ['assets/b-2.js'] },
        { path: 'relative', files: ['assets/c-3.js'] },
      ],
    })
    const preloads = new RoutePreloads(dir.path)
    expect(preloads.filesFor('/leads')).toEqual(['assets/ok-1.js'])
    expect(preloads.filesFor('/<b>')).toEqual([])
    expect(preloads.filesFor('/relative')).toEqual([])
  })

  test('a list past its size limit is not read', async () => {
    await writeList({ routes: [{ path: '/x', files: ['assets/x-1.js'] }], padding: 'p'.repeat(1024 * 1024) })
    expect(new RoutePreloads(dir.path).filesFor('/x')).toEqual([])
  })
})

test('modulePreloadLinks writes what Vite writes for index.html', () => {
  expect(modulePreloadLinks(['assets/a-1.js', 'assets/b-2.js'])).toBe(
    '<link rel="modulepreload" crossorigin href="/assets/a-1.js"><link rel="modulepreload" crossorigin href="/assets/b-2.js">',
  )
})
