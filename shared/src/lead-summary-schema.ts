import { Type, type Static } from '@sinclair/typebox'
import { timestampSchema } from './list.js'

// What the leads list shows about a page of leads beyond the lead itself (Leadline's own: Close clients see the lead
// they always did). A lead's next task needs no request: its open tasks are in its view.

/** The most leads one request may ask about: two of the list's pages. */
export const LEAD_SUMMARIES_MAX = 100

/** The activity types that make a lead's last activity: what someone did with it, not records about it. */
export const LAST_ACTIVITY_TYPES = ['Call', 'Email', 'Note', 'SMS'] as const

export const leadSummarySchema = Type.Object({
  lead_id: Type.String(),
  date_last_activity: Type.Union([timestampSchema, Type.Null()], {
    description: `When the lead’s most recent call, email, note or SMS was logged (its \`date_created\`); null if none.`,
  }),
})
export type LeadSummary = Static<typeof leadSummarySchema>

export const leadSummariesSchema = Type.Object({ data: Type.Array(leadSummarySchema) })
export type LeadSummaries = Static<typeof leadSummariesSchema>
