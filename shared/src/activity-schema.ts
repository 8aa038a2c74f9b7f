import { Type, type Static } from '@sinclair/typebox'
import { timestampSchema } from './list.js'

const nullableString = () => Type.Union([Type.String(), Type.Null()])

const activityBase = {
  id: Type.String(),
  organization_id: Type.String(),
  lead_id: Type.String(),
  contact_id: nullableString(),
  user_id: nullableString(),
  user_name: nullableString(),
  created_by: nullableString(),
  created_by_name: nullableString(),
  updated_by: nullableString(),
  updated_by_name: nullableString(),
  date_created: timestampSchema,
  date_updated: timestampSchema,
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

export const activitySchema = Type.Union([createdActivitySchema, noteActivitySchema, leadStatusChangeActivitySchema])
export type Activity = Static<typeof activitySchema>
export type ActivityType = Activity['_type']
