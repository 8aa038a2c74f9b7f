import { Type, type Static } from '@sinclair/typebox'
import { timestampSchema } from './list.js'

/** `vm-dropped`: the outcome Close sets on a call when a voicemail is dropped; every other outcome is `custom`. */
export const OUTCOME_TYPES = ['custom', 'vm-dropped'] as const
export const OUTCOME_APPLIES_TO = ['calls', 'meetings'] as const

export const outcomeTypeSchema = Type.Union(OUTCOME_TYPES.map((t) => Type.Literal(t)))
export const outcomeAppliesToSchema = Type.Union(OUTCOME_APPLIES_TO.map((t) => Type.Literal(t)))

export const outcomeSchema = Type.Object({
  id: Type.String(),
  organization_id: Type.String(),
  name: Type.String(),
  description: Type.Union([Type.String(), Type.Null()]),
  type: outcomeTypeSchema,
  applies_to: Type.Array(outcomeAppliesToSchema),
  position: Type.Integer({
    description:
      'Where the outcome stands in the organization’s order, from 0 (Leadline); `GET /outcome/` answers in it.',
  }),
  created_by: Type.Union([Type.String(), Type.Null()]),
  updated_by: Type.Union([Type.String(), Type.Null()]),
  date_created: timestampSchema,
  date_updated: timestampSchema,
})
export type Outcome = Static<typeof outcomeSchema>
export type OutcomeType = Outcome['type']
export type OutcomeAppliesTo = Outcome['applies_to'][number]
