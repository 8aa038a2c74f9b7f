import { Type } from '@sinclair/typebox'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { emailThreadSchema } from '@leadline/shared/email-thread-schema'
import { activityFilters } from '../../crm/activities/activity-filters.js'
import { deleteEmail } from '../send/email-store.js'
import { changeContext } from '../../integrations/events/event-repo.js'
import type { Deps } from '../../crm/deps.js'
import { NotFoundError } from '../../platform/http/errors.js'
import { crudSchemas } from '../../platform/http/crud-routes.js'
import { fetchPage, listQuerySchema } from '../../platform/http/list.js'
import { caller } from '../../platform/http/request-context.js'
import { formatTimestamp } from '../../platform/data/time.js'
import { threadKeysQuery } from '../../crm/activities/thread-keys.js'
import { emailThreadViews, threadEmailRows } from '../../crm/activities/email-thread-view.js'
import { findOr404 } from '../../platform/data/find-or-404.js'

// `/activity/emailthread/`: email conversations, read from their emails (decision 0032). Threads are made and joined
// as emails are stored (the email module); here they are listed, shown and deleted with every email in them.

const schemas = crudSchemas(['activities'], emailThreadSchema, { deleteAnswer: false })
const listQuery = Type.Composite([
  listQuerySchema('activity'),
  Type.Object({
    lead_id: Type.Optional(Type.String()),
    user_id: Type.Optional(Type.String({ description: 'Threads with an email of this user.' })),
    contact_id: Type.Optional(Type.String({ description: 'Threads with an email with this contact.' })),
    date_created__gt: Type.Optional(Type.String({ description: 'Of its latest email, as every date of a thread.' })),
    date_created__gte: Type.Optional(Type.String()),
    date_created__lt: Type.Optional(Type.String()),
    date_created__lte: Type.Optional(Type.String()),
  }),
])

export const emailThreadRoutes: FastifyPluginAsyncTypebox<Deps> = async (app, { db, dialect, clock }) => {
  app.get(
    '/activity/emailthread/',
    schemas.listBy('List email threads, the one with the newest email first', listQuery),
    async (request) => {
      const organizationId = caller(request).organizationId
      const keys = threadKeysQuery(db, organizationId, activityFilters.check(request.query))
      const page = await fetchPage(keys.orderBy('date_created', 'desc').orderBy('id', 'desc'), request.query)
      const ids = page.data.map((k) => k.id)
      return { has_more: page.has_more, data: await emailThreadViews(db, organizationId, ids, { withEmails: true }) }
    },
  )

  app.get(
    '/activity/emailthread/:id/',
    schemas.get('One email thread with its emails, newest first'),
    async (request) => {
      const [view] = await emailThreadViews(db, caller(request).organizationId, [request.params.id], {
        withEmails: true,
      })
      if (view === undefined) throw new NotFoundError('Email thread')
      return view
    },
  )

  app.delete(
    '/activity/emailthread/:id/',
    schemas.delete('Delete a thread and every email in it (answers 200 `{}`)'),
    async (request) => {
      const ctx = changeContext(request, formatTimestamp(clock.now()))
      await db.transaction().execute(async (tx) => {
        // On Postgres no email joins the thread while it goes.
        const lock = dialect === 'postgres'
        const thread = await findOr404(tx, 'email_thread', ctx.organizationId, request.params.id, 'Email thread', {
          lock,
        })
        // Each as deleting it alone would: a waiting send cancelled (a 400 if one is under way), its follow-up gone.
        for (const row of await threadEmailRows(tx, ctx.organizationId, [thread.id])) await deleteEmail(tx, ctx, row)
        // Gone with its last email, unless it had none.
        await tx
          .deleteFrom('email_thread')
          .where('organization_id', '=', ctx.organizationId)
          .where('id', '=', thread.id)
          .execute()
      })
      return {}
    },
  )
}
