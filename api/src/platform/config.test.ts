import { describe, expect, it } from 'vitest'
import { loadConfig, smtpServerKey } from './config.js'

describe('loadConfig timeouts', () => {
  it('defaults to a minute for a request, 20 s for its headers and 72 s for an idle connection', () => {
    expect(loadConfig({}).timeouts).toEqual({ requestSeconds: 60, headersSeconds: 20, keepAliveSeconds: 72 })
  })

  it('reads them from the environment', () => {
    const config = loadConfig({
      LEADLINE_REQUEST_TIMEOUT: '30',
      LEADLINE_HEADERS_TIMEOUT: '5',
      LEADLINE_KEEP_ALIVE_TIMEOUT: '10',
    })
    expect(config.timeouts).toEqual({ requestSeconds: 30, headersSeconds: 5, keepAliveSeconds: 10 })
  })

  it.each(['0', '-1', '1.5', 'soon'])('refuses %j', (value) => {
    expect(() => loadConfig({ LEADLINE_KEEP_ALIVE_TIMEOUT: value })).toThrow(
      `LEADLINE_KEEP_ALIVE_TIMEOUT must be a positive integer, got "${value}"`,
    )
  })

  it('refuses a headers timeout longer than the request timeout', () => {
    expect(() => loadConfig({ LEADLINE_REQUEST_TIMEOUT: '10', LEADLINE_HEADERS_TIMEOUT: '11' })).toThrow(
      'LEADLINE_HEADERS_TIMEOUT (11) must not exceed LEADLINE_REQUEST_TIMEOUT (10)',
    )
  })
})

describe('loadConfig trusted proxies', () => {
  it('believes X-Forwarded-For from loopback unless LEADLINE_TRUST_PROXY names others', () => {
    expect(loadConfig({}).trustProxy).toBe('loopback')
    expect(loadConfig({ LEADLINE_TRUST_PROXY: ' 10.0.0.0/8, 192.0.2.7 ,loopback' }).trustProxy).toBe(
      '10.0.0.0/8,192.0.2.7,loopback',
    )
    expect(loadConfig({ LEADLINE_TRUST_PROXY: 'fd00::/8' }).trustProxy).toBe('fd00::/8')
  })

  it('refuses what is not an address, a range or one of the named sets', () => {
    for (const bad of ['everyone', '10.0.0.0/8/1', '10.0.0.0/abc', '', 'example.com']) {
      expect(() => loadConfig({ LEADLINE_TRUST_PROXY: bad }), bad).toThrow(/LEADLINE_TRUST_PROXY/)
    }
  })
})

describe('loadConfig SQLite page cache', () => {
  it('gives each connection 8 MB unless LEADLINE_SQLITE_CACHE_MB says otherwise', () => {
    expect(loadConfig({}).sqliteCacheMb).toBe(8)
    expect(loadConfig({ LEADLINE_SQLITE_CACHE_MB: '32' }).sqliteCacheMb).toBe(32)
    expect(() => loadConfig({ LEADLINE_SQLITE_CACHE_MB: '0' })).toThrow(
      'LEADLINE_SQLITE_CACHE_MB must be a positive integer, got "0"',
    )
  })
})

describe('loadConfig heap growth', () => {
  it('lets the heap grow by 30 % past its live memory unless LEADLINE_HEAP_GROWTH_PERCENT says otherwise', () => {
    expect(loadConfig({}).heapGrowthPercent).toBe(30)
    expect(loadConfig({ LEADLINE_HEAP_GROWTH_PERCENT: '20' }).heapGrowthPercent).toBe(20)
    expect(loadConfig({ LEADLINE_HEAP_GROWTH_PERCENT: 'v8' }).heapGrowthPercent).toBe('v8')
    for (const bad of ['0', '-5', '1.5', '1001', 'lots']) {
      expect(() => loadConfig({ LEADLINE_HEAP_GROWTH_PERCENT: bad }), bad).toThrow(
        `LEADLINE_HEAP_GROWTH_PERCENT must be a whole number from 1 to 1000, or v8; got "${bad}"`,
      )
    }
  })
})

describe('loadConfig lead search', () => {
  it('answers lead searches from the in-memory index unless LEADLINE_LEAD_SEARCH says sql', () => {
    expect(loadConfig({}).leadSearch).toBe('index')
    expect(loadConfig({ LEADLINE_LEAD_SEARCH: 'sql' }).leadSearch).toBe('sql')
  })

  it.each(['', 'SQL', 'memory'])('refuses %j', (value) => {
    expect(() => loadConfig({ LEADLINE_LEAD_SEARCH: value })).toThrow(
      `LEADLINE_LEAD_SEARCH must be index or sql, not ${JSON.stringify(value)}`,
    )
  })

  it('builds the lead indexes at start unless LEADLINE_LEAD_INDEX_WARMUP is 0', () => {
    expect(loadConfig({}).leadIndexWarmup).toBe(true)
    expect(loadConfig({ LEADLINE_LEAD_INDEX_WARMUP: '' }).leadIndexWarmup).toBe(true)
    expect(loadConfig({ LEADLINE_LEAD_INDEX_WARMUP: '1' }).leadIndexWarmup).toBe(true)
    expect(loadConfig({ LEADLINE_LEAD_INDEX_WARMUP: '0' }).leadIndexWarmup).toBe(false)
    expect(() => loadConfig({ LEADLINE_LEAD_INDEX_WARMUP: 'yes' })).toThrow(
      'LEADLINE_LEAD_INDEX_WARMUP must be 1 or 0, got "yes"',
    )
  })
})

describe('loadConfig task retention', () => {
  it('keeps archived system tasks 90 days unless LEADLINE_TASK_RETENTION_DAYS says otherwise', () => {
    expect(loadConfig({}).taskRetentionDays).toBe(90)
    expect(loadConfig({ LEADLINE_TASK_RETENTION_DAYS: '30' }).taskRetentionDays).toBe(30)
  })

  it.each(['0', '-5', '2.5', 'forever'])('refuses %j', (value) => {
    expect(() => loadConfig({ LEADLINE_TASK_RETENTION_DAYS: value })).toThrow(
      `LEADLINE_TASK_RETENTION_DAYS must be a positive integer, got "${value}"`,
    )
  })
})

describe('loadConfig outbox and lead webhook', () => {
  it('defaults to no lead webhook, 60 s leases, retries from 30 s, 5 minutes between lead webhook attempts', () => {
    const config = loadConfig({})
    expect(config.leadWebhookUrl).toBeNull()
    expect(config.outbox).toEqual({
      leaseSeconds: 60,
      webhookRetrySeconds: 30,
      leadWebhookRetrySeconds: 300,
      concurrency: 8,
    })
  })

  it('reads them from the environment', () => {
    const config = loadConfig({
      LEADLINE_LEAD_WEBHOOK_URL: 'https://hooks.example.com/leads',
      LEADLINE_OUTBOX_LEASE_SECONDS: '5',
      LEADLINE_WEBHOOK_RETRY_SECONDS: '2',
      LEADLINE_LEAD_WEBHOOK_RETRY_SECONDS: '1',
      LEADLINE_OUTBOX_CONCURRENCY: '3',
    })
    expect(config.leadWebhookUrl).toBe('https://hooks.example.com/leads')
    expect(config.outbox).toEqual({
      leaseSeconds: 5,
      webhookRetrySeconds: 2,
      leadWebhookRetrySeconds: 1,
      concurrency: 3,
    })
  })

  it('refuses a lead webhook URL a subscription could not have, unless private addresses are allowed', () => {
    expect(() => loadConfig({ LEADLINE_LEAD_WEBHOOK_URL: 'http://127.0.0.1:9000/' })).toThrow(
      'LEADLINE_LEAD_WEBHOOK_URL: Must be an https:// URL.',
    )
    expect(() => loadConfig({ LEADLINE_LEAD_WEBHOOK_URL: 'https://10.0.0.8/' })).toThrow('Must not point to')
    const local = { LEADLINE_LEAD_WEBHOOK_URL: 'http://127.0.0.1:9000/', LEADLINE_OUTBOUND_ALLOW_PRIVATE: '1' }
    expect(loadConfig(local).leadWebhookUrl).toBe('http://127.0.0.1:9000/')
    expect(() => loadConfig({ LEADLINE_OUTBOX_LEASE_SECONDS: '0' })).toThrow('LEADLINE_OUTBOX_LEASE_SECONDS')
  })
})

describe('loadConfig stream secret', () => {
  it('is unset unless LEADLINE_STREAM_SECRET gives 32 to 256 printable characters', () => {
    expect(loadConfig({}).streamSecret).toBeUndefined()
    expect(loadConfig({ LEADLINE_STREAM_SECRET: '' }).streamSecret).toBeUndefined()
    const secret = 'a'.repeat(31) + '!'
    expect(loadConfig({ LEADLINE_STREAM_SECRET: secret }).streamSecret).toBe(secret)
    for (const bad of ['a'.repeat(31), `${'a'.repeat(32)} b`, 'é'.repeat(40), 'a'.repeat(257)])
      expect(() => loadConfig({ LEADLINE_STREAM_SECRET: bad })).toThrow('LEADLINE_STREAM_SECRET must be')
  })
})

describe('loadConfig SMS provider', () => {
  const key = Buffer.alloc(32, 7)
  const secret = `whsec_${key.toString('base64')}`
  const http = {
    LEADLINE_SMS_PROVIDER: 'http',
    LEADLINE_SMS_PROVIDER_URL: 'https://sms-gateway.example.com/send',
    LEADLINE_SMS_PROVIDER_SECRET: secret,
  }

  it('logs texts by default, retrying a failed send after 15 s', () => {
    expect(loadConfig({}).sms).toEqual({ provider: 'log', url: null, signingKey: null, retrySeconds: 15 })
    expect(loadConfig({ LEADLINE_SMS_PROVIDER: 'log', LEADLINE_SMS_RETRY_SECONDS: '3' }).sms.retrySeconds).toBe(3)
  })

  it('posts to the URL, signing with the key bytes of the whsec_ secret; a URL alone means http', () => {
    const expected = {
      provider: 'http',
      url: 'https://sms-gateway.example.com/send',
      signingKey: key.toString('hex'),
      retrySeconds: 15,
    }
    expect(loadConfig(http).sms).toEqual(expected)
    expect(loadConfig({ ...http, LEADLINE_SMS_PROVIDER: undefined }).sms).toEqual(expected)
  })

  it.each([
    [{ LEADLINE_SMS_PROVIDER: 'twilio' }, 'LEADLINE_SMS_PROVIDER must be log or http, got "twilio"'],
    [
      { LEADLINE_SMS_PROVIDER_URL: undefined },
      'LEADLINE_SMS_PROVIDER_URL is required when LEADLINE_SMS_PROVIDER is http',
    ],
    [
      { LEADLINE_SMS_PROVIDER_URL: 'ftp://gateway.example.com/' },
      'LEADLINE_SMS_PROVIDER_URL: Must be an https:// URL.',
    ],
    [
      { LEADLINE_SMS_PROVIDER_URL: 'http://gateway.example.com/' },
      'LEADLINE_SMS_PROVIDER_URL: Must be an https:// URL.',
    ],
    [{ LEADLINE_SMS_PROVIDER_URL: 'not a url' }, 'LEADLINE_SMS_PROVIDER_URL: Enter a valid URL.'],
    [{ LEADLINE_SMS_PROVIDER_URL: 'https://192.168.1.9/send' }, 'LEADLINE_SMS_PROVIDER_URL: Must not point to'],
    [{ LEADLINE_SMS_PROVIDER_URL: 'https://user:pw@gateway.example.com/' }, 'user name or password'],
    [{ LEADLINE_SMS_PROVIDER_SECRET: undefined }, 'LEADLINE_SMS_PROVIDER_SECRET is required'],
    [{ LEADLINE_SMS_PROVIDER_SECRET: key.toString('base64') }, 'LEADLINE_SMS_PROVIDER_SECRET must be whsec_'],
    [{ LEADLINE_SMS_PROVIDER_SECRET: `whsec_${Buffer.alloc(16).toString('base64')}` }, '24 to 64 random bytes'],
    [{ LEADLINE_SMS_PROVIDER_SECRET: 'whsec_not*base64' }, 'LEADLINE_SMS_PROVIDER_SECRET must be whsec_'],
    [{ LEADLINE_SMS_PROVIDER: 'log' }, 'need LEADLINE_SMS_PROVIDER=http'],
    [{ LEADLINE_SMS_RETRY_SECONDS: '0' }, 'LEADLINE_SMS_RETRY_SECONDS must be a positive integer, got "0"'],
  ])('refuses %j', (change, message) => {
    expect(() => loadConfig({ ...http, ...change })).toThrow(message)
  })

  it('takes a gateway on this machine or a private network, over http too, where private addresses are allowed', () => {
    const local = { ...http, LEADLINE_SMS_PROVIDER_URL: 'http://127.0.0.1:8025/sms' }
    expect(() => loadConfig(local)).toThrow('LEADLINE_SMS_PROVIDER_URL')
    expect(loadConfig({ ...local, LEADLINE_OUTBOUND_ALLOW_PRIVATE: '1' }).sms.url).toBe('http://127.0.0.1:8025/sms')
  })
})

describe('loadConfig incoming mail', () => {
  it('receives no mail unless a port is set; 25 MiB messages, 10 MiB files, no STARTTLS by default', () => {
    expect(loadConfig({}).emailReceive).toEqual({
      port: null,
      tls: null,
      maxMessageBytes: 26_214_400,
      maxAttachmentBytes: 10_485_760,
      maxClients: 100,
      maxClientsPerAddress: 10,
      rateMessages: 60,
      rateWindowSeconds: 60,
      senderCheckSeconds: 15,
    })
  })

  it('reads them from the environment', () => {
    const config = loadConfig({
      LEADLINE_SMTP_RECEIVE_PORT: '2525',
      LEADLINE_SMTP_TLS_CERT: 'cert.pem',
      LEADLINE_SMTP_TLS_KEY: 'key.pem',
      LEADLINE_SMTP_MAX_MESSAGE_BYTES: '1000',
      LEADLINE_EMAIL_ATTACHMENT_MAX_BYTES: '500',
      LEADLINE_SMTP_RECEIVE_MAX_CLIENTS: '20',
      LEADLINE_SMTP_RECEIVE_MAX_CLIENTS_PER_ADDRESS: '2',
      LEADLINE_SMTP_RECEIVE_RATE_MESSAGES: '30',
      LEADLINE_SMTP_RECEIVE_RATE_WINDOW: '600',
      LEADLINE_SMTP_RECEIVE_SENDER_CHECK_TIMEOUT: '5',
    })
    expect(config.emailReceive).toEqual({
      port: 2525,
      tls: { certFile: 'cert.pem', keyFile: 'key.pem' },
      maxMessageBytes: 1000,
      maxAttachmentBytes: 500,
      maxClients: 20,
      maxClientsPerAddress: 2,
      rateMessages: 30,
      rateWindowSeconds: 600,
      senderCheckSeconds: 5,
    })
  })

  it.each([
    [{ LEADLINE_SMTP_RECEIVE_PORT: '0' }, 'LEADLINE_SMTP_RECEIVE_PORT must be a positive integer, got "0"'],
    [{ LEADLINE_SMTP_RECEIVE_PORT: '70000' }, 'LEADLINE_SMTP_RECEIVE_PORT must be a port number, got "70000"'],
    [{ LEADLINE_SMTP_TLS_CERT: 'cert.pem' }, 'LEADLINE_SMTP_TLS_CERT and LEADLINE_SMTP_TLS_KEY go together'],
    [{ LEADLINE_SMTP_MAX_MESSAGE_BYTES: 'big' }, 'LEADLINE_SMTP_MAX_MESSAGE_BYTES must be a positive integer'],
    [{ LEADLINE_SMTP_RECEIVE_MAX_CLIENTS: '0' }, 'LEADLINE_SMTP_RECEIVE_MAX_CLIENTS must be a positive integer'],
    [{ LEADLINE_SMTP_RECEIVE_RATE_WINDOW: '1.5' }, 'LEADLINE_SMTP_RECEIVE_RATE_WINDOW must be a positive integer'],
  ])('refuses %j', (env, message) => {
    expect(() => loadConfig(env)).toThrow(message)
  })
})

describe('SMTP servers allowed past the outbound guard', () => {
  it('allows none by default', () => {
    expect([...loadConfig({}).email.allowedSmtpServers]).toEqual([])
  })

  it('reads host:port pairs, lower-casing the host, separated by commas or spaces', () => {
    const config = loadConfig({ LEADLINE_SMTP_ALLOW_HOSTS: 'LocalHost:2525, relay.internal:25 [::1]:587' })
    expect([...config.email.allowedSmtpServers]).toEqual(['localhost:2525', 'relay.internal:25', '[::1]:587'])
    expect(config.email.allowedSmtpServers.has(smtpServerKey('LOCALHOST', 2525))).toBe(true)
    expect(config.email.allowedSmtpServers.has(smtpServerKey('::1', 587))).toBe(true)
    expect(config.email.allowedSmtpServers.has(smtpServerKey('localhost', 25))).toBe(false)
  })

  it.each(['localhost', 'localhost:0', 'localhost:70000', 'http://relay:25', 'relay:25/x'])('refuses "%s"', (item) => {
    expect(() => loadConfig({ LEADLINE_SMTP_ALLOW_HOSTS: item })).toThrow(
      `LEADLINE_SMTP_ALLOW_HOSTS takes host:port pairs (e.g. localhost:25), got "${item}"`,
    )
  })
})

describe('loadConfig system mailer', () => {
  it('is unset by default, sending as no-reply at the app URL’s host', () => {
    expect(loadConfig({}).systemMail).toEqual({ smtp: null, from: 'Leadline <no-reply@localhost>' })
    expect(loadConfig({ LEADLINE_APP_URL: 'https://crm.example.com/' }).systemMail.from).toBe(
      'Leadline <no-reply@crm.example.com>',
    )
  })

  it('takes an smtp:// or smtps:// URL apart, with a user name and password', () => {
    expect(loadConfig({ LEADLINE_SYSTEM_SMTP_URL: 'smtp://127.0.0.1:2525' }).systemMail.smtp).toEqual({
      host: '127.0.0.1',
      port: 2525,
      secure: false,
      user: null,
      password: null,
    })
    expect(
      loadConfig({ LEADLINE_SYSTEM_SMTP_URL: 'smtps://mailer%40example.com:p%3Ass@relay.example.com' }).systemMail.smtp,
    ).toEqual({ host: 'relay.example.com', port: 465, secure: true, user: 'mailer@example.com', password: 'p:ss' })
    expect(loadConfig({ LEADLINE_SYSTEM_SMTP_URL: 'smtp://[::1]' }).systemMail.smtp).toMatchObject({
      host: '::1',
      port: 25,
    })
  })

  it.each(['http://relay.example.com', 'relay.example.com:25', 'smtp://relay.example.com/path', 'smtp://:x@/'])(
    'refuses %j without repeating it',
    (value) => {
      expect(() => loadConfig({ LEADLINE_SYSTEM_SMTP_URL: value })).toThrow(/^LEADLINE_SYSTEM_SMTP_URL must be /)
    },
  )

  it('never repeats a password in its refusal', () => {
    expect(() => loadConfig({ LEADLINE_SYSTEM_SMTP_URL: 'smtp://me:hunter2@relay.example.com/x' })).toThrow(
      expect.objectContaining({ message: expect.not.stringContaining('hunter2') }),
    )
  })

  it('takes a sender address with or without a name, and refuses anything else', () => {
    expect(loadConfig({ LEADLINE_SYSTEM_MAIL_FROM: 'CRM <crm@example.com>' }).systemMail.from).toBe(
      'CRM <crm@example.com>',
    )
    expect(loadConfig({ LEADLINE_SYSTEM_MAIL_FROM: 'crm@example.com' }).systemMail.from).toBe('crm@example.com')
    for (const value of ['nobody', 'CRM <crm@example.com', 'a@b.com\r\nBcc: x@y.com'])
      expect(() => loadConfig({ LEADLINE_SYSTEM_MAIL_FROM: value })).toThrow(/^LEADLINE_SYSTEM_MAIL_FROM must be/)
  })
})

describe('LEADLINE_DRAIN_SECONDS', () => {
  it('is 0 unless set, and takes whole seconds up to 300', () => {
    expect(loadConfig({}).drainSeconds).toBe(0)
    expect(loadConfig({ LEADLINE_DRAIN_SECONDS: '' }).drainSeconds).toBe(0)
    expect(loadConfig({ LEADLINE_DRAIN_SECONDS: '0' }).drainSeconds).toBe(0)
    expect(loadConfig({ LEADLINE_DRAIN_SECONDS: '15' }).drainSeconds).toBe(15)
    expect(loadConfig({ LEADLINE_DRAIN_SECONDS: '300' }).drainSeconds).toBe(300)
  })

  it.each(['301', '-1', '1.5', 'soon', '1e2', '0x10'])('refuses %j', (value) => {
    expect(() => loadConfig({ LEADLINE_DRAIN_SECONDS: value })).toThrow(
      `LEADLINE_DRAIN_SECONDS must be a whole number of seconds from 0 to 300, got "${value}"`,
    )
  })
})
