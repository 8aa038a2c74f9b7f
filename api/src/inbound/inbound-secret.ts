import { randomBytes } from 'node:crypto'
import type { Db, InboundSecretTable } from '../db/database.js'

/** What `GET /inbound/secret/` and `leadline inbound-secret` show: the secret as Standard Webhooks libraries take it. */
export interface InboundSecretView {
  organization_id: string
  secret: string
  date_created: string
}

export function inboundSecretView(row: InboundSecretTable): InboundSecretView {
  return {
    organization_id: row.organization_id,
    secret: `whsec_${Buffer.from(row.secret, 'hex').toString('base64')}`,
    date_created: row.date_created,
  }
}

/** The organization's secret, or undefined when none was ever made (then no request can be signed with it). */
export async function findInboundSecret(db: Db, organizationId: string): Promise<InboundSecretTable | undefined> {
  return db.selectFrom('inbound_secret').selectAll().where('organization_id', '=', organizationId).executeTakeFirst()
}

/** The organization's secret, made on first use (two first uses at once agree on one). */
export async function inboundSecret(db: Db, organizationId: string, now: string): Promise<InboundSecretTable> {
  const existing = await findInboundSecret(db, organizationId)
  if (existing !== undefined) return existing
  await db
    .insertInto('inbound_secret')
    .values({ organization_id: organizationId, secret: randomBytes(32).toString('hex'), date_created: now })
    .onConflict((oc) => oc.column('organization_id').doNothing())
    .execute()
  const made = await findInboundSecret(db, organizationId)
  if (made === undefined) throw new Error('the inbound secret could not be stored')
  return made
}

/** Replaces the organization's secret with a new one: requests signed with the old one are refused from now on. */
export async function rotateInboundSecret(db: Db, organizationId: string, now: string): Promise<InboundSecretTable> {
  const row = { organization_id: organizationId, secret: randomBytes(32).toString('hex'), date_created: now }
  await db
    .insertInto('inbound_secret')
    .values(row)
    .onConflict((oc) => oc.column('organization_id').doUpdateSet({ secret: row.secret, date_created: now }))
    .execute()
  return row
}
