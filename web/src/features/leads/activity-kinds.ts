import type { ActivityType } from '@leadline/shared/activity-schema'

// The timeline's filter: each kind, its button and the activity types it asks the API for. No React: the route's
// search check and the query use it.

export const ACTIVITY_KINDS = [
  { kind: 'notes', label: 'Notes', types: ['Note'], empty: 'No notes yet.' },
  { kind: 'calls', label: 'Calls', types: ['Call'], empty: 'No calls yet.' },
  { kind: 'sms', label: 'SMS', types: ['SMS'], empty: 'No text messages yet.' },
  { kind: 'email', label: 'Email', types: ['Email'], empty: 'No emails yet.' },
  { kind: 'status', label: 'Status changes', types: ['LeadStatusChange'], empty: 'No status changes yet.' },
  { kind: 'tasks', label: 'Tasks', types: ['TaskCompleted'], empty: 'No completed tasks yet.' },
  {
    kind: 'opportunities',
    label: 'Opportunities',
    types: ['OpportunityStatusChange'],
    empty: 'No opportunity changes yet.',
  },
] as const satisfies readonly { kind: string; label: string; types: readonly ActivityType[]; empty: string }[]

/** A filtered kind; no kind is All, which also shows the lead's Created entry. */
export type ActivityKind = (typeof ACTIVITY_KINDS)[number]['kind']

export interface LeadPageSearch {
  activity?: ActivityKind | undefined
}

/** The lead page's search params: an unknown `activity` is All, overwritten with undefined so it leaves the URL. */
export function leadPageSearchOf(search: Record<string, unknown>): LeadPageSearch {
  return { activity: ACTIVITY_KINDS.find((k) => k.kind === search.activity)?.kind }
}

/** The `_type__in` the API is asked for, or undefined for All. */
export function activityTypesOf(kind: ActivityKind | undefined): string | undefined {
  return ACTIVITY_KINDS.find((k) => k.kind === kind)?.types.join(',')
}
