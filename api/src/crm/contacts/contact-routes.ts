import { Type } from '@sinclair/typebox'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { contactSchema } from '@leadline/shared/contact-schema'
import type { Db } from '../../platform/data/database.js'
import { deleteWithCustomValues, listCustomFieldDefs } from '../custom-fields/custom-values.js'
import { findLead } from '../leads/lead-repo.js'
import { refreshLeadSearch } from '../leads/lead-search-index.js'
import { loadWriteSetting, prepareContact } from '../leads/lead-write.js'
import type { Deps } from '../deps.js'
import { ValidationError } from '../../platform/http/errors.js'
import { crudSchemas } from '../../platform/http/crud-routes.js'
import { fetchPage, listQuerySchema } from '../../platform/http/list.js'
import { caller } from '../../platform/http/request-context.js'
import { formatTimestamp } from '../../platform/data/time.js'
import { contactBodySchema } from './contact-input.js'
import { contactEvent, contactViews, findContact, insertContact, updateContact } from './contact-repo.js'
import { changeContext, recordEvents } from '../../integrations/events/event-repo.js'
import { found } from '../../platform/data/find-or-404.js'

const schemas = crudSchemas(['contacts'], contactSchema, { writeFields: false, deleteAnswer: false })
const listQuery = Type.Composite([listQuerySchema('contact'), Type.Object({ lead_id: Type.Optional(Type.String()) })])
const createBody = Type.Composite([contactBodySchema, Type.Object({ lead_id: Type.String() })], {
  additionalProperties: true,
})

async function contactView(db: Db, organizationId: string, id: string) {
  const contact = found(await findContact(db, organizationId, id), 'Contact')
  const defs = await listCustomFieldDefs(db, organizationId, 'contact')
  const view = found((await contactViews(db, organizationId, [contact], defs))[0], 'Contact')
  return view
}

export const contactRoutes: FastifyPluginAsyncTypebox<Deps> = async (app, { db, clock }) => {
  app.get('/contact/', schemas.listBy('List contacts, optionally of one lead', listQuery), async (request) => {
    const me = caller(request)
    let query = db.selectFrom('contact').selectAll().where('organization_id', '=', me.organizationId)
    if (request.query.lead_id !== undefined) query = query.where('lead_id', '=', request.query.lead_id)
    const page = await fetchPage(query.orderBy('date_created').orderBy('id'), request.query)
    const defs = await listCustomFieldDefs(db, me.organizationId, 'contact')
    return { has_more: page.has_more, data: await contactViews(db, me.organizationId, page.data, defs) }
  })

  app.get('/contact/:id/', schemas.get('One contact'), async (request) =>
    contactView(db, caller(request).organizationId, request.params.id),
  )

  app.post('/contact/', schemas.create('Add a contact to a lead (answers 200)', createBody), async (request) => {
    const me = caller(request)
    const ctx = changeContext(request, formatTimestamp(clock.now()))
    return db.transaction().execute(async (tx) => {
      const errors: Record<string, string> = {}
      const lead = await findLead(tx, me.organizationId, request.body.lead_id)
      if (lead === undefined) errors.lead_id = 'Object does not exist.'
      const setting = await loadWriteSetting(tx, me.organizationId)
      const contact = await prepareContact(tx, setting, request.body, '', errors)
      if (lead === undefined || Object.keys(errors).length > 0) throw new ValidationError(errors)
      const created = await insertContact(tx, ctx, lead.id, contact.values, contact.custom)
      await touchLead(tx, ctx, lead.id)
      const view = await contactView(tx, me.organizationId, created)
      await recordEvents(tx, ctx.events, [contactEvent(view, 'created')])
      return view
    })
  })

  app.put(
    '/contact/:id/',
    schemas.update('Update a contact (a sent list of emails, phones or urls replaces the old one)', contactBodySchema),
    async (request) => {
      const me = caller(request)
      const ctx = changeContext(request, formatTimestamp(clock.now()))
      return db.transaction().execute(async (tx) => {
        const current = found(await findContact(tx, me.organizationId, request.params.id), 'Contact')
        const errors: Record<string, string> = {}
        const setting = await loadWriteSetting(tx, me.organizationId)
        const contact = await prepareContact(tx, setting, request.body, '', errors)
        if (Object.keys(errors).length > 0) throw new ValidationError(errors)
        const before = await contactView(tx, me.organizationId, current.id)
        await updateContact(tx, ctx, current, contact.values, contact.custom)
        await touchLead(tx, ctx, current.lead_id)
        const after = await contactView(tx, me.organizationId, current.id)
        await recordEvents(tx, ctx.events, [{ ...contactEvent(after, 'updated'), previous: before }])
        return after
      })
    },
  )

  app.delete('/contact/:id/', schemas.delete('Delete a contact'), async (request) => {
    const me = caller(request)
    const ctx = changeContext(request, formatTimestamp(clock.now()))
    await db.transaction().execute(async (tx) => {
      const current = found(await findContact(tx, me.organizationId, request.params.id), 'Contact')
      const last = await contactView(tx, me.organizationId, current.id)
      await deleteWithCustomValues(tx, 'contact', me.organizationId, current.id)
      await touchLead(tx, ctx, current.lead_id)
      await recordEvents(tx, ctx.events, [contactEvent(last, 'deleted')])
    })
    return {}
  })
}

/** A contact change is a change to its lead: it moves `date_updated` and the lead's search document. */
async function touchLead(db: Db, ctx: { organizationId: string; userId: string; now: string }, leadId: string) {
  await db
    .updateTable('lead')
    .set({ date_updated: ctx.now, updated_by: ctx.userId })
    .where('organization_id', '=', ctx.organizationId)
    .where('id', '=', leadId)
    .execute()
  await refreshLeadSearch(db, ctx.organizationId, leadId)
}
