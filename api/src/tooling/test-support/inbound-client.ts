import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { Webhook } from 'standardwebhooks'
import type { Db } from '../../platform/data/database.js'
import { randomBase62 } from '../../platform/security/ids.js'
import type { Clock } from '../../platform/data/time.js'
import { call, type TestOrg } from './test-app.js'

// The telephony side of the inbound endpoint, as tests play it: requests signed by the `standardwebhooks` package
// with the secret an admin reads from `GET /inbound/secret/`.

export async function inboundSecretOf(app: FastifyInstance, org: TestOrg): Promise<string> {
  const res = await call(app, org.admin.key, 'GET', '/inbound/secret/')
  if (res.statusCode !== 200) throw new Error(`GET /inbound/secret/ answered ${res.statusCode}: ${res.body}`)
  return res.json<{ secret: string }>().secret
}

export interface SignedPost {
  organizationId: string
  secret: string
  body: unknown
  /** The `webhook-id`; a fresh one by default. */
  id?: string
  /** When it is signed; the clock's now by default. */
  at?: Date
  /** Headers sent instead of (or besides) the signed ones; `undefined` values drop a header. */
  headers?: Record<string, string | undefined>
  /** The text signed and sent instead of the body's JSON. */
  payload?: string
  /** The text sent when it is not what was signed. */
  sent?: string
}

/** POSTs a body to `/api/v1/inbound/<kind>/` signed as Standard Webhooks sign, with the organization header. */
export async function signedPost(
  app: FastifyInstance,
  clock: Clock,
  kind: 'sms' | 'call',
  post: SignedPost,
): Promise<LightMyRequestResponse> {
  const payload = post.payload ?? JSON.stringify(post.body)
  const id = post.id ?? `msg_${randomBase62(24)}`
  const at = post.at ?? clock.now()
  const signed: Record<string, string | undefined> = {
    'content-type': 'application/json',
    'leadline-organization': post.organizationId,
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': new Webhook(post.secret).sign(id, at, payload),
    ...post.headers,
  }
  const headers = Object.fromEntries(
    Object.entries(signed).filter((entry): entry is [string, string] => entry[1] !== undefined),
  )
  return app.inject({ method: 'POST', url: `/api/v1/inbound/${kind}/`, headers, payload: post.sent ?? payload })
}

/** What both endpoints answer. */
export interface InboundAnswer {
  activity_id: string
  lead_id: string
  task_id: string | null
}

/** A GET as the organization's admin that must answer 200. */
export async function adminGet<T>(
  app: FastifyInstance,
  org: TestOrg,
  path: string,
  query?: Record<string, string>,
): Promise<T> {
  const res = await call(app, org.admin.key, 'GET', path, query === undefined ? {} : { query })
  if (res.statusCode !== 200) throw new Error(`GET ${path} answered ${res.statusCode}: ${res.body}`)
  return res.json<T>()
}

/** The activity an answer names, as `GET /activity/` lists it on its lead (the routes of calls and texts are not ours). */
export async function answeredActivity(
  app: FastifyInstance,
  org: TestOrg,
  answer: InboundAnswer,
): Promise<Record<string, unknown>> {
  const page = await adminGet<{ data: Record<string, unknown>[] }>(app, org, '/activity/', { lead_id: answer.lead_id })
  const found = page.data.find((a) => a.id === answer.activity_id)
  if (found === undefined) throw new Error(`activity ${answer.activity_id} is not on lead ${answer.lead_id}`)
  return found
}

const COUNTED = ['lead', 'contact', 'activity', 'task', 'event', 'inbound_ref', 'inbound_receipt'] as const

/** What an organization has stored of the kinds the inbound endpoint writes. */
export async function storedCounts(db: Db, organizationId: string): Promise<Record<(typeof COUNTED)[number], number>> {
  const counts = { lead: 0, contact: 0, activity: 0, task: 0, event: 0, inbound_ref: 0, inbound_receipt: 0 }
  for (const table of COUNTED) {
    const row = await db
      .selectFrom(table)
      .select((eb) => eb.fn.countAll().as('n'))
      .where('organization_id', '=', organizationId)
      .executeTakeFirstOrThrow()
    counts[table] = Number(row.n)
  }
  return counts
}
