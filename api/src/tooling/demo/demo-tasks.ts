import { recordActivity } from '../../crm/activities/activity-repo.js'
import type { Db } from '../../platform/data/database.js'
import { formatTimestamp, type Clock } from '../../platform/data/time.js'
import { insertTask } from '../../crm/tasks/task-repo.js'
import type { DemoOrganization } from './demo-seed.js'
import { generator } from './demo-random.js'
import type { DemoTitle } from './demo-user.js'

// Each demo user's inbox of lead tasks on the demo leads: overdue, today, tomorrow and the weeks ahead, some with a
// time and some for the whole day, and a few done. A few hundred rows at most, written as the app writes them.

const TEXTS = [
  'Call back about pricing',
  'Send proposal',
  'Follow up on the demo',
  'Check in after their trial',
  'Send the contract for signature',
  'Confirm the meeting time',
  'Share the case study they asked for',
  'Intro call with the decision maker',
  'Send the pricing sheet',
  'Schedule onboarding',
  'Answer their security questionnaire',
  'Prepare a quote for 50 seats',
  'Ask for a referral',
  'Follow up after their budget meeting',
]
const DAY_MS = 86_400_000
const HOUR_MS = 3_600_000

/** Days from today of each open task, a timed one marked; the reps' full list (the others take part of it). */
const OPEN_DAYS: { days: number; timed: boolean }[] = [
  { days: -9, timed: false },
  { days: -5, timed: true },
  { days: -3, timed: false },
  { days: -2, timed: true },
  { days: -1, timed: false },
  { days: 0, timed: true },
  { days: 0, timed: false },
  { days: 0, timed: true },
  { days: 0, timed: false },
  { days: 1, timed: true },
  { days: 1, timed: false },
  { days: 1, timed: true },
  { days: 2, timed: false },
  { days: 3, timed: true },
  { days: 4, timed: false },
  { days: 6, timed: true },
  { days: 8, timed: false },
  { days: 10, timed: true },
  { days: 13, timed: false },
  { days: 16, timed: true },
  { days: 21, timed: false },
]
/** Days ago each completed task was due; each was done that day or a little later. */
const DONE_DAYS = [-12, -6, -4, -1]
const SHARE: Record<DemoTitle, number> = { rep: 1, manager: 0.7, admin: 0.2 }

/**
 * The lead tasks of the demo's users, on demo leads (none without leads): the reps get about 25 each, the manager
 * fewer, the admin a few. Dates count from the clock's today in UTC; a timed task falls between 14:00 and 21:00
 * UTC, business hours on the US east coast, where the demo's leads are, and the same day there as in UTC.
 */
export async function seedDemoTasks(db: Db, clock: Clock, demo: DemoOrganization): Promise<number> {
  const organizationId = demo.organization_id
  const nowMs = clock.now().getTime()
  const rand = generator(0x7461736b)
  const plans = demo.users.map((user) => {
    const share = SHARE[user.title]
    const open = OPEN_DAYS.filter((_, i) => (i * share) % 1 < share)
    const done = DONE_DAYS.slice(0, Math.max(1, Math.round(DONE_DAYS.length * share)))
    return { user, open, done }
  })
  const wanted = plans.reduce((sum, p) => sum + p.open.length + p.done.length, 0)
  // Lead ids are random, so the first ones by id are a random sample.
  const leads = await db
    .selectFrom('lead')
    .select('id')
    .where('organization_id', '=', organizationId)
    .orderBy('id')
    .limit(wanted)
    .execute()
  if (leads.length === 0) return 0
  const contacts = await db
    .selectFrom('contact')
    .select(['id', 'lead_id'])
    .where('organization_id', '=', organizationId)
    .where(
      'lead_id',
      'in',
      leads.map((l) => l.id),
    )
    .orderBy('id')
    .execute()
  const firstContact = new Map<string, string>()
  for (const contact of contacts) if (!firstContact.has(contact.lead_id)) firstContact.set(contact.lead_id, contact.id)

  const today = formatTimestamp(new Date(nowMs)).slice(0, 10)
  const dayOf = (days: number) => formatTimestamp(new Date(nowMs + days * DAY_MS)).slice(0, 10)
  const timedOn = (day: string) =>
    formatTimestamp(new Date(Date.parse(`${day}T14:00:00Z`) + (rand.int(15) * HOUR_MS) / 2))
  let made = 0
  for (const { user, open, done } of plans) {
    const slots = [
      ...open.map((slot) => ({ ...slot, done: false })),
      ...done.map((days) => ({ days, timed: false, done: true })),
    ]
    for (const slot of slots) {
      const lead = leads[made % leads.length]
      if (lead === undefined) break
      made++
      const day = dayOf(slot.days)
      const date = slot.timed ? timedOn(day) : day
      const createdMs = Math.min(nowMs, Date.parse(`${day}T12:00:00Z`)) - (2 + rand.int(10)) * DAY_MS
      const contactId = rand.next() < 0.7 ? (firstContact.get(lead.id) ?? null) : null
      const text = rand.pick(TEXTS)
      const id = await insertTask(db, {
        organizationId,
        leadId: lead.id,
        type: 'lead',
        assignedTo: user.user_id,
        contactId,
        text,
        date,
        today,
        userId: user.user_id,
        now: formatTimestamp(new Date(createdMs)),
      })
      if (!slot.done) continue
      // Done on its day, in the afternoon, or a day late; never after now.
      const completedMs = Math.min(nowMs, Date.parse(`${day}T15:00:00Z`) + rand.int(2) * DAY_MS)
      const completed = formatTimestamp(new Date(completedMs))
      const completionId = await recordActivity(
        db,
        {
          organizationId,
          leadId: lead.id,
          contactId,
          userId: user.user_id,
          type: 'TaskCompleted',
          taskId: id,
          data: { task_id: id, task_text: text },
          now: completed,
        },
        null,
      )
      await db
        .updateTable('task')
        .set({
          is_complete: 1,
          date_completed: completed,
          completion_id: completionId,
          updated_by: user.user_id,
          date_updated: completed,
        })
        .where('id', '=', id)
        .execute()
    }
  }
  return made
}
