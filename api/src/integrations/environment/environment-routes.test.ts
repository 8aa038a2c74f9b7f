import { randomBytes } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { call, createTestContext, type TestContext } from '../../tooling/test-support/test-app.js'
import { clearLeadWebhookUrl, resetLeadWebhookUrl, setLeadWebhookUrl } from '../outbox/lead-webhook.js'
import { redactedUrl } from './environment-routes.js'

const SMS_SECRET = `whsec_${randomBytes(32).toString('base64')}`
const SMS_URL = 'https://sms.example.com:8443/send/tok_PathToken?token=QueryToken'
const LEAD_WEBHOOK_URL = 'https://leads.example.net/hook/LeadPathToken?sig=LeadQueryToken'
const SYSTEM_SMTP_URL = 'smtp://mailer:SmtpPassword@relay.example.org:2525'

const path = (context: TestContext) => `/organization/${context.org.id}/environment/`

describe('GET /organization/{id}/environment/', () => {
  let configured: TestContext
  let bare: TestContext
  beforeAll(async () => {
    configured = await createTestContext({
      env: {
        LEADLINE_SMS_PROVIDER: 'http',
        LEADLINE_SMS_PROVIDER_URL: SMS_URL,
        LEADLINE_SMS_PROVIDER_SECRET: SMS_SECRET,
        LEADLINE_LEAD_WEBHOOK_URL: LEAD_WEBHOOK_URL,
        LEADLINE_TASK_RETENTION_DAYS: '45',
        LEADLINE_EVENT_RETENTION_DAYS: '12',
        LEADLINE_SYSTEM_SMTP_URL: SYSTEM_SMTP_URL,
        LEADLINE_SYSTEM_MAIL_FROM: 'Acme CRM <crm@acme.example>',
      },
    })
    bare = await createTestContext()
  })
  afterAll(async () => {
    await configured.close()
    await bare.close()
  })

  it('shows an admin what the environment sets, URLs as scheme, host and port only, and no secret', async () => {
    const res = await call(configured.app, configured.org.admin.key, 'GET', path(configured))
    expect(res.statusCode, res.body).toBe(200)
    expect(res.json()).toEqual({
      sms_gateway: { provider: 'http', url: 'https://sms.example.com:8443' },
      lead_webhook: { url: 'https://leads.example.net', source: 'env' },
      task_retention_days: 45,
      event_retention_days: 12,
      system_mail: { configured: true, from: 'Acme CRM <crm@acme.example>' },
    })
    for (const secret of [
      SMS_SECRET,
      SMS_SECRET.slice('whsec_'.length),
      'tok_PathToken',
      'QueryToken',
      'LeadPathToken',
      'LeadQueryToken',
      'SmtpPassword',
      'mailer',
      'relay.example.org',
    ]) {
      expect(res.body).not.toContain(secret)
    }
  })

  it('says what the defaults are when the environment sets nothing', async () => {
    const res = await call(bare.app, bare.org.admin.key, 'GET', path(bare))
    expect(res.statusCode, res.body).toBe(200)
    expect(res.json()).toEqual({
      sms_gateway: { provider: 'log', url: null },
      lead_webhook: null,
      task_retention_days: 90,
      event_retention_days: 30,
      system_mail: { configured: false, from: 'Leadline <no-reply@localhost>' },
    })
  })

  it('shows the lead webhook the CLI stored over the environment’s, and none once cleared', async () => {
    const db = configured.database.db
    try {
      await setLeadWebhookUrl(db, 'https://cli.example.com/secret-path')
      const stored = await call(configured.app, configured.org.admin.key, 'GET', path(configured))
      expect(stored.json().lead_webhook).toEqual({ url: 'https://cli.example.com', source: 'cli' })
      expect(stored.body).not.toContain('secret-path')
      await clearLeadWebhookUrl(db)
      const cleared = await call(configured.app, configured.org.admin.key, 'GET', path(configured))
      expect(cleared.json().lead_webhook).toBeNull()
    } finally {
      await resetLeadWebhookUrl(db)
    }
  })

  it('is for admins (403), and another organization’s is a 404', async () => {
    const member = await call(configured.app, configured.org.member.key, 'GET', path(configured))
    expect(member.statusCode).toBe(403)
    expect(member.json()).toEqual({ error: expect.any(String) })
    expect(member.body).not.toContain('sms.example.com')
    for (const key of [configured.other.admin.key, configured.other.member.key]) {
      const res = await call(configured.app, key, 'GET', path(configured))
      expect(res.statusCode).toBe(404)
      expect(res.json()).toEqual({ error: expect.any(String) })
    }
    expect((await call(configured.app, 'not-a-key', 'GET', path(configured))).statusCode).toBe(401)
  })
})

describe('redactedUrl', () => {
  it('keeps the scheme, host and port, and drops credentials, path, query and fragment', () => {
    expect(redactedUrl('https://user:pass@example.com:8443/a/b?c=d#e')).toBe('https://example.com:8443')
    expect(redactedUrl('https://example.com')).toBe('https://example.com')
    expect(redactedUrl('http://[::1]:4000/x')).toBe('http://[::1]:4000')
    expect(redactedUrl('not a url')).toBeNull()
  })
})
