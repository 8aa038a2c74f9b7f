import { execFile } from 'node:child_process'
import process from 'node:process'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'

const apiDir = fileURLToPath(new URL('../../../', import.meta.url))

describe('the generated search parsers', () => {
  it('are what their grammars generate, so a grammar change cannot ship without its parser', async () => {
    const run = promisify(execFile)(process.execPath, ['scripts/build-grammars.mjs', '--check'], { cwd: apiDir })
    await expect(run).resolves.toMatchObject({ stderr: '' })
  })
})
