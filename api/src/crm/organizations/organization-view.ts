import type { Organization } from '@leadline/shared/organization-schema'
import type { Membership } from '@leadline/shared/user-schema'
import type { Db } from '../../platform/data/database.js'
import { opportunityStatusesQuery } from '../statuses/status-repo.js'
import { customFieldsQuery, customFieldView } from '../custom-fields/custom-field-repo.js'
import { pipelinesQuery, pipelineViews } from '../pipelines/pipeline-repo.js'
import { displayName } from '../users/user-repo.js'

// Building an Intl.NumberFormat costs far more than using one: one per currency, made once.
const symbols = new Map<string, string>()

export function currencySymbol(currency: string): string {
  let symbol = symbols.get(currency)
  if (symbol === undefined) {
    const part = new Intl.NumberFormat('en-US', { style: 'currency', currency, currencyDisplay: 'narrowSymbol' })
      .formatToParts(0)
      .find((p) => p.type === 'currency')
    symbol = part?.value ?? currency
    symbols.set(currency, symbol)
  }
  return symbol
}

/** The organization's memberships in Close's shape, active and deactivated apart. */
export async function membershipViews(
  db: Db,
  organizationId: string,
  userId?: string,
): Promise<{ active: Membership[]; inactive: Membership[] }> {
  let query = db
    .selectFrom('membership')
    .innerJoin('user', 'user.id', 'membership.user_id')
    .select([
      'membership.id',
      'membership.organization_id',
      'membership.user_id',
      'membership.role',
      'membership.status',
      'membership.date_created',
      'membership.date_updated',
      'user.email',
      'user.first_name',
      'user.last_name',
    ])
    .where('membership.organization_id', '=', organizationId)
  if (userId !== undefined) query = query.where('membership.user_id', '=', userId)
  const rows = await query.orderBy('membership.date_created').orderBy('membership.id').execute()
  const views = rows.map((row) => ({
    id: row.id,
    organization_id: row.organization_id,
    user_id: row.user_id,
    user_email: row.email,
    user_full_name: displayName(row),
    user_first_name: row.first_name,
    user_last_name: row.last_name,
    role_id: row.role,
    role: row.role,
    date_created: row.date_created,
    date_updated: row.date_updated,
  }))
  return {
    active: views.filter((_, n) => rows[n]?.status === 'active'),
    inactive: views.filter((_, n) => rows[n]?.status !== 'active'),
  }
}

/** The organization as the API shows it, or undefined when it does not exist. */
export async function organizationView(db: Db, organizationId: string): Promise<Organization | undefined> {
  const org = await db.selectFrom('organization').selectAll().where('id', '=', organizationId).executeTakeFirst()
  if (org === undefined) return undefined
  const [leadStatuses, opportunityStatuses, memberships, leadFields, contactFields, opportunityFields, pipelines] =
    await Promise.all([
      db
        .selectFrom('lead_status')
        .select(['id', 'label'])
        .where('organization_id', '=', organizationId)
        .orderBy('position')
        .orderBy('id')
        .execute(),
      opportunityStatusesQuery(db, organizationId).execute(),
      membershipViews(db, organizationId),
      customFieldsQuery(db, organizationId, 'lead').execute(),
      customFieldsQuery(db, organizationId, 'contact').execute(),
      customFieldsQuery(db, organizationId, 'opportunity').execute(),
      pipelinesQuery(db, organizationId)
        .execute()
        .then((rows) => pipelineViews(db, rows)),
    ])
  return {
    id: org.id,
    name: org.name,
    currency: org.currency,
    currency_symbol: currencySymbol(org.currency),
    country: org.country,
    lead_statuses: leadStatuses,
    opportunity_statuses: opportunityStatuses.map(({ id, label, type, pipeline_id }) => ({
      id,
      label,
      type,
      pipeline_id,
    })),
    memberships: memberships.active,
    inactive_memberships: memberships.inactive,
    lead_custom_fields: leadFields.map(customFieldView),
    contact_custom_fields: contactFields.map(customFieldView),
    opportunity_custom_fields: opportunityFields.map(customFieldView),
    pipelines,
    user_count: memberships.active.length,
    created_by: org.created_by,
    updated_by: org.updated_by,
    date_created: org.date_created,
    date_updated: org.date_updated,
  }
}
