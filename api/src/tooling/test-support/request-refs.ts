import type { FastifyInstance } from 'fastify'
import type { EveryObject } from './every-object.js'
import { nonNull, smallestValue, type Hints, type Operation, type SchemaNode } from './openapi-walk.js'
import { basicAuth } from './test-app.js'

/**
 * What object a request field names, by the field's name (and, where one name means two things, its route): the
 * security suites put another organization's object, or a colleague's, in each such field.
 */
const REFERENCES: Record<string, string> = {
  lead_id: 'lead',
  'POST /lead/merge/ source': 'lead',
  'POST /lead/merge/ destination': 'lead',
  contact_id: 'contact',
  opportunity_id: 'opportunity',
  task_id: 'task',
  user_id: 'user',
  assigned_to: 'user',
  created_by: 'user',
  membership_id: 'membership',
  organization_id: 'organization',
  pipeline_id: 'pipeline',
  outcome_id: 'outcome',
  template_id: 'template',
  in_reply_to_id: 'email',
  object_id: 'event_object',
  request_id: 'request',
  local_phone: 'phone',
  sender: 'email_address',
  lead_status_id: 'lead_status',
  lead_ids: 'lead',
  'POST /bulk_action/edit/ custom_field_id': 'custom_field_lead',
}

/** Fields named like a reference that name nothing of an organization's, with why. */
const NOT_REFERENCES: Record<string, string> = {
  content_id: 'the MIME Content-ID an HTML body uses for an inline file, not an object',
  role_id: 'a predefined role’s name (`admin`, `user`), not an object',
  'PUT /auth/sso/ client_id': 'the client ID the identity provider gave Leadline, not an object',
  'POST /saved_search/ selected_fields.0.id':
    'a column of the list a Smart View shows (`name`, `status`, `custom.<field id>`): a name, never read as an object',
  'PUT /saved_search/{id}/ selected_fields.0.id':
    'a column of the list a Smart View shows (`name`, `status`, `custom.<field id>`): a name, never read as an object',
}

const ID_LIKE = /(^|_)id$/

/**
 * The kind of object a field names (a key of `EveryObject.byReference`); null when it names none; undefined
 * when it looks like a reference (`…_id`) but no kind is known, which the suites report as not covered.
 */
export function referenceKind(op: Operation, name: string, schema: SchemaNode): string | null | undefined {
  const field = name.split('.').filter((s) => !/^\d+$/.test(s))
  const last = (field.at(-1) ?? '').replace(/__in$/, '')
  if (NOT_REFERENCES[`${op.key} ${name}`] !== undefined || NOT_REFERENCES[last] !== undefined) return null
  if (nonNull(schema).description?.includes('/email_attachment/') === true) return 'attachment_url'
  if (last === 'status_id') return op.path.startsWith('/lead/') ? 'lead_status' : 'opportunity_status'
  if (last === 'id' && field.length > 1) {
    if (field.at(-2) === 'lead_statuses') return 'lead_status'
    if (field.at(-2) === 'statuses') return 'opportunity_status'
    if (field.at(-2) === 'outcomes') return 'outcome'
    // `PUT /custom_field_schema/{object_type}/` lists fields of the path's object type.
    if (field.at(-2) === 'fields' && op.path.startsWith('/custom_field_schema/')) {
      return `custom_field_${op.path.split('/')[2] ?? ''}`
    }
    return undefined
  }
  if (last === 'id' && op.path === '/task/') return 'task'
  const kind = REFERENCES[`${op.key} ${name}`] ?? REFERENCES[last]
  if (kind !== undefined) return kind
  return ID_LIKE.test(last) ? undefined : null
}

/** A list filter's value for a kind: `…__in` takes a comma-separated list. */
export function referenceValue(objects: EveryObject, kind: string): string {
  const value = objects.byReference[kind]
  if (value === undefined) throw new Error(`no object of kind ${kind}`)
  return value
}

let counter = 0

/** The next of a run of numbers, for names and addresses an organization keeps unique. */
export function nextUnique(): number {
  counter += 1
  return counter
}

/**
 * Values a smallest body needs where the schema alone cannot say what is accepted: references (the organization's
 * own objects), names unique in an organization, addresses, URLs, a webhook's events.
 */
export function bodyHints(op: Operation, own: EveryObject): Hints {
  return (name, schema, path) => {
    const dotted = path.join('.')
    const kind = referenceKind(op, dotted, schema)
    if (kind !== null && kind !== undefined) {
      return own.byReference[kind]
    }
    const n = nextUnique()
    const node = nonNull(schema)
    if (node.enum !== undefined || node.anyOf !== undefined) return undefined
    switch (name) {
      case 'name':
      case 'label':
        return `Made ${n}`
      case 'email':
        return `made${n}@org-own.example`
      case 'host':
        return 'smtp.example.com'
      case 'port':
        return 465
      case 'url':
        return `https://hooks.example.com/made/${n}`
      case 'number':
        return `+1415556${String(n % 10000).padStart(4, '0')}`
      case 'object_type':
        return 'lead'
      case 'action':
        return 'created'
      case 'filename':
        return 'made.txt'
      case 'content_type':
        return 'text/plain'
      case 'date':
      case 'due_date':
      case 'followup_date':
        return '2026-03-02'
      default:
        return undefined
    }
  }
}

/**
 * What a route's handler needs beyond its schema's required fields (a draft may lack recipients, a text sent
 * needs them), so that the suite's request is refused for the one field it changes and for nothing else.
 */
const HANDLER_NEEDS: Record<
  string,
  (
    app: FastifyInstance,
    own: EveryObject,
  ) => Promise<{ body?: Record<string, unknown>; query?: Record<string, string> }>
> = {
  'POST /activity/sms/': async (_app, o) => ({ body: { text: 'Hello', remote_phone: o.contactPhone } }),
  'POST /activity/email/': async (_app, o) => ({
    body: { sender: o.byReference.email_address, to: [o.contactAddress] },
  }),
  'PUT /activity/email/{id}/': async (_app, o) => ({ body: { sender: o.byReference.email_address } }),
  'GET /email_template/{id}/render/': async (_app, o) => ({
    query: { lead_id: o.byReference.lead ?? '', contact_id: o.byReference.contact ?? '' },
  }),
  // The leads asked about are required.
  'GET /lead/summaries/': async (_app, o) => ({ query: { lead_id__in: o.byReference.lead ?? '' } }),
  // A bulk edit says what it does and to which leads (a query, unless the request names lead_ids).
  'POST /bulk_action/edit/': async (_app, o) => ({
    body: { type: 'set_lead_status', lead_status_id: o.byReference.lead_status, query: '' },
  }),
  'POST /bulk_action/delete/': async () => ({ body: { query: '' } }),
  // Every status of the pipeline, the one the suite names first (others may have been added by then).
  'PUT /pipeline/{id}/': async (app, o) => {
    const res = await app.inject({
      method: 'GET',
      url: `/api/v1/pipeline/${o.byReference.pipeline ?? ''}/`,
      headers: { authorization: basicAuth(o.org.admin.key) },
    })
    const listed = res.json<{ statuses: { id: string }[] }>().statuses.map((st) => st.id)
    const first = o.byReference.opportunity_status ?? ''
    return { body: { statuses: [first, ...listed.filter((id) => id !== first)].map((id) => ({ id })) } }
  },
}

/** A request to `op` its handler accepts, naming the organization's own objects: a smallest body, and the query. */
export async function validRequest(
  app: FastifyInstance,
  op: Operation,
  own: EveryObject,
): Promise<{ body: unknown; query?: Record<string, string> }> {
  let body = op.body === undefined ? undefined : smallestValue(op.body, bodyHints(op, own))
  if (op.key === 'PUT /task/') body = { is_complete: false }
  // Everything hangs off a lead: a lead_id a schema leaves optional for updates is required on create.
  const leadField = op.body?.properties?.lead_id
  if (op.method === 'POST' && leadField !== undefined && typeof body === 'object' && body !== null) {
    body = { lead_id: own.byReference.lead, ...body }
  }
  const needs = (await HANDLER_NEEDS[op.key]?.(app, own)) ?? {}
  if (needs.body !== undefined) body = { ...(body as object), ...needs.body }
  return { body, ...(needs.query === undefined ? {} : { query: needs.query }) }
}
