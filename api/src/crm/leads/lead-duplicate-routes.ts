import { Type } from '@sinclair/typebox'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import {
  duplicateClusterSchema,
  leadDuplicatesSchema,
  LEAD_DUPLICATES_MAX,
  NAME_SIMILARITY_THRESHOLD,
} from '@leadline/shared/lead-duplicate-schema'
import { listEnvelopeSchema } from '@leadline/shared/list'
import type { Deps } from '../deps.js'
import { idParams } from '../../platform/http/crud-routes.js'
import { found } from '../../platform/data/find-or-404.js'
import { listQuerySchema } from '../../platform/http/list.js'
import { caller } from '../../platform/http/request-context.js'
import { CLUSTER_LEADS, findLeadDuplicates, listDuplicateClusters } from './lead-duplicate-repo.js'

// Likely duplicate leads (decision 0058), Leadline's own: Close clients never see them, since the lead's own answer
// is unchanged. Whoever may read the organization's leads may read these (every member, as with `/lead/`).

const tags = ['leads']
const REASONS = `Reasons: \`email\` or \`phone\` (a contact email or phone in common), \`url\` (the same web domain: the host without \`www.\`), \`name\` (names with a trigram similarity of ${String(NAME_SIMILARITY_THRESHOLD)} or more, pg_trgm’s measure).`
const CLUSTER_LIMIT_DEFAULT = 50

export const leadDuplicateRoutes: FastifyPluginAsyncTypebox<Deps> = async (app, { db, dialect }) => {
  app.get(
    '/lead/duplicates/',
    {
      schema: {
        tags,
        summary: 'Potential duplicates: clusters of leads that share an email, a phone, a web domain or a name',
        description: `Leadline only. Each email, phone, web domain or folded name that two leads or more of the organization share, by reason (email, phone, url, name) then value; each cluster lists its first ${String(CLUSTER_LEADS)} leads oldest first (merging keeps the first). Names count here when they are the same once folded; GET /lead/{id}/duplicates/ also finds similar ones.`,
        querystring: Type.Omit(listQuerySchema('default', CLUSTER_LIMIT_DEFAULT), ['_fields']),
        response: { 200: listEnvelopeSchema(duplicateClusterSchema) },
      },
    },
    async (request) => {
      const { organizationId } = caller(request)
      return listDuplicateClusters(db, dialect, organizationId, {
        skip: request.query._skip ?? 0,
        limit: request.query._limit ?? CLUSTER_LIMIT_DEFAULT,
      })
    },
  )

  app.get(
    '/lead/:id/duplicates/',
    {
      schema: {
        tags,
        summary: 'The leads most likely the same as this one',
        description: `Leadline only. At most ${String(LEAD_DUPLICATES_MAX)} other leads of the organization, those with the most reasons first, then the most similar names. ${REASONS}`,
        params: idParams,
        response: { 200: leadDuplicatesSchema },
      },
    },
    async (request) => {
      const { organizationId } = caller(request)
      const data = found(await findLeadDuplicates(db, dialect, organizationId, request.params.id), 'Lead')
      return { data }
    },
  )
}
