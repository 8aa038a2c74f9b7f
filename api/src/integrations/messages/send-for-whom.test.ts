import type { LightMyRequestResponse } from 'fastify'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { Dispatcher } from '../outbox/outbox-dispatcher.js'
import { formatTimestamp } from '../../platform/data/time.js'
import type { SmsProvider, SmsToSend } from '../../telephony/sms/sms-provider.js'
import {
  addEmailAccount,
  emailDispatcher,
  emailScene,
  REP_ADDRESS,
  type EmailScene,
} from '../../tooling/test-support/email-scene.js'
import {
  CONTACT_PHONE,
  INTERNAL_PHONE,
  smsDispatcher,
  smsScene,
  type SmsScene,
} from '../../tooling/test-support/sms-scene.js'
import { startSmtpSink, type SmtpSink } from '../../tooling/test-support/smtp-sink.js'
import { call, createTestContext, type TestContext, type TestOrg } from '../../tooling/test-support/test-app.js'

// Only a message's own user sends it (decision 0037): over HTTP, a member and an admin each try to send, schedule or
// edit a colleague's email or text, through POST and PUT; each is a 403 that stores nothing, and the SMTP server and
// the SMS gateway receive nothing. An admin may still log a colleague's email sent or received.

const ADMIN_ADDRESS = 'ada@acme.example'
const FORBIDDEN = 403

let ctx: TestContext
let sink: SmtpSink
let org: TestOrg
let scene: EmailScene
let texts: SmsScene
let dispatcher: Dispatcher | undefined
const gatewayGot: SmsToSend[] = []

/** An SMS provider that keeps what it is given. */
const recordingProvider: SmsProvider = {
  target: 'test:',
  send(message) {
    gatewayGot.push(message)
    return Promise.resolve({ ok: true, statusCode: 200, durationMs: 0, error: null })
  },
  close() {
    // Nothing held.
  },
}

beforeAll(async () => {
  ctx = await createTestContext({ env: { LEADLINE_OUTBOUND_ALLOW_PRIVATE: '1' } })
  sink = await startSmtpSink()
})
afterAll(async () => {
  await sink.close()
  await ctx.close()
})
beforeEach(async () => {
  sink.received.length = 0
  gatewayGot.length = 0
  org = await ctx.createOrg('Colleagues')
  const smtp = { host: '127.0.0.1', port: sink.port }
  scene = await emailScene(ctx.app, ctx.database.db, org, smtp)
  await addEmailAccount(ctx.database.db, { organizationId: org.id, userId: org.admin.id, email: ADMIN_ADDRESS, smtp })
  texts = await smsScene(ctx.app, org)
})
afterEach(async () => {
  await dispatcher?.stop()
  dispatcher = undefined
})

/** Everything stored about the organization's messages and their sends. */
async function stored() {
  const { db } = ctx.database
  const activities = await db
    .selectFrom('activity')
    .select(['id', 'user_id', 'data', 'date_updated'])
    .where('organization_id', '=', org.id)
    .orderBy('id')
    .execute()
  const outbox = await db
    .selectFrom('outbox')
    .select(['id', 'status', 'kind'])
    .where('organization_id', '=', org.id)
    .where('kind', 'in', ['email_send', 'sms_send'])
    .orderBy('id')
    .execute()
  return { activities, outbox }
}

/** Answers `request`'s response after checking it is a 403 in the `{"error"}` shape that changed nothing. */
async function refused(request: () => Promise<LightMyRequestResponse>) {
  const before = await stored()
  const res = await request()
  expect(res.statusCode, res.body).toBe(FORBIDDEN)
  expect(Object.keys(res.json<Record<string, unknown>>())).toEqual(['error'])
  expect(await stored()).toEqual(before)
  return res
}

/** Runs every due send: the SMTP server and the gateway must have received nothing. */
async function nothingSent(which: 'email' | 'sms'): Promise<Dispatcher> {
  const made = which === 'email' ? emailDispatcher(ctx) : smsDispatcher(ctx, recordingProvider)
  dispatcher = made
  ctx.clock.advance(3_600_000)
  await made.drain()
  expect(sink.received).toEqual([])
  expect(gatewayGot).toEqual([])
  return made
}

const email = (key: string, body: Record<string, unknown>) =>
  call(ctx.app, key, 'POST', '/activity/email/', {
    body: { lead_id: scene.leadId, contact_id: scene.contactId, to: ['tess@client.example'], subject: 'Hi', ...body },
  })
const putEmail = (key: string, id: string, body: Record<string, unknown>) =>
  call(ctx.app, key, 'PUT', `/activity/email/${id}/`, { body })
const later = () => formatTimestamp(new Date(ctx.clock.now().getTime() + 3_600_000))

describe('email: only its own user sends it', () => {
  it('a member cannot send, schedule or draft as a colleague, nor log for one', async () => {
    const asAdmin = { user_id: org.admin.id, sender: ADMIN_ADDRESS }
    const member = org.member.key
    await refused(() => email(member, { ...asAdmin, status: 'outbox' }))
    await refused(() => email(member, { ...asAdmin, status: 'outbox', send_in: 5 }))
    await refused(() => email(member, { ...asAdmin, status: 'scheduled', date_scheduled: later() }))
    await refused(() => email(member, { ...asAdmin, status: 'draft' }))
    await refused(() => email(member, { ...asAdmin, status: 'sent' }))
    await refused(() => email(member, { ...asAdmin, status: 'inbox' }))
    await nothingSent('email')
  })

  it('an admin logs for a colleague, but never drafts, schedules or sends through their account', async () => {
    const asRep = { user_id: org.member.id, sender: REP_ADDRESS }
    const admin = org.admin.key
    const res = await refused(() => email(admin, { ...asRep, status: 'outbox' }))
    expect(res.json<{ error: string }>().error).toMatch(/never outbox/)
    await refused(() => email(admin, { ...asRep, status: 'scheduled', date_scheduled: later() }))
    await refused(() => email(admin, { ...asRep, status: 'draft' }))
    for (const status of ['sent', 'inbox']) {
      const logged = await email(admin, { ...asRep, status })
      expect(logged.statusCode, logged.body).toBe(200)
      expect(logged.json()).toMatchObject({ status, user_id: org.member.id, created_by: org.admin.id })
    }
    await nothingSent('email')
  })

  it('PUT cannot send, schedule or edit a colleague’s draft; taking theirs back to draft stops it', async () => {
    const draft = (await email(org.admin.key, { status: 'draft', sender: ADMIN_ADDRESS })).json<{ id: string }>()
    const member = org.member.key
    await refused(() => putEmail(member, draft.id, { status: 'outbox' }))
    await refused(() => putEmail(member, draft.id, { status: 'scheduled', date_scheduled: later() }))
    await refused(() => putEmail(member, draft.id, { subject: 'Changed by a colleague' }))
    await refused(() => putEmail(member, draft.id, { to: ['someone@else.example'] }))

    const mine = (await email(member, { status: 'scheduled', sender: REP_ADDRESS, date_scheduled: later() })).json<{
      id: string
    }>()
    const admin = org.admin.key
    await refused(() => putEmail(admin, mine.id, { subject: 'Edited by the admin' }))
    // Unscheduling is a stop, as a delete is: anyone who may delete it may; rescheduling is the owner's alone.
    const stopped = await putEmail(admin, mine.id, { status: 'draft' })
    expect(stopped.statusCode, stopped.body).toBe(200)
    expect(stopped.json()).toMatchObject({ status: 'draft' })
    await refused(() => putEmail(admin, mine.id, { status: 'scheduled', date_scheduled: later() }))
    await refused(() => putEmail(admin, mine.id, { status: 'outbox' }))
    const afterwards = await nothingSent('email')

    // The owner still can (so the refusals above are about whose it is, not about the email).
    const sent = await putEmail(member, mine.id, { status: 'outbox' })
    expect(sent.statusCode, sent.body).toBe(200)
    await afterwards.drain()
    expect(sink.received.map((m) => m.rcptTo)).toEqual([['tess@client.example']])
  })
})

describe('texts: only its own user sends them', () => {
  const sms = (key: string, body: Record<string, unknown>) =>
    call(ctx.app, key, 'POST', '/activity/sms/', {
      body: {
        lead_id: texts.leadId,
        local_phone: INTERNAL_PHONE,
        remote_phone: CONTACT_PHONE,
        text: 'Hello',
        ...body,
      },
    })
  const putSms = (key: string, id: string, body: Record<string, unknown>) =>
    call(ctx.app, key, 'PUT', `/activity/sms/${id}/`, { body })

  it('POST takes no user_id: a text is always its writer’s', async () => {
    for (const key of [org.member.key, org.admin.key]) {
      const [me, colleague] = key === org.admin.key ? [org.admin.id, org.member.id] : [org.member.id, org.admin.id]
      const res = await sms(key, { status: 'draft', user_id: colleague })
      expect(res.statusCode, res.body).toBe(200)
      expect(res.json()).toMatchObject({ user_id: me })
    }
  })

  it('PUT cannot send, schedule or edit a colleague’s draft, member or admin', async () => {
    const adminDraft = (await sms(org.admin.key, { status: 'draft' })).json<{ id: string }>()
    const repDraft = (await sms(org.member.key, { status: 'draft' })).json<{ id: string }>()
    for (const [key, id] of [
      [org.member.key, adminDraft.id],
      [org.admin.key, repDraft.id],
    ] as const) {
      await refused(() => putSms(key, id, { status: 'outbox' }))
      await refused(() => putSms(key, id, { status: 'scheduled', date_scheduled: later() }))
      await refused(() => putSms(key, id, { text: 'Changed by a colleague' }))
    }
    const afterwards = await nothingSent('sms')

    const own = await putSms(org.member.key, repDraft.id, { status: 'outbox' })
    expect(own.statusCode, own.body).toBe(200)
    await afterwards.drain()
    expect(gatewayGot.map((m) => m.id)).toEqual([repDraft.id])
  })

  it('nobody sends from a colleague’s direct line; a shared line and one’s own are fine', async () => {
    const adminLine = '+14155550177'
    const repLine = '+14155550178'
    for (const [number, userId] of [
      [adminLine, org.admin.id],
      [repLine, org.member.id],
    ] as const) {
      const made = await call(ctx.app, org.admin.key, 'POST', '/phone_number/', {
        body: { number, type: 'internal', user_id: userId },
      })
      expect(made.statusCode, made.body).toBe(200)
    }
    await refused(() => sms(org.member.key, { status: 'outbox', local_phone: adminLine }))
    await refused(() => sms(org.admin.key, { status: 'scheduled', date_scheduled: later(), local_phone: repLine }))
    const draft = (await sms(org.member.key, { status: 'draft', local_phone: adminLine })).json<{ id: string }>()
    await refused(() => putSms(org.member.key, draft.id, { status: 'outbox' }))
    const ownDraft = (await sms(org.member.key, { status: 'draft' })).json<{ id: string }>()
    await refused(() => putSms(org.member.key, ownDraft.id, { status: 'outbox', local_phone: adminLine }))
    const afterwards = await nothingSent('sms')

    const fromOwn = await sms(org.member.key, { status: 'outbox', local_phone: repLine })
    expect(fromOwn.statusCode, fromOwn.body).toBe(200)
    const fromShared = await putSms(org.member.key, ownDraft.id, { status: 'outbox' })
    expect(fromShared.statusCode, fromShared.body).toBe(200)
    await afterwards.drain()
    expect(gatewayGot.map((m) => m.id).sort()).toEqual([fromOwn.json<{ id: string }>().id, ownDraft.id].sort())
  })
})
