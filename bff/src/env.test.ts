import { readFile, stat } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach, beforeEach, describe, expect, test } from 'vitest'
import { loadBffConfig, parseSecret } from './env.js'
import { tempDir } from './test-support/harness.js'

let dir: Awaited<ReturnType<typeof tempDir>>
beforeEach(async () => {
  dir = await tempDir()
})
afterEach(async () => {
  await dir.remove()
})

describe('loadBffConfig', () => {
  test('defaults', () => {
    const config = loadBffConfig({}, dir.path)
    expect(config).toMatchObject({
      port: 3000,
      host: '127.0.0.1',
      apiUrl: 'http://127.0.0.1:4000',
      dataDir: join(dir.path, 'data'),
      insecureCookies: false,
      sessionIdleMs: 720 * 60_000,
      demoSeedFile: undefined,
      logLevel: 'info',
    })
    expect(config.webDist).toBe(fileURLToPath(new URL('../../web/dist', import.meta.url)))
    expect(config.secret).toHaveLength(32)
  })

  test('generates the secret once, mode 0600, and reuses it', async () => {
    const first = loadBffConfig({ LEADLINE_BFF_DATA_DIR: 'state' }, dir.path)
    const file = join(dir.path, 'state', 'bff-secret')
    expect((await stat(file)).mode & 0o777).toBe(0o600)
    expect((await readFile(file, 'utf8')).trim()).toBe(first.secret.toString('hex'))
    expect(loadBffConfig({ LEADLINE_BFF_DATA_DIR: 'state' }, dir.path).secret.equals(first.secret)).toBe(true)
  })

  test('reads every variable', () => {
    const hex = 'ab'.repeat(32)
    const config = loadBffConfig(
      {
        PORT: '3100',
        HOST: '0.0.0.0',
        LEADLINE_API_URL: 'http://api.internal:4100',
        LEADLINE_BFF_SECRET: hex,
        LEADLINE_BFF_INSECURE_COOKIES: '1',
        LEADLINE_SESSION_IDLE_MINUTES: '15',
        LEADLINE_DEMO_SEED_FILE: 'data/demo-seed.json',
        LEADLINE_WEB_DIST: '/srv/web',
        LOG_LEVEL: 'warn',
      },
      dir.path,
    )
    expect(config).toMatchObject({
      port: 3100,
      host: '0.0.0.0',
      apiUrl: 'http://api.internal:4100',
      insecureCookies: true,
      sessionIdleMs: 15 * 60_000,
      demoSeedFile: join(dir.path, 'data', 'demo-seed.json'),
      webDist: '/srv/web',
      logLevel: 'warn',
    })
    expect(config.secret.toString('hex')).toBe(hex)
  })

  test.each([
    [{ PORT: 'eighty' }, /PORT/],
    [{ LEADLINE_API_URL: 'ftp://x' }, /LEADLINE_API_URL/],
    [{ LEADLINE_API_URL: 'not a url' }, /LEADLINE_API_URL/],
    [{ LEADLINE_API_URL: 'http://api:4000/api/v1' }, /origin only/],
    [{ LEADLINE_BFF_SECRET: 'short' }, /LEADLINE_BFF_SECRET must be 32 random bytes/],
    [{ LEADLINE_BFF_INSECURE_COOKIES: 'yes' }, /LEADLINE_BFF_INSECURE_COOKIES/],
    [{ LEADLINE_SESSION_IDLE_MINUTES: '0' }, /LEADLINE_SESSION_IDLE_MINUTES/],
    [{ LEADLINE_SESSION_IDLE_MINUTES: '1.5' }, /LEADLINE_SESSION_IDLE_MINUTES/],
    [{ LOG_LEVEL: 'loud' }, /LOG_LEVEL/],
  ])('refuses %j', (env, message) => {
    expect(() => loadBffConfig({ LEADLINE_BFF_SECRET: 'cd'.repeat(32), ...env }, dir.path)).toThrow(message)
  })

  test('secrets in hex, base64 and base64url', () => {
    const bytes = Buffer.alloc(32, 0xfb)
    for (const text of [bytes.toString('hex'), bytes.toString('base64'), bytes.toString('base64url')])
      expect(parseSecret(text, 'S').equals(bytes)).toBe(true)
    expect(() => parseSecret(Buffer.alloc(31).toString('base64'), 'S')).toThrow(/S must be/)
  })
})
