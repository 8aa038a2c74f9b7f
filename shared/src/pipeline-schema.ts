import { Type, type Static } from '@sinclair/typebox'
import { commonFieldsSchema } from './list.js'
import { opportunityStatusSchema } from './status-schema.js'

export const pipelineSchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  organization_id: Type.String(),
  statuses: Type.Array(opportunityStatusSchema, { description: 'The opportunity statuses of the pipeline, in order.' }),
  ...commonFieldsSchema,
})
export type Pipeline = Static<typeof pipelineSchema>
