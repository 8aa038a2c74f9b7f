import { Type, type Static } from '@sinclair/typebox'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { CustomFieldTable } from '../../platform/data/database.js'
import type { Deps } from '../deps.js'
import { REORDER_MAX, setPositions } from '../ordered-lists.js'
import { NotFoundError, ValidationError } from '../../platform/http/errors.js'
import { crudSchemas, idParams } from '../../platform/http/crud-routes.js'
import { fetchPage } from '../../platform/http/list.js'
import { caller } from '../../platform/http/request-context.js'
import { requireAdmin, requireAdminOver } from '../../platform/security/roles.js'
import { formatTimestamp } from '../../platform/data/time.js'
import { changeContext, recordEvents } from '../../integrations/events/event-repo.js'
import {
  countCustomFieldValues,
  customFieldEvent,
  customFieldNameTaken,
  customFieldsQuery,
  customFieldUsage,
  customFieldView,
  deleteCustomField,
  findCustomField,
  insertCustomField,
  lockOrganizationCustomFields,
  updateCustomField,
  type CustomFieldValues,
} from './custom-field-repo.js'
import {
  CUSTOM_OBJECT_TYPES,
  customFieldSchema,
  customFieldSchemaSchema,
  customFieldTypeSchema,
  customFieldUsageSchema,
  type CustomFieldType,
  type CustomObjectType,
} from '@leadline/shared/custom-field-schema'
import { CUSTOM_TEXT_MAX, toCustomFieldDef } from './custom-values.js'

const NAME_MAX = 200
const DESCRIPTION_MAX = 10_000

const nameSchema = Type.String({
  description: `Trimmed; 1 to ${NAME_MAX} characters; unique ignoring case among the organization's fields of this object type.`,
})
const descriptionSchema = Type.Union([Type.String({ maxLength: DESCRIPTION_MAX }), Type.Null()])
// Items are checked in `cleanChoices`: a schema union would answer `[1]` with a second, misleading "Must be null.".
const choicesSchema = Type.Union([Type.Array(Type.Unknown()), Type.Null()], {
  description:
    'Required for (and only for) `choices` fields: a list of distinct (ignoring case), non-blank strings, in the order shown.',
})
const multipleSchema = Type.Boolean({ description: 'Whether an object may hold a list of values. Defaults to false.' })

const createBody = Type.Object(
  {
    name: nameSchema,
    description: Type.Optional(descriptionSchema),
    type: customFieldTypeSchema,
    choices: Type.Optional(choicesSchema),
    accepts_multiple_values: Type.Optional(multipleSchema),
  },
  { additionalProperties: false },
)
const updateBody = Type.Object(
  {
    name: Type.Optional(nameSchema),
    description: Type.Optional(descriptionSchema),
    type: Type.Optional({
      ...customFieldTypeSchema,
      description: 'Can change only while the field has no values.',
    }),
    choices: Type.Optional(choicesSchema),
    accepts_multiple_values: Type.Optional(multipleSchema),
  },
  { additionalProperties: false, description: 'Only the fields sent change.' },
)
type UpdateBody = Static<typeof updateBody>

const schemaBody = Type.Object(
  {
    fields: Type.Array(Type.Object({ id: Type.String({ maxLength: 100 }) }), {
      maxItems: REORDER_MAX,
      description:
        'Fields of this object type (`{"id": ...}`), in the new order; the fields not listed follow them, in their current order. Each at most once.',
    }),
  },
  { additionalProperties: false },
)

function cleanName(raw: string, errors: Record<string, string>): string {
  const name = raw.trim()
  if (name === '') errors.name = 'This field may not be blank.'
  else if (name.length > NAME_MAX) errors.name = `Ensure this field has no more than ${NAME_MAX} characters.`
  return name
}

function cleanDescription(raw: string | null): string | null {
  const description = raw?.trim() ?? ''
  return description === '' ? null : description
}

/** The choices a field of `type` keeps: a checked list for `choices` fields, null for every other type. */
function cleanChoices(
  type: CustomFieldType,
  sent: unknown[] | null | undefined,
  current: string[] | null,
  errors: Record<string, string>,
): string[] | null {
  if (type !== 'choices') {
    if (sent !== undefined && sent !== null) errors.choices = 'Only fields of type choices have choices.'
    return null
  }
  const raw = sent === undefined ? current : sent
  if (raw === null || raw.length === 0) {
    errors.choices = 'A choices field needs a list of at least one choice.'
    return null
  }
  if (!raw.every((c) => typeof c === 'string')) {
    errors.choices = 'Each choice must be a string.'
    return null
  }
  const choices = raw.map((c) => c.trim())
  const seen = new Set<string>()
  for (const choice of choices) {
    if (choice === '') errors.choices = 'Choices may not be blank.'
    else if (choice.length > CUSTOM_TEXT_MAX) {
      errors.choices = `Ensure each choice has no more than ${CUSTOM_TEXT_MAX} characters.`
    } else if (seen.has(choice.toLowerCase())) errors.choices = `"${choice}" is listed more than once.`
    seen.add(choice.toLowerCase())
  }
  return choices
}

/** The field after a patch; throws the field errors that refuse it. */
function patched(current: CustomFieldTable, body: UpdateBody): CustomFieldValues {
  const errors: Record<string, string> = {}
  const def = toCustomFieldDef(current)
  const type = body.type ?? def.type
  const values: CustomFieldValues = {
    name: body.name === undefined ? current.name : cleanName(body.name, errors),
    description: body.description === undefined ? current.description : cleanDescription(body.description),
    type,
    choices: cleanChoices(type, body.choices, type === def.type ? def.choices : null, errors),
    accepts_multiple_values: body.accepts_multiple_values ?? def.accepts_multiple_values,
  }
  if (Object.keys(errors).length > 0) throw new ValidationError(errors)
  return values
}

const label: Record<CustomObjectType, string> = { lead: 'Lead', contact: 'Contact', opportunity: 'Opportunity' }

/** `a lead`, `a contact`, `an opportunity`. */

function withArticle(noun: string): string {
  return `${/^[aeiou]/.test(noun) ? 'an' : 'a'} ${noun}`
}

/** The new order of every field: the ids sent, then the others in their current order; throws what refuses it. */
function reordered(current: readonly { id: string }[], sent: readonly { id: string }[], objectType: string): string[] {
  const known = new Set(current.map((f) => f.id))
  const listed = new Set<string>()
  for (const { id } of sent) {
    if (!known.has(id)) {
      throw ValidationError.field('fields', `"${id}" is not one of your organization's ${objectType} custom fields.`)
    }
    if (listed.has(id)) throw ValidationError.field('fields', `"${id}" is listed more than once.`)
    listed.add(id)
  }
  return [...listed, ...current.map((f) => f.id).filter((id) => !listed.has(id))]
}

export const customFieldRoutes: FastifyPluginAsyncTypebox<Deps> = async (app, { db, dialect, clock }) => {
  // Close's shared custom fields (one field on several object types) are not implemented: the organization has none,
  // so the list is empty and no id names one; a script that reads them before its own fields goes on.
  const sharedSchemas = crudSchemas(['shared custom fields'], customFieldSchema)
  app.get('/custom_field/shared/', sharedSchemas.list('Shared custom fields: none (Leadline has none)'), () => ({
    has_more: false,
    data: [],
  }))
  app.get('/custom_field/shared/:id/', sharedSchemas.get('One shared custom field: never found'), () => {
    throw new NotFoundError('Shared custom field')
  })

  // `custom_fields/` is the path older Close clients use (see the recordings); it stays out of the documentation.
  for (const base of ['custom_field', 'custom_fields']) {
    for (const objectType of CUSTOM_OBJECT_TYPES) {
      const schemas = crudSchemas([`${objectType} custom fields`], customFieldSchema, { hide: base !== 'custom_field' })
      const what = `${label[objectType]} custom field`
      const notFound = () => new NotFoundError(what)
      // Role checks read with no lock (platform/security/roles.ts), before the transaction that takes the organization's.
      const fieldOf = (id: string) => (organizationId: string) => findCustomField(db, organizationId, objectType, id)
      const nameTaken = () =>
        ValidationError.field('name', `A ${objectType} custom field with this name already exists.`)

      app.get(
        `/${base}/${objectType}/`,
        schemas.list(
          `The ${objectType} custom fields of your organization, in its order (\`/custom_field_schema/${objectType}/\`)`,
        ),
        async (request) => {
          const me = caller(request)
          const page = await fetchPage(customFieldsQuery(db, me.organizationId, objectType), request.query)
          return { has_more: page.has_more, data: page.data.map(customFieldView) }
        },
      )

      app.get(
        `/${base}/${objectType}/:id/usage/`,
        {
          schema: {
            ...(base === 'custom_field' ? {} : { hide: true }),
            tags: [`${objectType} custom fields`],
            summary: `How many values ${withArticle(objectType)} custom field holds (Leadline; admin): what deleting it removes`,
            params: idParams,
            response: { 200: customFieldUsageSchema },
          },
        },
        async (request) => {
          const me = await requireAdminOver(request, fieldOf(request.params.id), notFound)
          const field = await findCustomField(db, me.organizationId, objectType, request.params.id)
          if (field === undefined) throw notFound()
          return { values: await countCustomFieldValues(db, me.organizationId, field.id) }
        },
      )

      app.get(`/${base}/${objectType}/:id/`, schemas.get(`One ${objectType} custom field`), async (request) => {
        const me = caller(request)
        const field = await findCustomField(db, me.organizationId, objectType, request.params.id)
        if (field === undefined) throw notFound()
        return customFieldView(field)
      })

      app.post(
        `/${base}/${objectType}/`,
        schemas.create(`Create ${withArticle(objectType)} custom field (admin; answers 200)`, createBody),
        async (request) => {
          const me = requireAdmin(request)
          const { body } = request
          const errors: Record<string, string> = {}
          const values: CustomFieldValues = {
            name: cleanName(body.name, errors),
            description: cleanDescription(body.description ?? null),
            type: body.type,
            choices: cleanChoices(body.type, body.choices, null, errors),
            accepts_multiple_values: body.accepts_multiple_values ?? false,
          }
          if (Object.keys(errors).length > 0) throw new ValidationError(errors)
          return db.transaction().execute(async (tx) => {
            await lockOrganizationCustomFields(tx, dialect, me.organizationId)
            if (await customFieldNameTaken(tx, me.organizationId, objectType, values.name)) throw nameTaken()
            const ctx = changeContext(request, formatTimestamp(clock.now()))
            const row = await insertCustomField(tx, {
              organizationId: me.organizationId,
              objectType,
              userId: me.userId,
              now: ctx.now,
              values,
            })
            const view = customFieldView(row)
            await recordEvents(tx, ctx.events, [customFieldEvent(objectType, view, 'created')])
            return view
          })
        },
      )

      app.put(
        `/${base}/${objectType}/:id/`,
        schemas.update(`Change ${withArticle(objectType)} custom field (admin)`, updateBody),
        async (request) => {
          const me = await requireAdminOver(request, fieldOf(request.params.id), notFound)
          return db.transaction().execute(async (tx) => {
            await lockOrganizationCustomFields(tx, dialect, me.organizationId)
            const current = await findCustomField(tx, me.organizationId, objectType, request.params.id)
            if (current === undefined) throw notFound()
            if (Object.keys(request.body).length === 0) return customFieldView(current)
            const values = patched(current, request.body)
            if (
              values.name !== current.name &&
              (await customFieldNameTaken(tx, me.organizationId, objectType, values.name, current.id))
            ) {
              throw nameTaken()
            }
            const typeChanges = values.type !== current.type
            const becomesSingle = !values.accepts_multiple_values && Boolean(current.accepts_multiple_values)
            if (typeChanges || becomesSingle) {
              const usage = await customFieldUsage(tx, me.organizationId, current.id)
              if (typeChanges && usage.values > 0) {
                throw ValidationError.field(
                  'type',
                  `The type cannot change while the field holds values (${usage.values} now): they may not be valid for the new type. Remove them first, or create a new field.`,
                )
              }
              if (becomesSingle && usage.mostPerObject > 1) {
                throw ValidationError.field(
                  'accepts_multiple_values',
                  `Some objects hold up to ${usage.mostPerObject} values of this field: leave them one value each first.`,
                )
              }
            }
            const ctx = changeContext(request, formatTimestamp(clock.now()))
            await updateCustomField(tx, me.organizationId, current.id, { userId: me.userId, now: ctx.now, values })
            const updated = await findCustomField(tx, me.organizationId, objectType, current.id)
            if (updated === undefined) throw notFound()
            const view = customFieldView(updated)
            await recordEvents(tx, ctx.events, [
              { ...customFieldEvent(objectType, view, 'updated'), previous: customFieldView(current) },
            ])
            return view
          })
        },
      )

      app.delete(
        `/${base}/${objectType}/:id/`,
        schemas.delete(`Delete ${withArticle(objectType)} custom field and all its values (admin)`),
        async (request) => {
          const me = await requireAdminOver(request, fieldOf(request.params.id), notFound)
          await db.transaction().execute(async (tx) => {
            const field = await findCustomField(tx, me.organizationId, objectType, request.params.id)
            if (field === undefined) throw notFound()
            await deleteCustomField(tx, me.organizationId, field.id)
            const ctx = changeContext(request, formatTimestamp(clock.now()))
            await recordEvents(tx, ctx.events, [customFieldEvent(objectType, customFieldView(field), 'deleted')])
          })
          return {}
        },
      )
    }
  }

  for (const objectType of CUSTOM_OBJECT_TYPES) {
    const tags = ['custom field schemas']
    const allFields = async (organizationId: string) =>
      (await customFieldsQuery(db, organizationId, objectType).execute()).map(customFieldView)

    app.get(
      `/custom_field_schema/${objectType}/`,
      {
        schema: {
          tags,
          summary: `The ${objectType} custom fields of your organization, in its order`,
          response: { 200: customFieldSchemaSchema },
        },
      },
      async (request) => ({ fields: await allFields(caller(request).organizationId) }),
    )

    app.put(
      `/custom_field_schema/${objectType}/`,
      {
        schema: {
          tags,
          summary: `Reorder the ${objectType} custom fields (admin)`,
          description:
            'The fields listed come first, in the order given; the ones left out follow, in their current order.',
          body: schemaBody,
          response: { 200: customFieldSchemaSchema },
        },
      },
      async (request) => {
        const me = requireAdmin(request)
        return db.transaction().execute(async (tx) => {
          await lockOrganizationCustomFields(tx, dialect, me.organizationId)
          const before = (await customFieldsQuery(tx, me.organizationId, objectType).execute()).map(customFieldView)
          const order = reordered(before, request.body.fields, objectType)
          await setPositions(tx, 'custom_field', me.organizationId, order)
          const after = (await customFieldsQuery(tx, me.organizationId, objectType).execute()).map(customFieldView)
          const previous = new Map(before.map((f) => [f.id, f]))
          const ctx = changeContext(request, formatTimestamp(clock.now()))
          // Each field whose place changed is updated: other users' screens and subscribers learn the new order.
          await recordEvents(
            tx,
            ctx.events,
            after
              .filter((f) => previous.get(f.id)?.position !== f.position)
              .map((f) => ({ ...customFieldEvent(objectType, f, 'updated'), previous: previous.get(f.id) ?? f })),
          )
          return { fields: after }
        })
      },
    )
  }
}
