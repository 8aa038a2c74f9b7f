import type { Insertable } from 'kysely'
import type { ValuePeriod } from '@leadline/shared/money'
import { opportunityStatusChangeData } from '../../crm/activities/activity-repo.js'
import type { ActivityTable, OpportunityTable, TaskTable } from '../../platform/data/database.js'
import type { StatusChoice } from '../../crm/opportunities/opportunity-input.js'
import { formatTimestamp } from '../../platform/data/time.js'
import { generator, type Generator } from './demo-random.js'

// Demo opportunities on some of the demo leads: spread over the pipelines and their statuses, owners, values,
// periods and close dates, each with the status changes the app would have recorded on its way to its status, and
// the `opportunity_due` task the app keeps for an active one with an expected close (crm/tasks/task-due.ts).

/** An opportunity status, as an opportunity write reads it. */
export type DemoOpportunityStatus = StatusChoice

/** The most opportunities a demo lead gets, and the status changes each records: its first status, its last. */
export const MAX_OPPORTUNITIES = 3
export const CHANGES_PER_OPPORTUNITY = 2

const SHARE_OF_LEADS = 0.6
const NOTES = [
  'Budget approved for Q3.',
  'Needs sign-off from their CFO.',
  'Comparing us with two other vendors.',
  'Wants a pilot with one team first.',
  'Multi-year discount requested.',
  'Legal is reviewing the contract.',
  'Champion is moving to another role.',
]
/** Dollars, from and to, by period: a value is drawn evenly on a log scale between them. */
const VALUE_RANGES: Record<ValuePeriod, [number, number]> = {
  one_time: [500, 250_000],
  monthly: [50, 5_000],
  annual: [1_000, 120_000],
}
const DAY_MS = 86_400_000
const MINUTE_MS = 60_000

interface DemoPipeline {
  /** The first pipeline sells; the others renew, mostly yearly. */
  first: boolean
  active: DemoOpportunityStatus[]
  won: DemoOpportunityStatus[]
  lost: DemoOpportunityStatus[]
}

/** Statuses by pipeline, the pipelines in the order of the statuses given (pipeline order, then status order). */
function pipelinesOf(statuses: readonly DemoOpportunityStatus[]): DemoPipeline[] {
  const byId = new Map<string, DemoPipeline>()
  for (const status of statuses) {
    let pipeline = byId.get(status.pipeline_id)
    if (pipeline === undefined) {
      pipeline = { first: byId.size === 0, active: [], won: [], lost: [] }
      byId.set(status.pipeline_id, pipeline)
    }
    pipeline[status.type].push(status)
  }
  return [...byId.values()]
}

function valuePeriod(rand: Generator, pipeline: DemoPipeline): ValuePeriod {
  const r = rand.next()
  if (pipeline.first) return r < 0.75 ? 'one_time' : r < 0.9 ? 'monthly' : 'annual'
  return r < 0.6 ? 'annual' : r < 0.9 ? 'monthly' : 'one_time'
}

/** A value in cents, rounded to two significant digits of dollars as people quote them; a few have none. */
function value(rand: Generator, period: ValuePeriod): number | null {
  if (rand.next() < 0.03) return null
  const [low, high] = VALUE_RANGES[period]
  const dollars = low * (high / low) ** rand.next()
  const step = 10 ** Math.max(0, Math.floor(Math.log10(dollars)) - 1)
  return Math.round(dollars / step) * step * 100
}

/** An active status, the earlier stages more often than the later ones. */
function activeStatus(rand: Generator, active: DemoOpportunityStatus[]): DemoOpportunityStatus | undefined {
  return active[Math.floor(active.length * (1 - Math.sqrt(rand.next())))]
}

/** The confidence of the `stage`th of `stages` active statuses: 10 at the first, 90 at the last, in fives. */
function stageConfidence(stage: number, stages: number): number {
  return stages <= 1 ? 50 : 10 + Math.round((16 * stage) / (stages - 1)) * 5
}

export interface DemoOpportunitySetting {
  organizationId: string
  nowMs: number
  userIds: string[]
  currency: string
  /** Pipeline by pipeline in their order, each pipeline's statuses in theirs. */
  opportunityStatuses: DemoOpportunityStatus[]
  seed: number
}

/** The rows a lead's opportunities add. */
export interface DemoOpportunityRows {
  opportunities: Insertable<OpportunityTable>[]
  activities: ActivityTable[]
  tasks: TaskTable[]
}

export interface DemoOpportunityLead {
  id: string
  createdMs: number
  contactIds: string[]
  /** MAX_OPPORTUNITIES ids, ascending. */
  opportunityIds: string[]
  /** MAX_OPPORTUNITIES × CHANGES_PER_OPPORTUNITY activity ids, ascending. */
  activityIds: string[]
  /** MAX_OPPORTUNITIES task ids, ascending: an active opportunity's due task takes its opportunity's place. */
  taskIds: string[]
}

/**
 * Adds the opportunities of one lead after another. They draw from a random stream of their own, so the leads'
 * other rows are what they were before leads had opportunities.
 */
export function demoOpportunityMaker(
  setting: DemoOpportunitySetting,
): (rows: DemoOpportunityRows, lead: DemoOpportunityLead) => void {
  const rand = generator(setting.seed ^ 0x4f707073)
  const pipelines = pipelinesOf(setting.opportunityStatuses)
  const { organizationId, nowMs, currency } = setting
  const day = (ms: number) => formatTimestamp(new Date(ms)).slice(0, 10)

  return (rows, lead) => {
    if (pipelines.length === 0 || rand.next() >= SHARE_OF_LEADS) return
    const r = rand.next()
    const count = r < 0.6 ? 1 : r < 0.88 ? 2 : MAX_OPPORTUNITIES
    for (let n = 0; n < count; n++) {
      const pipeline = pipelines.length > 1 && rand.next() >= 0.75 ? rand.pick(pipelines.slice(1)) : pipelines[0]
      if (pipeline === undefined) return
      const closing = rand.next()
      const status =
        (closing < 0.2 ? pipeline.won[0] : closing < 0.35 ? pipeline.lost[0] : undefined) ??
        activeStatus(rand, pipeline.active) ??
        pipeline.won[0] ??
        pipeline.lost[0]
      if (status === undefined) continue
      // Opened in the pipeline's first stage, moved once to where it is now.
      const opened = pipeline.active[0] ?? status
      const period = valuePeriod(rand, pipeline)
      const amount = value(rand, period)
      const owner = rand.pick(setting.userIds)
      const contactId = lead.contactIds.length > 0 && rand.next() < 0.8 ? rand.pick(lead.contactIds) : null
      const note = rand.next() < 0.5 ? rand.pick(NOTES) : ''
      // Nothing lies in the future: opened a minute or more before now, moved after it was opened.
      const createdMs = Math.min(lead.createdMs + rand.int(45) * DAY_MS + rand.int(DAY_MS), nowMs - MINUTE_MS)
      const movedMs = Math.min(createdMs + (3 + rand.int(90)) * DAY_MS + rand.int(DAY_MS), nowMs)
      const updatedMs = status.id === opened.id ? createdMs : movedMs
      const stage = pipeline.active.indexOf(status)
      const jitter = (rand.int(5) - 2) * 5
      let confidence = 0
      let dateWon: string | null = null
      if (status.type === 'won') {
        confidence = 100
        dateWon = day(movedMs)
      } else if (status.type === 'active') {
        confidence = Math.min(90, Math.max(10, stageConfidence(stage, pipeline.active.length) + jitter))
        // The expected close: mostly in the months ahead, some overdue, never before the opportunity was opened.
        const aheadDays = rand.next() < 0.15 ? -(1 + rand.int(30)) : 1 + rand.int(300)
        dateWon = day(Math.max(nowMs + aheadDays * DAY_MS, createdMs + 14 * DAY_MS))
      }
      const id = lead.opportunityIds[n] ?? ''
      const opportunity = {
        id,
        organization_id: organizationId,
        lead_id: lead.id,
        contact_id: contactId,
        status_id: status.id,
        user_id: owner,
        value: amount,
        value_period: period,
        value_currency: currency,
        confidence,
        date_won: dateWon,
        date_lost: status.type === 'lost' ? formatTimestamp(new Date(movedMs)) : null,
        note,
        created_by: owner,
        updated_by: owner,
        date_created: formatTimestamp(new Date(createdMs)),
        date_updated: formatTimestamp(new Date(updatedMs)),
      }
      rows.opportunities.push(opportunity)
      // Made when the opportunity was opened with its expected close, and unchanged since: it stayed active.
      if (status.type === 'active' && dateWon !== null) {
        rows.tasks.push({
          id: lead.taskIds[n] ?? '',
          organization_id: organizationId,
          lead_id: lead.id,
          type: 'opportunity_due',
          assigned_to: owner,
          contact_id: contactId,
          text: '',
          date: dateWon,
          has_time: 0,
          is_dateless: 0,
          is_complete: 0,
          date_completed: null,
          completion_id: null,
          object_type: 'opportunity',
          object_id: id,
          data: '{}',
          created_by: owner,
          updated_by: owner,
          date_created: opportunity.date_created,
          date_updated: opportunity.date_created,
        })
      }

      const change = (
        activityId: string,
        from: DemoOpportunityStatus | undefined,
        to: DemoOpportunityStatus,
        atMs: number,
        state: { confidence: number; date_won: string | null },
      ) => {
        const data = opportunityStatusChangeData(from, to, {
          value: amount,
          value_period: period,
          value_currency: currency,
          ...state,
        })
        const at = formatTimestamp(new Date(atMs))
        rows.activities.push({
          id: activityId,
          organization_id: organizationId,
          lead_id: lead.id,
          contact_id: contactId,
          user_id: owner,
          type: 'OpportunityStatusChange',
          data: JSON.stringify(data),
          opportunity_id: id,
          task_id: null,
          thread_id: null,
          sender_check: null,
          sender_check_reason: null,
          created_by: owner,
          updated_by: owner,
          date_created: at,
          date_updated: at,
        })
      }
      const [openedId = '', movedId = ''] = lead.activityIds.slice(
        n * CHANGES_PER_OPPORTUNITY,
        (n + 1) * CHANGES_PER_OPPORTUNITY,
      )
      if (status.id === opened.id) {
        change(openedId, undefined, status, createdMs, opportunity)
        continue
      }
      const openedState = {
        confidence: stageConfidence(0, pipeline.active.length),
        date_won: status.type === 'active' ? dateWon : null,
      }
      change(openedId, undefined, opened, createdMs, openedState)
      change(movedId, opened, status, movedMs, opportunity)
    }
  }
}
