import { Type, type Static } from '@sinclair/typebox'
import { commonFieldsSchema } from './list.js'

/** The eight task types, and the kind of object each is about (null: the lead itself). */
export const TASK_OBJECT_TYPES = {
  lead: null,
  incoming_email: 'emailthread',
  email_followup: 'emailthread',
  missed_call: 'call',
  answered_detached_call: 'call',
  voicemail: 'call',
  opportunity_due: 'opportunity',
  incoming_sms: 'sms',
} as const

export type TaskType = keyof typeof TASK_OBJECT_TYPES
export const TASK_TYPES = Object.keys(TASK_OBJECT_TYPES) as TaskType[]

export function isTaskType(value: string): value is TaskType {
  return Object.hasOwn(TASK_OBJECT_TYPES, value)
}

/** The fields each system type carries besides the common ones (Close's task table). */
export const TASK_TYPE_FIELDS: Record<TaskType, readonly string[]> = {
  lead: ['text'],
  incoming_email: ['emails', 'subject', 'body_preview'],
  email_followup: ['email_id', 'subject', 'body_preview'],
  missed_call: ['phone', 'phone_formatted', 'local_phone', 'phone_number_description'],
  answered_detached_call: ['phone', 'phone_formatted', 'phone_number_description', 'recording_url'],
  voicemail: ['phone', 'phone_formatted', 'local_phone', 'voicemail_duration', 'voicemail_url'],
  opportunity_due: [
    'opportunity_value',
    'opportunity_value_currency',
    'opportunity_value_formatted',
    'opportunity_value_period',
    'opportunity_note',
  ],
  incoming_sms: ['text', 'remote_phone', 'remote_phone_formatted', 'local_phone', 'attachments'],
}

const nullableString = () => Type.Union([Type.String(), Type.Null()])

export const taskViewSchema = Type.Union([Type.Literal('inbox'), Type.Literal('future'), Type.Literal('archive')])

export const taskSchema = Type.Object(
  {
    id: Type.String({ description: '`task_…` for lead tasks, `noti_…` for the other types.' }),
    _type: Type.String({ description: TASK_TYPES.map((t) => `\`${t}\``).join(', ') }),
    view: Type.Union([taskViewSchema], { description: 'Where the task is for the caller, in their time zone.' }),
    organization_id: Type.String(),
    lead_id: Type.String(),
    lead_name: nullableString(),
    contact_id: nullableString(),
    contact_name: nullableString(),
    assigned_to: nullableString(),
    assigned_to_name: nullableString(),
    date: Type.String({
      description: 'Date-only `YYYY-MM-DD` or a timestamp; a dateless task shows its creation day.',
    }),
    due_date: Type.Union([Type.String(), Type.Null()], { description: 'Deprecated: `date`, null when dateless.' }),
    is_dateless: Type.Boolean(),
    is_complete: Type.Boolean(),
    object_type: nullableString(),
    object_id: nullableString(),
    date_completed: Type.Union([Type.String(), Type.Null()], {
      description: 'When the task was completed, null while open (not in Close’s task).',
    }),
    ...commonFieldsSchema,
  },
  { additionalProperties: true, description: 'Plus the fields of its type: `text` for `lead` tasks, and so on.' },
)
export type Task = Static<typeof taskSchema> & Record<string, unknown>
