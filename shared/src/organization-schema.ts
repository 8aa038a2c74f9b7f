import { Type, type Static } from '@sinclair/typebox'
import { timestampSchema } from './list.js'
import { membershipSchema } from './user-schema.js'
import { opportunityStatusTypeSchema } from './status-schema.js'
import { customFieldSchema } from './custom-field-schema.js'
import { pipelineSchema } from './pipeline-schema.js'

export const organizationSchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  currency: Type.String(),
  currency_symbol: Type.String(),
  country: Type.String(),
  lead_statuses: Type.Array(Type.Object({ id: Type.String(), label: Type.String() })),
  opportunity_statuses: Type.Array(
    Type.Object({
      id: Type.String(),
      label: Type.String(),
      type: opportunityStatusTypeSchema,
      pipeline_id: Type.String(),
    }),
  ),
  memberships: Type.Array(membershipSchema),
  inactive_memberships: Type.Array(membershipSchema),
  lead_custom_fields: Type.Array(customFieldSchema, { description: 'The lead custom fields, in their order.' }),
  contact_custom_fields: Type.Array(customFieldSchema, { description: 'The contact custom fields, in their order.' }),
  opportunity_custom_fields: Type.Array(customFieldSchema, {
    description: 'The opportunity custom fields, in their order.',
  }),
  pipelines: Type.Array(pipelineSchema, { description: 'The pipelines, in order, each with its statuses.' }),
  user_count: Type.Integer(),
  created_by: Type.Union([Type.String(), Type.Null()]),
  updated_by: Type.Union([Type.String(), Type.Null()]),
  date_created: timestampSchema,
  date_updated: timestampSchema,
})
export type Organization = Static<typeof organizationSchema>
