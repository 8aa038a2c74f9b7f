import { CUSTOM_OBJECT_TYPES } from '@leadline/shared/custom-field-schema'
import { TASK_TYPES } from '@leadline/shared/task-schema'
import { activityObjectType, FILTERABLE_ACTIVITY_TYPES } from '../../crm/activities/activity-repo.js'

/**
 * Every `object_type` the event log writes (or will write, for activities whose kinds arrive with later issues).
 * Webhook subscriptions may ask only for these. A writer of a new kind of object adds it here.
 */
export const EVENT_OBJECT_TYPES: readonly string[] = [
  'lead',
  'contact',
  'opportunity',
  ...TASK_TYPES.map((type) => `task.${type}`),
  ...FILTERABLE_ACTIVITY_TYPES.map(activityObjectType),
  'status.lead',
  'status.opportunity',
  'pipeline',
  ...CUSTOM_OBJECT_TYPES.map((kind) => `custom_field.${kind}`),
  'outcome',
  'phone_number',
  'organization',
]

export function isEventObjectType(value: string): boolean {
  return EVENT_OBJECT_TYPES.includes(value)
}

/**
 * Every `object_type` the event log holds: those subscriptions may ask for, and those only other screens follow
 * (members, and objects whose data not every member may read). `/event/` refuses a filter on any other.
 */
export const LOGGED_OBJECT_TYPES: readonly string[] = [
  ...EVENT_OBJECT_TYPES,
  'membership',
  'email_account',
  'email_template',
  'webhook',
]
