import { parseTimestamp } from '../../platform/data/time.js'
import { defineFilters } from '../../platform/data/list-filters.js'

/** The filters every activity list takes (and the email threads' list, on their emails). */
export const activityFilters = defineFilters('activity', {
  lead_id: { column: 'lead_id', ops: ['eq'] },
  user_id: { column: 'user_id', ops: ['eq'] },
  contact_id: { column: 'contact_id', ops: ['eq'] },
  opportunity_id: { column: 'opportunity_id', ops: ['eq'], description: 'Status changes of this opportunity.' },
  task_id: { column: 'task_id', ops: ['eq'], description: 'Completions of this task.' },
  // Read as activity lists always have: any ISO form, to the millisecond.
  date_created: { column: 'date_created', kind: 'timestamp', ops: ['gt', 'gte', 'lt', 'lte'], read: parseTimestamp },
})
