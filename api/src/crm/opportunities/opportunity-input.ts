import { Type, type Static } from '@sinclair/typebox'
import { valuePeriodSchema } from '@leadline/shared/opportunity-schema'
import type { OpportunityStatusType } from '@leadline/shared/status-schema'
import type { ValuePeriod } from '@leadline/shared/money'
import type { Db } from '../../platform/data/database.js'
import { opportunityStatusesQuery } from '../statuses/status-repo.js'
import type { OpportunityRow } from './opportunity-repo.js'
import { checkContactOfLead } from '../contacts/contact-repo.js'
import { parseCalendarDate } from '../../platform/data/calendar-dates.js'
import {
  listCustomFieldDefs,
  parseCustomInput,
  unknownContactErrors,
  type CustomValue,
} from '../custom-fields/custom-values.js'

/**
 * The largest value accepted, a billion in the currency's unit: a report sums values annualized (monthly ones × 12)
 * in 64-bit integers, and 70 million opportunities of this value a month still fit.
 */
export const VALUE_MAX = 100_000_000_000
export const NOTE_MAX = 100_000
const CURRENCIES = new Set(Intl.supportedValuesOf('currency'))

const nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()])

/**
 * An opportunity as clients send it. Fields Close computes (`value_formatted`, `status_label`, `lead_name`, …) are
 * accepted and ignored, as a client sends a fetched object back; `custom.*` keys ride along.
 */
export const opportunityBodySchema = Type.Object(
  {
    lead_id: Type.Optional(Type.String({ description: 'Required on create; cannot change afterwards (ignored).' })),
    status_id: Type.Optional(Type.String()),
    status: Type.Optional(Type.String({ description: 'A status label, instead of `status_id`.' })),
    pipeline_id: Type.Optional(
      Type.String({ description: 'Without a status: the pipeline whose first active status to take.' }),
    ),
    contact_id: Type.Optional(nullable(Type.String({ description: 'A contact of the lead.' }))),
    user_id: Type.Optional(Type.String({ description: 'The owner, a member; defaults to the caller.' })),
    value: Type.Optional(
      nullable(Type.Integer({ minimum: 0, maximum: VALUE_MAX, description: "In the currency's smallest unit." })),
    ),
    value_period: Type.Optional(valuePeriodSchema),
    value_currency: Type.Optional(
      Type.String({ pattern: '^[A-Z]{3}$', description: "ISO 4217; defaults to the organization's currency." }),
    ),
    confidence: Type.Optional(
      nullable(Type.Integer({ minimum: 0, maximum: 100, description: 'Percent; null is taken as not given.' })),
    ),
    date_won: Type.Optional(
      nullable(
        Type.String({ maxLength: 40, description: 'YYYY-MM-DD, or that date with a midnight time, as Close takes.' }),
      ),
    ),
    note: Type.Optional(nullable(Type.String({ maxLength: NOTE_MAX }))),
  },
  { additionalProperties: true },
)
export type OpportunityBody = Static<typeof opportunityBodySchema>

/** A date and a midnight time, as Close scripts send `date_won` (`2025-01-15 00:00:00`, `…T00:00:00.000Z`). */
const MIDNIGHT = /^(\d{4}-\d{2}-\d{2})[ T]00:00(?::00(?:\.0{1,6})?)?(?:Z|[+-]00:?00)?$/

/** The calendar date of `text`, a date alone or with a midnight time; undefined for anything else. */
function dateAtMidnight(text: string): string | undefined {
  const day = MIDNIGHT.exec(text)?.[1] ?? text
  return parseCalendarDate(day) === undefined ? undefined : day
}

export interface StatusChoice {
  id: string
  label: string
  type: OpportunityStatusType
  pipeline_id: string
}

/** What an opportunity write needs to know of the organization, read in the writing transaction. */
export interface OpportunitySetting {
  organizationId: string
  currency: string
  memberUserIds: Set<string>
  /** By pipeline position, then status position. */
  statuses: StatusChoice[]
  pipelineIds: Set<string>
}

export async function loadOpportunitySetting(db: Db, organizationId: string): Promise<OpportunitySetting> {
  const [org, members, statuses, pipelines] = await Promise.all([
    db.selectFrom('organization').select('currency').where('id', '=', organizationId).executeTakeFirstOrThrow(),
    db.selectFrom('membership').select('user_id').where('organization_id', '=', organizationId).execute(),
    opportunityStatusesQuery(db, organizationId).execute(),
    db.selectFrom('pipeline').select('id').where('organization_id', '=', organizationId).execute(),
  ])
  return {
    organizationId,
    currency: org.currency,
    memberUserIds: new Set(members.map((m) => m.user_id)),
    statuses,
    pipelineIds: new Set(pipelines.map((p) => p.id)),
  }
}

/** A pipeline's first active status, else its first status. */
function firstStatusOf(statuses: StatusChoice[], pipelineId: string | undefined): StatusChoice | undefined {
  const candidates = pipelineId === undefined ? statuses : statuses.filter((s) => s.pipeline_id === pipelineId)
  const firstPipeline = candidates[0]?.pipeline_id
  const ofPipeline = candidates.filter((s) => s.pipeline_id === firstPipeline)
  return ofPipeline.find((s) => s.type === 'active') ?? ofPipeline[0]
}

/**
 * The status a body asks for: `status_id`, or `status` (a label, within `pipeline_id` when given), never both.
 * Without either, `pipeline_id` alone moves to that pipeline's first active status (unless `current` is already in
 * it); on create (`current` undefined) the first active status of the first pipeline is taken.
 */
function resolveStatus(
  body: OpportunityBody,
  setting: OpportunitySetting,
  current: StatusChoice | undefined,
  errors: Record<string, string>,
): StatusChoice | undefined {
  const pipelineId = body.pipeline_id
  if (pipelineId !== undefined && !setting.pipelineIds.has(pipelineId)) {
    errors.pipeline_id = 'Not a pipeline of your organization.'
    return undefined
  }
  if (body.status_id !== undefined && body.status !== undefined) {
    errors.status = 'Send either status_id or status (a label), not both.'
    return undefined
  }
  if (body.status_id !== undefined) {
    const found = setting.statuses.find((s) => s.id === body.status_id)
    if (found === undefined) {
      errors.status_id = `Not an opportunity status of your organization: ${JSON.stringify(body.status_id)}.`
    } else if (pipelineId !== undefined && found.pipeline_id !== pipelineId) {
      errors.status_id = 'This status is not in the pipeline given as pipeline_id.'
    }
    return found
  }
  if (body.status !== undefined) {
    const wanted = body.status.trim().toLowerCase()
    const matches = setting.statuses.filter(
      (s) => s.label.toLowerCase() === wanted && (pipelineId === undefined || s.pipeline_id === pipelineId),
    )
    if (matches.length === 0) errors.status = `Not an opportunity status label: ${JSON.stringify(body.status)}.`
    if (matches.length > 1) {
      errors.status = `${JSON.stringify(body.status)} is a status of ${String(matches.length)} pipelines: send status_id, or pipeline_id with it.`
    }
    return matches.length === 1 ? matches[0] : undefined
  }
  if (current !== undefined && (pipelineId === undefined || current.pipeline_id === pipelineId)) return current
  const first = firstStatusOf(setting.statuses, pipelineId)
  if (first === undefined) errors.status_id = 'The pipeline has no statuses.'
  return first
}

/** The columns a body sets, checked; `current` is the stored opportunity on an update. */
export interface PreparedOpportunity {
  values: {
    status_id?: string
    contact_id?: string | null
    user_id?: string
    value?: number | null
    value_period?: ValuePeriod
    value_currency?: string
    confidence?: number
    note?: string
    date_won?: string | null
    date_lost?: string | null
  }
  status: StatusChoice | undefined
  custom: Map<string, CustomValue[] | null>
}

/**
 * Checks a body against the organization (run it in the writing transaction): the status, a contact of `leadId`,
 * a member as owner, a known currency, a real `date_won`, custom values. Field errors are added to `errors`.
 */
export async function prepareOpportunity(
  db: Db,
  setting: OpportunitySetting,
  body: OpportunityBody,
  leadId: string | undefined,
  current: OpportunityRow | undefined,
  errors: Record<string, string>,
): Promise<PreparedOpportunity> {
  const currentStatus = current && setting.statuses.find((s) => s.id === current.status_id)
  const status = resolveStatus(body, setting, currentStatus, errors)
  const values: PreparedOpportunity['values'] = {}
  if (status !== undefined && status.id !== current?.status_id) values.status_id = status.id

  if (body.contact_id !== undefined) {
    if (leadId !== undefined) await checkContactOfLead(db, setting.organizationId, leadId, body.contact_id, errors)
    values.contact_id = body.contact_id
  }
  if (body.user_id !== undefined) {
    if (!setting.memberUserIds.has(body.user_id)) errors.user_id = 'Not a member of your organization.'
    values.user_id = body.user_id
  }
  if (body.value !== undefined) values.value = body.value
  if (body.value_period !== undefined) values.value_period = body.value_period
  if (body.value_currency !== undefined) {
    if (!CURRENCIES.has(body.value_currency)) errors.value_currency = 'Not a valid ISO 4217 currency code.'
    values.value_currency = body.value_currency
  }
  if (body.confidence !== undefined && body.confidence !== null) values.confidence = body.confidence
  if (body.date_won !== undefined) {
    const day = body.date_won === null ? null : dateAtMidnight(body.date_won)
    if (day === undefined) errors.date_won = 'Enter a date as YYYY-MM-DD.'
    values.date_won = day ?? body.date_won
  }
  if (body.note !== undefined) values.note = body.note ?? ''

  const [defs, members] = [await listCustomFieldDefs(db, setting.organizationId, 'opportunity'), setting.memberUserIds]
  const custom = parseCustomInput(body, defs, { memberUserIds: members })
  Object.assign(errors, custom.fieldErrors)
  Object.assign(errors, await unknownContactErrors(db, setting.organizationId, custom.contactRefs))
  return { values, status, custom: custom.changes }
}
