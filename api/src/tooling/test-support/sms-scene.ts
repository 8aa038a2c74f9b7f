import type { FastifyInstance } from 'fastify'
import { expect } from 'vitest'
import { createOutboundClient } from '../../integrations/outbound/outbound-client.js'
import { createDispatcher, type Dispatcher } from '../../integrations/outbox/outbox-dispatcher.js'
import type { SmsProvider } from '../../telephony/sms/sms-provider.js'
import { SMS_SEND_KIND, smsSendHandler } from '../../telephony/sms/sms-send.js'
import { call, type TestContext, type TestOrg } from './test-app.js'

/** The organization's number texts are sent from, in E.164. */
export const INTERNAL_PHONE = '+14155550100'
/** A number the organization has, but of type `external`: no text may be sent from it. */
export const EXTERNAL_PHONE = '+14155550199'
/** The phone of the scene's contact. */
export const CONTACT_PHONE = '+14155550123'

export interface SmsScene {
  leadId: string
  contactId: string
}

/** What texting needs in an organization: its internal number (and an external one), a lead with a contact. */
export async function smsScene(app: FastifyInstance, org: TestOrg): Promise<SmsScene> {
  for (const [number, type] of [
    [INTERNAL_PHONE, 'internal'],
    [EXTERNAL_PHONE, 'external'],
  ] as const) {
    const res = await call(app, org.admin.key, 'POST', '/phone_number/', { body: { number, type } })
    expect(res.statusCode, res.body).toBe(200)
  }
  const lead = await call(app, org.member.key, 'POST', '/lead/', {
    body: { name: 'Texting Co', contacts: [{ name: 'Tess Text', phones: [{ phone: CONTACT_PHONE, type: 'mobile' }] }] },
  })
  expect(lead.statusCode, lead.body).toBe(200)
  const made = lead.json<{ id: string; contacts: { id: string }[] }>()
  return { leadId: made.id, contactId: made.contacts[0]?.id ?? '' }
}

/** A dispatcher on the test context's database and clock that sends texts through `provider` (retry jitter fixed). */
export function smsDispatcher(ctx: TestContext, provider: SmsProvider): Dispatcher {
  const { db, dialect } = ctx.database
  return createDispatcher({
    db,
    dialect,
    clock: ctx.clock,
    config: ctx.config,
    client: createOutboundClient({ allowPrivate: true }),
    random: () => 0.5,
    handlers: { [SMS_SEND_KIND]: smsSendHandler({ db, dialect, clock: ctx.clock, config: ctx.config, provider }) },
  })
}
