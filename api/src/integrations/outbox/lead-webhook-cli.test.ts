import { execFile } from 'node:child_process'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { cliPath } from '../../tooling/test-support/api-process.js'
import { createTestDatabase, type TestDatabase } from '../../tooling/test-support/test-app.js'

// `leadline lead-webhook …` as an operator runs it: the built CLI in its own process, on the suite's database.

let testDb: TestDatabase

beforeAll(async () => {
  testDb = await createTestDatabase()
})

afterAll(async () => {
  await testDb.drop()
})

function leadline(
  args: string[],
  env: NodeJS.ProcessEnv = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  const childEnv: NodeJS.ProcessEnv = { ...process.env, ...env }
  if (env.LEADLINE_LEAD_WEBHOOK_URL === undefined) delete childEnv.LEADLINE_LEAD_WEBHOOK_URL
  return new Promise((resolve) => {
    execFile(process.execPath, [cliPath, ...args, '--db', testDb.url], { env: childEnv }, (error, stdout, stderr) => {
      resolve({ code: error === null ? 0 : Number(error.code), stdout, stderr })
    })
  })
}

async function json(args: string[], env: NodeJS.ProcessEnv = {}): Promise<unknown> {
  const result = await leadline([...args, '--json'], env)
  expect(result.code, result.stderr).toBe(0)
  return JSON.parse(result.stdout) as unknown
}

const fromEnv = { LEADLINE_LEAD_WEBHOOK_URL: 'https://env.example.com/leads' }

// Each run starts a process that loads the whole api: seconds apiece on a busy machine.
describe('leadline lead-webhook', { timeout: 120_000 }, () => {
  it('stores a URL that wins over the environment’s, clears it (also over the environment), and resets to it', async () => {
    expect(await json(['lead-webhook', 'show'])).toEqual({ url: null, source: 'none', signature_key: null })
    expect(await json(['lead-webhook', 'show'], fromEnv)).toMatchObject({
      url: fromEnv.LEADLINE_LEAD_WEBHOOK_URL,
      source: 'env',
    })

    const set = await json(['lead-webhook', 'set', 'https://hooks.example.com/leads?team=1'], fromEnv)
    expect(set).toEqual({
      url: 'https://hooks.example.com/leads?team=1',
      source: 'cli',
      signature_key: expect.stringMatching(/^[0-9a-f]{64}$/),
    })
    const shown = await json(['lead-webhook', 'show'], fromEnv)
    expect(shown).toEqual(set)

    expect(await json(['lead-webhook', 'clear'], fromEnv)).toEqual({ url: null, source: 'cli', signature_key: null })
    expect(await json(['lead-webhook', 'show'], fromEnv)).toEqual({ url: null, source: 'cli', signature_key: null })

    const reset = await json(['lead-webhook', 'reset'], fromEnv)
    // The key made for the first URL stays the installation's.
    expect(reset).toEqual({
      url: fromEnv.LEADLINE_LEAD_WEBHOOK_URL,
      source: 'env',
      signature_key: (set as { signature_key: string }).signature_key,
    })
    expect(await json(['lead-webhook', 'show'])).toEqual({ url: null, source: 'none', signature_key: null })
  })

  it('prints where lead changes go, and the Standard Webhooks secret, for a person to read', async () => {
    const result = await leadline(['lead-webhook', 'set', 'https://hooks.example.com/in'])
    expect(result.code, result.stderr).toBe(0)
    expect(result.stdout).toContain('Lead changes are posted to https://hooks.example.com/in')
    expect(result.stdout).toMatch(/as a Standard Webhooks secret: whsec_[A-Za-z0-9+/]{43}=/)
    await leadline(['lead-webhook', 'reset'])
  })

  it.each([
    [['lead-webhook', 'set'], 'missing required option URL'],
    [['lead-webhook', 'set', 'hooks.example.com'], 'the lead webhook URL: Enter a valid URL.'],
    [['lead-webhook', 'set', 'http://hooks.example.com/'], 'the lead webhook URL: Must be an https:// URL.'],
    [['lead-webhook', 'set', 'https://user:pw@hooks.example.com/'], 'Must not carry a user name or password.'],
    [['lead-webhook', 'set', 'https://169.254.169.254/'], 'Must not point to a loopback, private, link-local'],
    [['lead-webhook', 'set', 'https://a.example.com/', 'https://b.example.com/'], 'unexpected argument'],
  ])('refuses %j with exit code 2', async (args, message) => {
    const result = await leadline(args)
    expect(result.code).toBe(2)
    expect(result.stderr).toContain(message)
  })

  it('refuses a bad LEADLINE_LEAD_WEBHOOK_URL', async () => {
    const result = await leadline(['lead-webhook', 'show'], { LEADLINE_LEAD_WEBHOOK_URL: 'nowhere' })
    expect(result.code).toBe(2)
    expect(result.stderr).toContain('LEADLINE_LEAD_WEBHOOK_URL: Enter a valid URL.')
    // Plain http, and this machine, only when private addresses are allowed (development and tests).
    const local = { LEADLINE_LEAD_WEBHOOK_URL: 'http://localhost:9999/leads', LEADLINE_OUTBOUND_ALLOW_PRIVATE: '1' }
    expect(await json(['lead-webhook', 'show'], local)).toMatchObject({
      url: local.LEADLINE_LEAD_WEBHOOK_URL,
      source: 'env',
    })
  })
})
