import type { FastifyInstance } from 'fastify'
import { expect } from 'vitest'
import type { Db } from '../../platform/data/database.js'
import { checkedEmailAccount } from '../../email/accounts/email-account-input.js'
import { insertEmailAccount } from '../../email/accounts/email-account-repo.js'
import { insertTemplate } from '../../email/templates/email-template-repo.js'
import { EMAIL_SEND_KIND, emailSendHandler } from '../../email/send/email-send.js'
import { verificationSendHandler } from '../../email/send/email-verification-send.js'
import { EMAIL_VERIFY_KIND } from '../../email/accounts/email-address-verification.js'
import { createOutboundClient } from '../../integrations/outbound/outbound-client.js'
import { createDispatcher, type Dispatcher } from '../../integrations/outbox/outbox-dispatcher.js'
import { secretBoxFrom } from '../../platform/security/secret-box.js'
import { SINK_CERT } from './smtp-sink.js'
import { call, TEST_SECRET_KEY, type TestContext, type TestOrg } from './test-app.js'

/** The address the scene's rep sends as (their account's own). */
export const REP_ADDRESS = 'rey@acme.example'
/** Another address the rep's account may send as (an identity). */
export const REP_IDENTITY = 'sales@acme.example'
/** The scene's contact's address. */
export const CONTACT_ADDRESS = 'tess@client.example'

export interface EmailScene {
  leadId: string
  contactId: string
  accountId: string
  templateId: string
}

/** Stores an email account of `userId` whose SMTP server is `smtp` (its password sealed with the test apps' key). */
export async function addEmailAccount(
  db: Db,
  input: {
    organizationId: string
    userId: string
    email: string
    identities?: { name: string; email: string }[]
    smtp: { host: string; port: number; username?: string; password?: string; useSsl?: boolean }
  },
): Promise<string> {
  const fields = checkedEmailAccount(
    {
      email: input.email,
      identities: input.identities ?? [],
      smtp: {
        host: input.smtp.host,
        port: input.smtp.port,
        username: input.smtp.username ?? null,
        use_ssl: input.smtp.useSsl ?? false,
      },
    },
    'Rey Rep',
  )
  const addresses = [fields.email, ...fields.identities.map((identity) => identity.email)]
  // Test organizations made one after another (one per test) use the same addresses: the newest takes them over.
  await db.updateTable('email_account_address').set({ verified: 0 }).where('address', 'in', addresses).execute()
  const row = await insertEmailAccount(
    db,
    secretBoxFrom({ LEADLINE_SECRET_KEY: TEST_SECRET_KEY }),
    {
      organizationId: input.organizationId,
      userId: input.userId,
      fields,
      password: input.smtp.password ?? null,
      // Its addresses as if verified: the scenes test what verified accounts do.
      trusted: addresses,
    },
    { actorId: input.userId, now: new Date().toISOString() },
  )
  return row.id
}

/**
 * What emailing needs in an organization: an account of the rep's on `smtp` (with an identity), a lead with a
 * contact who has an address, and a template of the rep's.
 */
export async function emailScene(
  app: FastifyInstance,
  db: Db,
  org: TestOrg,
  smtp: { host: string; port: number; username?: string; password?: string; useSsl?: boolean },
  addresses: { rep: string; identity: string } = { rep: REP_ADDRESS, identity: REP_IDENTITY },
): Promise<EmailScene> {
  const accountId = await addEmailAccount(db, {
    organizationId: org.id,
    userId: org.member.id,
    email: addresses.rep,
    identities: [{ name: 'Acme Sales', email: addresses.identity }],
    smtp,
  })
  const lead = await call(app, org.member.key, 'POST', '/lead/', {
    body: {
      name: 'Mailing Co',
      contacts: [{ name: 'Tess Mail', emails: [{ email: CONTACT_ADDRESS, type: 'office' }] }],
    },
  })
  expect(lead.statusCode, lead.body).toBe(200)
  const made = lead.json<{ id: string; contacts: { id: string }[] }>()
  const template = await insertTemplate(db, {
    organizationId: org.id,
    userId: org.member.id,
    name: 'Intro',
    subject: 'Hello {{ contact.first_name }}',
    body: '<p>Hi {{ contact.first_name }}, this is {{ user.first_name }}.</p>',
    is_shared: false,
    is_archived: false,
    attachments: [],
    now: new Date().toISOString(),
  })
  return { leadId: made.id, contactId: made.contacts[0]?.id ?? '', accountId, templateId: template.id }
}

/** A dispatcher on the test context's database and clock that sends emails (retry jitter fixed, the sink's cert trusted). */
export function emailDispatcher(ctx: TestContext): Dispatcher {
  const { db, dialect } = ctx.database
  return createDispatcher({
    db,
    dialect,
    clock: ctx.clock,
    config: ctx.config,
    client: createOutboundClient({ allowPrivate: true }),
    random: () => 0.5,
    handlers: {
      [EMAIL_SEND_KIND]: emailSendHandler({
        db,
        dialect,
        clock: ctx.clock,
        config: ctx.config,
        tls: { ca: SINK_CERT },
      }),
      [EMAIL_VERIFY_KIND]: verificationSendHandler({
        db,
        clock: ctx.clock,
        config: ctx.config,
        tls: { ca: SINK_CERT },
      }),
    },
  })
}
