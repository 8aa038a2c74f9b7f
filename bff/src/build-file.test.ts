import { utimesSync } from 'node:fs'
import { rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, test } from 'vitest'
import { BuildFile } from './build-file.js'
import { tempDir } from './test-support/harness.js'

let dir: Awaited<ReturnType<typeof tempDir>>
let file: string

async function write(text: string, mtime: Date): Promise<void> {
  await writeFile(file, text)
  utimesSync(file, mtime, mtime)
}

beforeEach(async () => {
  dir = await tempDir()
  file = join(dir.path, 'index.html')
})

afterEach(async () => {
  await dir.remove()
})

describe('BuildFile', () => {
  test('looks at the file once a period, and reads it again only when the build rewrote it', async () => {
    let now = 0
    let parsed = 0
    const page = new BuildFile(
      file,
      (text) => {
        parsed += 1
        return text.toUpperCase()
      },
      { checkMs: 1000, now: () => now },
    )
    expect(page.get()).toBeUndefined()
    await write('first', new Date('2026-01-01T00:00:00Z'))
    // Within the period the answer stands, the file unseen.
    now = 999
    expect(page.get()).toBeUndefined()
    now = 1000
    expect(page.get()).toBe('FIRST')
    now = 5000
    expect(page.get()).toBe('FIRST')
    expect(parsed).toBe(1)
    await write('second', new Date('2026-01-02T00:00:00Z'))
    now = 5500
    expect(page.get()).toBe('FIRST')
    now = 6000
    expect(page.get()).toBe('SECOND')
    // Rewritten within the same second (same time, another length): read again too.
    await write('the third', new Date('2026-01-02T00:00:00Z'))
    now = 7000
    expect(page.get()).toBe('THE THIRD')
    expect(parsed).toBe(3)
    await rm(file)
    now = 8000
    expect(page.get()).toBeUndefined()
  })

  test('takes a file over its limit, or one its reader refuses, as none', async () => {
    const page = new BuildFile(file, (text) => (text.startsWith('{') ? text : undefined), { checkMs: 0, maxBytes: 8 })
    await write('{"a":1}', new Date('2026-01-01T00:00:00Z'))
    expect(page.get()).toBe('{"a":1}')
    await write('{"a":12345}', new Date('2026-01-02T00:00:00Z'))
    expect(page.get()).toBeUndefined()
    await write('nope', new Date('2026-01-03T00:00:00Z'))
    expect(page.get()).toBeUndefined()
    const throwing = new BuildFile<string>(file, () => {
      throw new SyntaxError('cut short')
    })
    expect(throwing.get()).toBeUndefined()
  })
})
