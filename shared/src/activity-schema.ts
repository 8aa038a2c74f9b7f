import { Type, type Static } from '@sinclair/typebox'
import { commonFieldsSchema, timestampSchema } from './list.js'
import { opportunityStatusTypeSchema } from './status-schema.js'

const nullableString = () => Type.Union([Type.String(), Type.Null()])

const activityBase = {
  id: Type.String(),
  organization_id: Type.String(),
  lead_id: Type.String(),
  contact_id: nullableString(),
  user_id: nullableString(),
  user_name: nullableString(),
  ...commonFieldsSchema,
  /** When the activity happened: its date_created unless the activity says otherwise. */
  activity_at: timestampSchema,
  users: Type.Array(Type.String(), { description: 'Other users who took part; none for these types.' }),
}

export const createdActivitySchema = Type.Object({
  ...activityBase,
  _type: Type.Literal('Created'),
  source: Type.String(),
  import_id: nullableString(),
})
export const noteActivitySchema = Type.Object({
  ...activityBase,
  _type: Type.Literal('Note'),
  note: Type.String(),
  note_html: Type.String({ description: 'The note escaped, paragraphs in <p>, line breaks as <br>.' }),
})
export const leadStatusChangeActivitySchema = Type.Object({
  ...activityBase,
  _type: Type.Literal('LeadStatusChange'),
  old_status_id: nullableString(),
  old_status_label: nullableString(),
  new_status_id: Type.String(),
  new_status_label: Type.String(),
})

export const opportunityStatusChangeActivitySchema = Type.Object({
  ...activityBase,
  _type: Type.Literal('OpportunityStatusChange'),
  opportunity_id: Type.String(),
  old_status_id: nullableString(),
  old_status_label: nullableString(),
  old_status_type: Type.Union([opportunityStatusTypeSchema, Type.Null()]),
  new_status_id: Type.String(),
  new_status_label: Type.String(),
  new_status_type: opportunityStatusTypeSchema,
  opportunity_value: Type.Union([Type.Integer(), Type.Null()]),
  opportunity_value_period: Type.String(),
  opportunity_value_currency: Type.String(),
  opportunity_value_formatted: nullableString(),
  opportunity_confidence: Type.Integer(),
  opportunity_date_won: Type.Union([Type.String({ description: 'YYYY-MM-DD' }), Type.Null()]),
})

export const taskCompletedActivitySchema = Type.Object({
  ...activityBase,
  _type: Type.Literal('TaskCompleted'),
  task_id: Type.String(),
  task_text: Type.String(),
})

export const activitySchema = Type.Union([
  createdActivitySchema,
  noteActivitySchema,
  leadStatusChangeActivitySchema,
  opportunityStatusChangeActivitySchema,
  taskCompletedActivitySchema,
])
export type Activity = Static<typeof activitySchema>
export type ActivityType = Activity['_type']
