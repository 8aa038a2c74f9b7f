import { readFile, stat } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach, beforeEach, describe, expect, test } from 'vitest'
import { demoSeedFileInUse, isLoopbackHost, loadBffConfig, parseSecret } from './env.js'
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
      demoSignIn: 'loopback',
      apiTimeoutMs: 30_000,
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
        LEADLINE_DEMO_SIGN_IN: '1',
        LEADLINE_API_TIMEOUT_SECONDS: '5',
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
      demoSignIn: 'on',
      apiTimeoutMs: 5000,
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
    [{ LEADLINE_DEMO_SIGN_IN: 'yes' }, /LEADLINE_DEMO_SIGN_IN/],
    [{ LEADLINE_API_TIMEOUT_SECONDS: '0' }, /LEADLINE_API_TIMEOUT_SECONDS/],
    [{ LEADLINE_API_TIMEOUT_SECONDS: '2.5' }, /LEADLINE_API_TIMEOUT_SECONDS/],
  ])('refuses %j', (env, message) => {
    expect(() => loadBffConfig({ LEADLINE_BFF_SECRET: 'cd'.repeat(32), ...env }, dir.path)).toThrow(message)
  })

  test.each([
    ['127.0.0.1', true],
    ['127.8.9.10', true],
    ['::1', true],
    ['0:0:0:0:0:0:0:1', true],
    ['::ffff:127.0.0.1', true],
    ['localhost', true],
    ['0.0.0.0', false],
    ['::', false],
    ['192.168.1.20', false],
    ['::ffff:10.0.0.1', false],
    ['crm.example.com', false],
  ])('%s is loopback: %s', (host, loopback) => {
    expect(isLoopbackHost(host)).toBe(loopback)
  })

  test('demo sign-in: on loopback by default, elsewhere only with LEADLINE_DEMO_SIGN_IN=1, never with 0', () => {
    const seed = { LEADLINE_BFF_SECRET: 'cd'.repeat(32), LEADLINE_DEMO_SEED_FILE: 'seed.json' }
    const file = join(dir.path, 'seed.json')
    expect(demoSeedFileInUse(loadBffConfig(seed, dir.path))).toBe(file)
    expect(demoSeedFileInUse(loadBffConfig({ ...seed, HOST: '0.0.0.0' }, dir.path))).toBeUndefined()
    expect(demoSeedFileInUse(loadBffConfig({ ...seed, HOST: '0.0.0.0', LEADLINE_DEMO_SIGN_IN: '1' }, dir.path))).toBe(
      file,
    )
    expect(demoSeedFileInUse(loadBffConfig({ ...seed, LEADLINE_DEMO_SIGN_IN: '0' }, dir.path))).toBeUndefined()
    expect(demoSeedFileInUse(loadBffConfig({ LEADLINE_BFF_SECRET: 'cd'.repeat(32) }, dir.path))).toBeUndefined()
  })

  test('secrets in hex, base64 and base64url', () => {
    const bytes = Buffer.alloc(32, 0xfb)
    for (const text of [bytes.toString('hex'), bytes.toString('base64'), bytes.toString('base64url')])
      expect(parseSecret(text, 'S').equals(bytes)).toBe(true)
    expect(() => parseSecret(Buffer.alloc(31).toString('base64'), 'S')).toThrow(/S must be/)
  })
})
