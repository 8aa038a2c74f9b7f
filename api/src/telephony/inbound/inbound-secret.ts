import { randomBytes } from 'node:crypto'
import type { Db, InboundSecretTable } from '../../platform/data/database.js'
import type { SecretBox } from '../../platform/security/secret-box.js'
import { inboundSecretContext, openSecret, storeSecret } from '../../platform/security/stored-secrets.js'

// Each organization's inbound secret is stored sealed under LEADLINE_SECRET_KEY (decision 0040); these functions
// answer it opened, as `secret` (64 hex characters).

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

function opened(box: SecretBox | null, row: InboundSecretTable): InboundSecretTable {
  const context = inboundSecretContext(row.organization_id)
  const what = `The inbound secret of ${row.organization_id}`
  return { ...row, secret: openSecret(box, row.secret, context, what) }
}

/** The organization's secret, or undefined when none was ever made (then no request can be signed with it). */
export async function findInboundSecret(
  db: Db,
  box: SecretBox | null,
  organizationId: string,
): Promise<InboundSecretTable | undefined> {
  const row = await db
    .selectFrom('inbound_secret')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .executeTakeFirst()
  return row === undefined ? undefined : opened(box, row)
}

/** The organization's secret, made on first use (two first uses at once agree on one). */
export async function inboundSecret(
  db: Db,
  box: SecretBox | null,
  organizationId: string,
  now: string,
): Promise<InboundSecretTable> {
  const existing = await findInboundSecret(db, box, organizationId)
  if (existing !== undefined) return existing
  const secret = storeSecret(box, randomBytes(32).toString('hex'), inboundSecretContext(organizationId))
  await db
    .insertInto('inbound_secret')
    .values({ organization_id: organizationId, secret, date_created: now })
    .onConflict((oc) => oc.column('organization_id').doNothing())
    .execute()
  const made = await findInboundSecret(db, box, organizationId)
  if (made === undefined) throw new Error('the inbound secret could not be stored')
  return made
}

/** Replaces the organization's secret with a new one: requests signed with the old one are refused from now on. */
export async function rotateInboundSecret(
  db: Db,
  box: SecretBox | null,
  organizationId: string,
  now: string,
): Promise<InboundSecretTable> {
  const secret = randomBytes(32).toString('hex')
  const stored = storeSecret(box, secret, inboundSecretContext(organizationId))
  await db
    .insertInto('inbound_secret')
    .values({ organization_id: organizationId, secret: stored, date_created: now })
    .onConflict((oc) => oc.column('organization_id').doUpdateSet({ secret: stored, date_created: now }))
    .execute()
  return { organization_id: organizationId, secret, date_created: now }
}
