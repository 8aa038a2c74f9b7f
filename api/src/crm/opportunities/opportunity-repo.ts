import { annualizedValue, expectedValue, formatOpportunityValue } from '@leadline/shared/money'
import type { Opportunity } from '@leadline/shared/opportunity-schema'
import type { Selectable } from 'kysely'
import type { Db, OpportunityTable } from '../../platform/data/database.js'
import { customFieldsView, readCustomValues } from '../custom-fields/custom-values.js'
import type { OrganizationMeta } from '../organizations/organization-meta.js'
import { relatedNames } from '../users/owner-names.js'
import { findInOrganization } from '../../platform/data/find-or-404.js'
import { rowsOfLeads } from '../leads/lead-rows.js'

export type OpportunityRow = Selectable<OpportunityTable>

/** `lock` takes a row lock until the transaction ends (Postgres only: SQLite has no FOR UPDATE). */
export async function findOpportunity(db: Db, organizationId: string, id: string, options: { lock?: boolean } = {}) {
  return findInOrganization(db, 'opportunity', organizationId, id, options)
}

/** The opportunities of some leads, oldest first (as a lead shows them). */
export async function opportunitiesOfLeads(
  db: Db,
  organizationId: string,
  leadIds: string[],
): Promise<OpportunityRow[]> {
  if (leadIds.length === 0) return []
  return rowsOfLeads(db, 'opportunity', organizationId, leadIds).execute()
}

/** Postgres returns a bigint as text; the API speaks numbers (values stay far below 2^53). */
export function money(value: number | string | null): number | null {
  return value === null ? null : Number(value)
}

/**
 * The wire form of opportunities, in a handful of queries however many there are: status, pipeline and member names
 * from the organization's metadata, lead and contact names and custom values read once. `leadNames` saves reading
 * the names of leads the caller already holds.
 */
export async function opportunityViews(
  db: Db,
  meta: OrganizationMeta,
  rows: OpportunityRow[],
  leadNames?: Map<string, string | null>,
): Promise<Opportunity[]> {
  if (rows.length === 0) return []
  const [names, custom] = await Promise.all([
    relatedNames(
      db,
      meta,
      {
        leads: rows.map((r) => r.lead_id),
        contacts: rows.map((r) => r.contact_id),
        users: rows.flatMap((r) => [r.user_id, r.created_by, r.updated_by]),
      },
      leadNames,
    ),
    readCustomValues(
      db,
      meta.organization.id,
      rows.map((r) => r.id),
    ),
  ])
  const userName = (id: string | null) => (id === null ? null : (names.users.get(id) ?? null))
  return rows.map((row): Opportunity => {
    const status = meta.opportunityStatuses.get(row.status_id)
    const value = money(row.value)
    const annualized = annualizedValue(value, row.value_period)
    return {
      id: row.id,
      organization_id: row.organization_id,
      lead_id: row.lead_id,
      lead_name: names.leads.get(row.lead_id) ?? null,
      contact_id: row.contact_id,
      contact_name: row.contact_id === null ? null : (names.contacts.get(row.contact_id) ?? null),
      status_id: row.status_id,
      status_label: status?.label ?? '',
      status_display_name: status?.label ?? '',
      status_type: status?.type ?? 'active',
      pipeline_id: status?.pipeline_id ?? '',
      pipeline_name: status === undefined ? '' : (meta.pipelineNames.get(status.pipeline_id) ?? ''),
      value,
      value_period: row.value_period,
      value_currency: row.value_currency,
      value_formatted: formatOpportunityValue(value, row.value_currency, row.value_period),
      annualized_value: annualized,
      expected_value: expectedValue(value, row.confidence),
      annualized_expected_value: expectedValue(annualized, row.confidence),
      confidence: row.confidence,
      date_won: row.date_won,
      date_lost: row.date_lost,
      note: row.note,
      user_id: row.user_id,
      user_name: userName(row.user_id),
      created_by: row.created_by,
      created_by_name: userName(row.created_by),
      updated_by: row.updated_by,
      updated_by_name: userName(row.updated_by),
      date_created: row.date_created,
      date_updated: row.date_updated,
      integration_links: [],
      ...customFieldsView(custom.get(row.id), meta.customFields.opportunity),
    }
  })
}
