import { readdir, readFile, stat } from 'node:fs/promises'
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
      trustProxy: false,
      publicOrigin: undefined,
      sessionIdleMs: 720 * 60_000,
      sessionMaxAgeMs: 30 * 24 * 60 * 60_000,
      signInAttempts: 10,
      signInWindowMs: 15 * 60_000,
      demoSeedFile: undefined,
      demoSignIn: 'loopback',
      apiTimeoutMs: 30_000,
      drainSeconds: 0,
      attachmentMaxBytes: 10 * 1024 * 1024,
      importMaxBytes: 500 * 1024 * 1024,
      logLevel: 'info',
      streamSecret: undefined,
      metrics: null,
    })
    expect(config.webDist).toBe(fileURLToPath(new URL('../../web/dist', import.meta.url)))
    expect(config.webServerRender).toBe(
      fileURLToPath(new URL('../../web/dist-server/server-render.js', import.meta.url)),
    )
    expect(config.secret).toHaveLength(32)
  })

  test('the server render: off, or a path of its own, relative to the working directory', () => {
    expect(loadBffConfig({ LEADLINE_WEB_SERVER_RENDER: 'off' }, dir.path).webServerRender).toBeUndefined()
    expect(loadBffConfig({ LEADLINE_WEB_SERVER_RENDER: 'render/s.js' }, dir.path).webServerRender).toBe(
      join(dir.path, 'render', 's.js'),
    )
  })

  test('generates the secret once, mode 0600, and reuses it', async () => {
    const first = loadBffConfig({ LEADLINE_BFF_DATA_DIR: 'state' }, dir.path)
    const file = join(dir.path, 'state', 'bff-secret')
    expect((await stat(file)).mode & 0o777).toBe(0o600)
    expect((await readFile(file, 'utf8')).trim()).toBe(first.secret.toString('hex'))
    expect(loadBffConfig({ LEADLINE_BFF_DATA_DIR: 'state' }, dir.path).secret.equals(first.secret)).toBe(true)
    expect(await readdir(join(dir.path, 'state'))).toEqual(['bff-secret'])
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
        LEADLINE_BFF_TRUST_PROXY: '1',
        LEADLINE_BFF_ORIGIN: 'https://crm.example.com',
        LEADLINE_SESSION_IDLE_MINUTES: '15',
        LEADLINE_SESSION_MAX_DAYS: '7',
        LEADLINE_SIGN_IN_ATTEMPTS: '5',
        LEADLINE_SIGN_IN_MINUTES: '60',
        LEADLINE_DEMO_SEED_FILE: 'data/demo-seed.json',
        LEADLINE_DEMO_SIGN_IN: '1',
        LEADLINE_API_TIMEOUT_SECONDS: '5',
        LEADLINE_DRAIN_SECONDS: '20',
        LEADLINE_EMAIL_ATTACHMENT_MAX_BYTES: '2097152',
        LEADLINE_IMPORT_MAX_BYTES: '1048576000',
        LEADLINE_WEB_DIST: '/srv/web',
        LOG_LEVEL: 'warn',
        LEADLINE_STREAM_SECRET: 'x'.repeat(40),
        LEADLINE_BFF_METRICS_PORT: '9465',
        LEADLINE_BFF_METRICS_HOST: '10.0.0.5',
      },
      dir.path,
    )
    expect(config).toMatchObject({
      port: 3100,
      host: '0.0.0.0',
      apiUrl: 'http://api.internal:4100',
      insecureCookies: true,
      trustProxy: true,
      publicOrigin: 'https://crm.example.com',
      sessionIdleMs: 15 * 60_000,
      sessionMaxAgeMs: 7 * 24 * 60 * 60_000,
      signInAttempts: 5,
      signInWindowMs: 60 * 60_000,
      demoSeedFile: join(dir.path, 'data', 'demo-seed.json'),
      demoSignIn: 'on',
      apiTimeoutMs: 5000,
      drainSeconds: 20,
      attachmentMaxBytes: 2097152,
      importMaxBytes: 1048576000,
      webDist: '/srv/web',
      webServerRender: '/srv/dist-server/server-render.js',
      logLevel: 'warn',
      streamSecret: 'x'.repeat(40),
      metrics: { port: 9465, host: '10.0.0.5' },
    })
    expect(config.secret.toString('hex')).toBe(hex)
  })

  test("the metrics port is the BFF's own: the api's LEADLINE_METRICS_PORT opens none here; the host is loopback", () => {
    expect(loadBffConfig({ LEADLINE_METRICS_PORT: '9464' }, dir.path).metrics).toBeNull()
    expect(loadBffConfig({ LEADLINE_BFF_METRICS_PORT: '0' }, dir.path).metrics).toEqual({ port: 0, host: '127.0.0.1' })
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
    [{ LEADLINE_BFF_TRUST_PROXY: 'true' }, /LEADLINE_BFF_TRUST_PROXY must be 1 or 0/],
    [{ LEADLINE_BFF_ORIGIN: 'crm.example.com' }, /LEADLINE_BFF_ORIGIN must be an http\(s\) origin/],
    [{ LEADLINE_BFF_ORIGIN: 'https://crm.example.com/app' }, /LEADLINE_BFF_ORIGIN/],
    [{ LEADLINE_BFF_ORIGIN: 'ftp://crm.example.com' }, /LEADLINE_BFF_ORIGIN/],
    [{ LEADLINE_SESSION_MAX_DAYS: '0' }, /LEADLINE_SESSION_MAX_DAYS must be a whole number of days \(1 to 3650\)/],
    [{ LEADLINE_SESSION_MAX_DAYS: '1.5' }, /LEADLINE_SESSION_MAX_DAYS/],
    [{ LEADLINE_SIGN_IN_ATTEMPTS: '0' }, /LEADLINE_SIGN_IN_ATTEMPTS/],
    [{ LEADLINE_SIGN_IN_ATTEMPTS: 'ten' }, /LEADLINE_SIGN_IN_ATTEMPTS/],
    [{ LEADLINE_SIGN_IN_MINUTES: '1441' }, /LEADLINE_SIGN_IN_MINUTES/],
    [{ LEADLINE_DEMO_SIGN_IN: 'yes' }, /LEADLINE_DEMO_SIGN_IN/],
    [{ LEADLINE_API_TIMEOUT_SECONDS: '0' }, /LEADLINE_API_TIMEOUT_SECONDS/],
    [{ LEADLINE_API_TIMEOUT_SECONDS: '2.5' }, /LEADLINE_API_TIMEOUT_SECONDS/],
    [{ LEADLINE_DRAIN_SECONDS: '301' }, /LEADLINE_DRAIN_SECONDS must be a whole number of seconds from 0 to 300/],
    [{ LEADLINE_DRAIN_SECONDS: '1.5' }, /LEADLINE_DRAIN_SECONDS/],
    [
      { LEADLINE_EMAIL_ATTACHMENT_MAX_BYTES: '0' },
      /LEADLINE_EMAIL_ATTACHMENT_MAX_BYTES must be a whole number of bytes/,
    ],
    [{ LEADLINE_EMAIL_ATTACHMENT_MAX_BYTES: '10MB' }, /LEADLINE_EMAIL_ATTACHMENT_MAX_BYTES/],
    [{ LEADLINE_IMPORT_MAX_BYTES: '0' }, /LEADLINE_IMPORT_MAX_BYTES must be a whole number of bytes/],
    [{ LEADLINE_IMPORT_MAX_BYTES: '500MiB' }, /LEADLINE_IMPORT_MAX_BYTES/],
    [{ LEADLINE_STREAM_SECRET: 'too short' }, /LEADLINE_STREAM_SECRET must be 32 to 256 printable characters/],
    [{ LEADLINE_STREAM_SECRET: `${'x'.repeat(40)} y` }, /LEADLINE_STREAM_SECRET/],
    [{ LEADLINE_BFF_SESSION_URL: 'sqlite:sessions.db' }, /LEADLINE_BFF_SESSION_URL must be a postgres:\/\/ URL/],
    [{ LEADLINE_BFF_SESSION_URL: 'db.internal/leadline' }, /LEADLINE_BFF_SESSION_URL must be a postgres:\/\/ URL/],
    [{ LEADLINE_BFF_SESSION_URL: 'postgres:///leadline' }, /LEADLINE_BFF_SESSION_URL must name the database server/],
    [{ LEADLINE_BFF_METRICS_PORT: '65536' }, /LEADLINE_BFF_METRICS_PORT must be a TCP port/],
    [{ LEADLINE_BFF_METRICS_PORT: '-1' }, /LEADLINE_BFF_METRICS_PORT must be a TCP port/],
    [
      { LEADLINE_BFF_METRICS_PORT: '9465', LEADLINE_BFF_METRICS_HOST: 'localhost' },
      /LEADLINE_BFF_METRICS_HOST must be an IP/,
    ],
    [{ LEADLINE_BFF_METRICS_PORT: '9465', LEADLINE_BFF_METRICS_HOST: '' }, /LEADLINE_BFF_METRICS_HOST must be an IP/],
  ])('refuses %j', (env, message) => {
    expect(() => loadBffConfig({ LEADLINE_BFF_SECRET: 'cd'.repeat(32), ...env }, dir.path)).toThrow(message)
  })

  test('sessions in Postgres need the secret given, the same on every BFF process; the data folder has none', () => {
    const url = 'postgres://bff@db.internal:5432/leadline'
    expect(() => loadBffConfig({ LEADLINE_BFF_SESSION_URL: url }, dir.path)).toThrow(
      /LEADLINE_BFF_SESSION_URL needs LEADLINE_BFF_SECRET too/,
    )
    const config = loadBffConfig({ LEADLINE_BFF_SESSION_URL: url, LEADLINE_BFF_SECRET: 'cd'.repeat(32) }, dir.path)
    expect(config.sessionUrl).toBe(url)
    expect(loadBffConfig({ LEADLINE_BFF_SECRET: 'cd'.repeat(32) }, dir.path).sessionUrl).toBeUndefined()
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

  test('the public origin may end in a slash and is kept as an origin', () => {
    const config = loadBffConfig(
      { LEADLINE_BFF_SECRET: 'cd'.repeat(32), LEADLINE_BFF_ORIGIN: 'https://CRM.example.com:8443/' },
      dir.path,
    )
    expect(config.publicOrigin).toBe('https://crm.example.com:8443')
  })

  test('secrets in hex, base64 and base64url', () => {
    const bytes = Buffer.alloc(32, 0xfb)
    for (const text of [bytes.toString('hex'), bytes.toString('base64'), bytes.toString('base64url')])
      expect(parseSecret(text, 'S').equals(bytes)).toBe(true)
    expect(() => parseSecret(Buffer.alloc(31).toString('base64'), 'S')).toThrow(/S must be/)
  })
})
