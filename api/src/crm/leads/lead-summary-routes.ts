import { Type } from '@sinclair/typebox'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { LEAD_SUMMARIES_MAX, leadSummariesSchema } from '@leadline/shared/lead-summary-schema'
import type { Deps } from '../deps.js'
import { ValidationError } from '../../platform/http/errors.js'
import { commaValues } from '../../platform/http/list.js'
import { caller } from '../../platform/http/request-context.js'
import { leadSummaries } from './lead-summary-repo.js'

// What the leads list shows of a page of leads beyond the leads themselves (decision 0059), Leadline's own: Close
// clients see the lead they always did. Whoever may read the organization's leads may read these (every member, as
// with `/lead/`).

/** An id is 48 characters (`lead_` and 43); stored ids are at most 64, and a comma separates them. */
const LEAD_IDS_MAX_LENGTH = LEAD_SUMMARIES_MAX * 65

const summariesQuery = Type.Object({
  lead_id__in: Type.String({
    maxLength: LEAD_IDS_MAX_LENGTH,
    description: `The leads, comma-separated: one to ${String(LEAD_SUMMARIES_MAX)}.`,
  }),
})

export const leadSummaryRoutes: FastifyPluginAsyncTypebox<Deps> = async (app, { db }) => {
  app.get(
    '/lead/summaries/',
    {
      schema: {
        tags: ['leads'],
        summary: 'When each of some leads last had a call, email, note or SMS',
        description: `Leadline only. One entry for each lead of the organization named in \`lead_id__in\`, in the order named; an id of no lead of the organization is left out. A lead’s next task is in the lead itself (its open \`tasks\`, earliest first).`,
        querystring: summariesQuery,
        response: { 200: leadSummariesSchema },
      },
    },
    async (request) => {
      const { organizationId } = caller(request)
      const ids = [...new Set(commaValues(request.query.lead_id__in))]
      if (ids.length === 0) throw ValidationError.field('lead_id__in', 'Name one lead or more.')
      if (ids.length > LEAD_SUMMARIES_MAX) {
        throw ValidationError.field('lead_id__in', `Name at most ${String(LEAD_SUMMARIES_MAX)} leads.`)
      }
      return { data: await leadSummaries(db, organizationId, ids) }
    },
  )
}
