import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { runCli } from '../../tooling/test-support/api-process.js'
import { createTestDatabase, type TestDatabase } from '../../tooling/test-support/test-app.js'

// Postgres only: without pg_dump on the PATH, `leadline backup` says the command to run and writes nothing.

let database: TestDatabase
let dir: string

beforeAll(async () => {
  database = await createTestDatabase()
  dir = mkdtempSync(join(tmpdir(), 'leadline-backup-pg-'))
})

afterAll(async () => {
  await database.drop()
  rmSync(dir, { recursive: true, force: true })
})

it('says the pg_dump command to run when pg_dump is not installed, without the password', async () => {
  const file = join(dir, 'no-tool.backup')
  const url = new URL(database.url)
  url.password = 'not-on-the-command-line'
  const result = await runCli(['backup', file, '--db', url.toString()], { PATH: join(dir, 'nothing-here') })
  expect(result.code).toBe(1)
  expect(result.stderr).toContain('pg_dump is not installed; run instead:')
  expect(result.stderr).toContain(`--file=${file}`)
  expect(result.stderr).not.toContain('not-on-the-command-line')
  expect(existsSync(file)).toBe(false)
  expect(existsSync(`${file}.partial`)).toBe(false)
})
