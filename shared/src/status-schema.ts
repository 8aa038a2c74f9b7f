import { Type, type Static } from '@sinclair/typebox'

export const leadStatusSchema = Type.Object({
  id: Type.String(),
  label: Type.String(),
  organization_id: Type.String(),
})
export type LeadStatus = Static<typeof leadStatusSchema>

export const OPPORTUNITY_STATUS_TYPES = ['active', 'won', 'lost'] as const
export const opportunityStatusTypeSchema = Type.Union(OPPORTUNITY_STATUS_TYPES.map((t) => Type.Literal(t)))
export type OpportunityStatusType = Static<typeof opportunityStatusTypeSchema>

export const opportunityStatusSchema = Type.Object({
  id: Type.String(),
  label: Type.String(),
  type: opportunityStatusTypeSchema,
  pipeline_id: Type.String(),
  organization_id: Type.String(),
})
export type OpportunityStatus = Static<typeof opportunityStatusSchema>
