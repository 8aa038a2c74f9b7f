import { Type, type Static } from '@sinclair/typebox'
import { customValueSchema } from './custom-field-schema.js'
import { commonFieldsSchema, timestampSchema } from './list.js'
import { VALUE_PERIODS } from './money.js'
import { opportunityStatusTypeSchema } from './status-schema.js'

const nullableString = () => Type.Union([Type.String(), Type.Null()])
const nullableInteger = () => Type.Union([Type.Integer(), Type.Null()])

export const valuePeriodSchema = Type.Union(VALUE_PERIODS.map((p) => Type.Literal(p)))

export const opportunitySchema = Type.Object(
  {
    id: Type.String(),
    organization_id: Type.String(),
    lead_id: Type.String(),
    lead_name: nullableString(),
    contact_id: nullableString(),
    contact_name: nullableString(),
    status_id: Type.String(),
    status_label: Type.String(),
    status_display_name: Type.String(),
    status_type: opportunityStatusTypeSchema,
    pipeline_id: Type.String(),
    pipeline_name: Type.String(),
    value: Type.Union([Type.Integer({ description: "In the currency's smallest unit (cents)." }), Type.Null()]),
    value_period: valuePeriodSchema,
    value_currency: Type.String(),
    value_formatted: Type.Union([
      Type.String({ description: 'As Close writes it: `$1,500`, `$100 monthly`, `€2,000 annual`.' }),
      Type.Null(),
    ]),
    annualized_value: nullableInteger(),
    expected_value: Type.Union([Type.Integer({ description: 'value × confidence / 100, rounded.' }), Type.Null()]),
    annualized_expected_value: nullableInteger(),
    confidence: Type.Integer({ minimum: 0, maximum: 100 }),
    date_won: Type.Union([Type.String({ description: 'YYYY-MM-DD' }), Type.Null()]),
    date_lost: Type.Union([timestampSchema, Type.Null()]),
    note: Type.String(),
    user_id: nullableString(),
    user_name: nullableString(),
    ...commonFieldsSchema,
    integration_links: Type.Array(Type.Unknown()),
    custom: Type.Record(Type.String(), Type.Union([customValueSchema, Type.Array(customValueSchema)]), {
      description: 'Deprecated: the values keyed by field name.',
    }),
  },
  { additionalProperties: true, description: 'Custom field values appear as `custom.<field id>` keys.' },
)
export type Opportunity = Static<typeof opportunitySchema> & Record<`custom.${string}`, unknown>

/** The sums every opportunity list carries over all its matches, however it is paged (and each group's own). */
export const opportunityAggregateFields = {
  total_results: Type.Integer(),
  count_by_value_period: Type.Object({ one_time: Type.Integer(), monthly: Type.Integer(), annual: Type.Integer() }),
  total_value_one_time: Type.Integer(),
  total_value_monthly: Type.Integer(),
  total_value_annual: Type.Integer(),
  total_value_annualized: Type.Integer({ description: 'One-time and annual values, and monthly ones × 12.' }),
  expected_value_one_time: Type.Integer({ description: 'Values × confidence / 100, rounded per opportunity.' }),
  expected_value_monthly: Type.Integer(),
  expected_value_annual: Type.Integer(),
  expected_value_annualized: Type.Integer(),
}
export const opportunityAggregatesSchema = Type.Object(opportunityAggregateFields)
export type OpportunityAggregates = Static<typeof opportunityAggregatesSchema>
