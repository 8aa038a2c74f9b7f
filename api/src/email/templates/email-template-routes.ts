import { Type } from '@sinclair/typebox'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyRequest } from 'fastify'
import {
  emailTemplateSchema,
  renderedEmailTemplateSchema,
  type EmailTemplate,
} from '@leadline/shared/email-template-schema'
import type { EmailTemplateTable } from '../../platform/data/database.js'
import { attachmentInputSchema, readAttachments, type AttachmentInput } from '../../platform/http/attachments.js'
import type { Deps } from '../../crm/deps.js'
import { found } from '../../platform/data/find-or-404.js'
import { crudSchemas, idParams, listPage } from '../../platform/http/crud-routes.js'
import { ForbiddenError, ValidationError } from '../../platform/http/errors.js'
import { listQuerySchema } from '../../platform/http/list.js'
import { caller } from '../../platform/http/request-context.js'
import { formatTimestamp } from '../../platform/data/time.js'
import { hasControlCharacter, NO_CONTROL_CHARACTERS } from '../../platform/text/text.js'
import {
  deleteTemplate,
  emailTemplateView,
  findVisibleTemplate,
  insertTemplate,
  updateTemplate,
  visibleTemplatesQuery,
  type TemplateFields,
} from './email-template-repo.js'
import { templateProblem } from './template-engine.js'
import { renderTemplateRow } from './template-render.js'
import { eventContext, guardedEvents, recordEvents } from '../../integrations/events/event-repo.js'

/**
 * A template's event, which template screens and pickers follow: whose it is and whether it is shared are shown; its
 * text is not, since any member reads the event log and a personal template is its owner's.
 */
const templateEvent = guardedEvents('email_template', (v: EmailTemplate) => ({
  id: v.id,
  shown: { created_by: v.created_by, is_shared: v.is_shared, updated_by: v.updated_by, date_updated: v.date_updated },
  hidden: v,
}))

// `/email_template/` (docs/decisions/0030-email-templates.md). Everyone sees the organization's shared templates
// and their own; only admins create, change or delete shared ones; another user's unshared template is a 404.

const tags = ['email templates']
const schemas = crudSchemas(tags, emailTemplateSchema)

const NAME_MAX = 255
/** RFC 5322's longest line. */
const SUBJECT_MAX = 998
/** A template's body; longer ones cost the event loop too long to parse and render (docs/decisions/0036-…). */
export const TEMPLATE_BODY_MAX = 100_000
const ATTACHMENTS_MAX = 20

const fields = {
  name: Type.String({ description: `Trimmed; 1 to ${String(NAME_MAX)} characters.` }),
  subject: Type.String({ maxLength: SUBJECT_MAX, description: 'A Liquid template; rendered on one line.' }),
  body: Type.String({
    maxLength: TEMPLATE_BODY_MAX,
    description:
      'HTML written in Liquid: `{{ contact.first_name }}`, `{{ lead.display_name }}`, `{{ user.first_name }}`, filters such as `| default: "there"`. Every value is HTML-escaped.',
  }),
  is_shared: Type.Boolean({ description: 'Shared with the whole organization: only admins create or change these.' }),
  is_archived: Type.Boolean(),
  attachments: Type.Array(attachmentInputSchema, {
    maxItems: ATTACHMENTS_MAX,
    description: 'Files sent with every email made from it.',
  }),
}

const createBody = Type.Object(
  {
    name: fields.name,
    subject: Type.Optional(fields.subject),
    body: Type.Optional(fields.body),
    is_shared: Type.Optional(fields.is_shared),
    is_archived: Type.Optional(fields.is_archived),
    attachments: Type.Optional(fields.attachments),
  },
  { additionalProperties: false },
)

const updateBody = Type.Object(
  {
    name: Type.Optional(fields.name),
    subject: Type.Optional(fields.subject),
    body: Type.Optional(fields.body),
    is_shared: Type.Optional(fields.is_shared),
    is_archived: Type.Optional(fields.is_archived),
    attachments: Type.Optional(fields.attachments),
  },
  { additionalProperties: false, description: 'Only the fields sent change.' },
)

const listQuery = Type.Composite([
  listQuerySchema(),
  Type.Object({ is_archived: Type.Optional(Type.Boolean()), is_shared: Type.Optional(Type.Boolean()) }),
])

const renderQuery = Type.Object({
  lead_id: Type.String({ description: 'The lead to render for.' }),
  contact_id: Type.String({ description: 'One of the lead’s contacts.' }),
  _fields: Type.Optional(Type.String()),
})

interface FieldsInput {
  name: string
  subject: string
  body: string
  is_shared: boolean
  is_archived: boolean
  attachments: readonly AttachmentInput[]
}

/** The fields a template is to have, checked (the subject and body must parse); a field error for each problem. */
function checkedFields(input: FieldsInput): TemplateFields {
  const errors: Record<string, string> = {}
  const name = input.name.trim()
  if (name === '') errors.name = 'This field may not be blank.'
  else if (name.length > NAME_MAX) errors.name = `Ensure this field has no more than ${String(NAME_MAX)} characters.`
  const subjectProblem = hasControlCharacter(input.subject)
    ? NO_CONTROL_CHARACTERS
    : templateProblem('subject', input.subject)
  if (subjectProblem !== undefined) errors.subject = subjectProblem
  const bodyProblem = templateProblem('body', input.body)
  if (bodyProblem !== undefined) errors.body = bodyProblem
  const attachments = readAttachments(input.attachments, errors)
  if (Object.keys(errors).length > 0) throw new ValidationError(errors)
  return { ...input, name, attachments }
}

/** Shared templates are an admin's to create, change or delete. */
function requireMayChange(request: FastifyRequest, shared: boolean): void {
  if (shared && caller(request).role !== 'admin')
    throw new ForbiddenError('Only an admin of the organization can create, change or delete a shared template.')
}

export const emailTemplateRoutes: FastifyPluginAsyncTypebox<Deps> = async (app, { db, dialect, clock }) => {
  async function visibleOr404(request: FastifyRequest, id: string, tx = db): Promise<EmailTemplateTable> {
    const me = caller(request)
    return found(await findVisibleTemplate(tx, me.organizationId, me.userId, id), 'Email template')
  }

  app.get(
    '/email_template/',
    schemas.listBy('The email templates you may use: the organization’s shared ones and your own, by name', listQuery),
    async (request) => {
      const me = caller(request)
      const { is_archived, is_shared } = request.query
      const query = visibleTemplatesQuery(db, dialect, me, {
        ...(is_archived === undefined ? {} : { is_archived }),
        ...(is_shared === undefined ? {} : { is_shared }),
      })
      return listPage(query, request.query, emailTemplateView)
    },
  )

  app.get('/email_template/:id/', schemas.get('One email template'), async (request) =>
    emailTemplateView(await visibleOr404(request, request.params.id)),
  )

  app.post(
    '/email_template/',
    schemas.create('Create an email template (answers 200; a shared one: admin)', createBody),
    async (request) => {
      const me = caller(request)
      const body = request.body
      requireMayChange(request, body.is_shared === true)
      const checked = checkedFields({
        name: body.name,
        subject: body.subject ?? '',
        body: body.body ?? '',
        is_shared: body.is_shared ?? false,
        is_archived: body.is_archived ?? false,
        attachments: body.attachments ?? [],
      })
      const now = formatTimestamp(clock.now())
      return db.transaction().execute(async (tx) => {
        const row = await insertTemplate(tx, { ...checked, organizationId: me.organizationId, userId: me.userId, now })
        const view = emailTemplateView(row)
        await recordEvents(tx, eventContext(request, now), [templateEvent(view, 'created')])
        return view
      })
    },
  )

  app.put(
    '/email_template/:id/',
    schemas.update('Change an email template (a shared one, or sharing one: admin)', updateBody),
    async (request) => {
      const me = caller(request)
      const body = request.body
      const now = formatTimestamp(clock.now())
      return db.transaction().execute(async (tx) => {
        const row = await visibleOr404(request, request.params.id, tx)
        const before = emailTemplateView(row)
        requireMayChange(request, before.is_shared || body.is_shared === true)
        const checked = checkedFields({
          name: body.name ?? before.name,
          subject: body.subject ?? before.subject,
          body: body.body ?? before.body,
          is_shared: body.is_shared ?? before.is_shared,
          is_archived: body.is_archived ?? before.is_archived,
          attachments: body.attachments ?? before.attachments,
        })
        const view = emailTemplateView(await updateTemplate(tx, row, checked, { userId: me.userId, now }))
        await recordEvents(tx, eventContext(request, now), [templateEvent(view, 'updated', before)])
        return view
      })
    },
  )

  app.delete(
    '/email_template/:id/',
    schemas.delete('Delete an email template (a shared one: admin)'),
    async (request) => {
      await db.transaction().execute(async (tx) => {
        const row = await visibleOr404(request, request.params.id, tx)
        requireMayChange(request, row.is_shared === 1)
        await deleteTemplate(tx, row)
        const now = formatTimestamp(clock.now())
        await recordEvents(tx, eventContext(request, now), [templateEvent(emailTemplateView(row), 'deleted')])
      })
      return {}
    },
  )

  app.get(
    '/email_template/:id/render/',
    {
      schema: {
        tags,
        summary: 'Preview an email template for a lead and one of its contacts, as you would send it',
        description:
          'Placeholders are filled from the contact, the lead, you (`user`) and the organization. `body` and `body_html` have every value HTML-escaped; `body_text` is their plain-text form. A placeholder that names nothing renders empty and is listed in `warnings`.',
        params: idParams,
        querystring: renderQuery,
        response: { 200: renderedEmailTemplateSchema },
      },
    },
    async (request) => {
      const me = caller(request)
      const row = await visibleOr404(request, request.params.id)
      const rendered = await renderTemplateRow(db, row, {
        organizationId: me.organizationId,
        leadId: request.query.lead_id,
        contactId: request.query.contact_id,
        userId: me.userId,
        tzOffsetHours: request.tzOffsetHours,
      })
      return {
        subject: rendered.subject,
        body: rendered.bodyHtml,
        body_text: rendered.bodyText,
        body_html: rendered.bodyHtml,
        warnings: rendered.warnings,
      }
    },
  )
}
