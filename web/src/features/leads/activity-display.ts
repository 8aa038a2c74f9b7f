import type { Activity } from '@leadline/shared/activity-schema'
import { textOf } from '../../lib/record'

// How the timeline shows each activity type, including the ones later issues add (Call, Email, SMS, Meeting…) that
// this build does not know yet: those get a plain entry instead of crashing the page. No React, so it is unit-tested.

export interface ActivityStyle {
  label: string
  badge: string
  border: string
}

const knownStyles: Record<Activity['_type'], ActivityStyle> = {
  Created: { badge: 'bg-emerald-100 text-emerald-800', label: 'Created', border: 'border-l-emerald-400' },
  Note: { badge: 'bg-amber-100 text-amber-800', label: 'Note', border: 'border-l-amber-400' },
  LeadStatusChange: { badge: 'bg-sky-100 text-sky-800', label: 'Status', border: 'border-l-sky-400' },
  OpportunityStatusChange: {
    badge: 'bg-violet-100 text-violet-800',
    label: 'Opportunity',
    border: 'border-l-violet-400',
  },
  TaskCompleted: { badge: 'bg-teal-100 text-teal-800', label: 'Task', border: 'border-l-teal-400' },
  Call: { badge: 'bg-rose-100 text-rose-800', label: 'Call', border: 'border-l-rose-400' },
  SMS: { badge: 'bg-indigo-100 text-indigo-800', label: 'SMS', border: 'border-l-indigo-400' },
  Email: { badge: 'bg-cyan-100 text-cyan-800', label: 'Email', border: 'border-l-cyan-400' },
}

// A Map, so a type named like an Object.prototype key ("constructor") is unknown too.
const styles: ReadonlyMap<string, ActivityStyle> = new Map(Object.entries(knownStyles))

/** `Call` → "Call", `EmailThread` → "Email thread", `SMS` stays "SMS". */
export function activityTypeLabel(type: string): string {
  const words = type.split(/(?<=[a-z])(?=[A-Z])/).filter((w) => w !== '')
  if (words.length === 0) return 'Activity'
  return words.map((word, i) => (i === 0 || /^[A-Z]+$/.test(word) ? word : word.toLowerCase())).join(' ')
}

export function activityStyle(type: string): ActivityStyle {
  return (
    styles.get(type) ?? {
      label: activityTypeLabel(type),
      badge: 'bg-slate-100 text-slate-700',
      border: 'border-l-slate-300',
    }
  )
}

/** What an activity of an unknown type says, from the fields such activities usually carry; undefined if none. */
export function unknownActivityText(activity: Record<string, unknown>): string | undefined {
  return textOf(activity, 'subject', 'note', 'body_text', 'text', 'title')
}

type Sms = Extract<Activity, { _type: 'SMS' }>
type Email = Extract<Activity, { _type: 'Email' }>

/**
 * One entry of the timeline: an activity, the text messages with one contact (or number) as a conversation, or the
 * emails of one thread.
 */
export type TimelineItem =
  { key: string; activity: Activity } | { key: string; messages: Sms[] } | { key: string; emails: Email[] }

/**
 * The timeline's entries in the list's order (newest first): each contact's messages gather into one conversation and
 * each thread's emails into one entry, which stands where its newest message would.
 */
export function timelineItems(activities: readonly Activity[]): TimelineItem[] {
  const conversations = new Map<string, Sms[]>()
  const threads = new Map<string, Email[]>()
  const items: TimelineItem[] = []
  for (const activity of activities) {
    if (activity._type === 'SMS') {
      const key = `sms:${activity.contact_id ?? activity.remote_phone ?? activity.id}`
      gather(conversations, key, activity, (messages) => items.push({ key, messages }))
    } else if (activity._type === 'Email') {
      const key = `email:${activity.thread_id ?? activity.id}`
      gather(threads, key, activity, (emails) => items.push({ key, emails }))
    } else items.push({ key: activity.id, activity })
  }
  return items
}

/** Adds `item` to its group, or starts the group (and `start` places it) when it is the first. */
function gather<T>(groups: Map<string, T[]>, key: string, item: T, start: (group: T[]) => void) {
  const group = groups.get(key)
  if (group !== undefined) group.push(item)
  else {
    const started = [item]
    groups.set(key, started)
    start(started)
  }
}
