import { Type, type Static } from '@sinclair/typebox'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { ActivityTable, Db } from '../../platform/data/database.js'
import { CALL_STATUSES, findActivity } from '../../crm/activities/activity-repo.js'
import { deleteActivity, oneActivity, typedRoutes } from '../../crm/activities/activity-routes.js'
import { checkContactOfLead } from '../../crm/contacts/contact-repo.js'
import { changeContext } from '../../integrations/events/event-repo.js'
import { findLead } from '../../crm/leads/lead-repo.js'
import { findOrganization } from '../../crm/organizations/organization-repo.js'
import { appliesToCalls, findOutcome } from '../../crm/outcomes/outcome-repo.js'
import { phoneNumbersQuery } from '../phone-numbers/phone-number-repo.js'
import type { Deps } from '../../crm/deps.js'
import { ValidationError } from '../../platform/http/errors.js'
import { caller } from '../../platform/http/request-context.js'
import { cleanText, isHttpsUrl } from '../../platform/text/text.js'
import { formatTimestamp, parseTimestamp, TIMESTAMP_EXPECTED } from '../../platform/data/time.js'
import { CALL_DISPOSITIONS, changeCall, recordCall, type CallFields } from './call-repo.js'
import { normalizeContactPhone, normalizePhoneNumber } from '../../platform/text/phone-format.js'
import { found } from '../../platform/data/find-or-404.js'
import { isMemberOf } from '../../crm/users/user-repo.js'

const tags = ['activities']
const params = Type.Object({ id: Type.String() })
const PATH = '/activity/call/'
const URL_MAX = 2048
/** The largest 32-bit integer: what any column or sum of durations elsewhere can hold. */
const SECONDS_MAX = 2_147_483_647

const nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) =>
  Type.Optional(Type.Union([schema, Type.Null()]))
const seconds = (description: string) =>
  nullable(Type.Integer({ minimum: 0, maximum: SECONDS_MAX, description: `${description} Seconds; null is 0.` }))
const httpsUrl = (description: string) =>
  nullable(Type.String({ maxLength: URL_MAX, description: `${description} Must start with https://.` }))
const userRef = (description: string) =>
  nullable(Type.String({ description: `${description} A user of your organization; you unless given.` }))

/** What both POST and PUT may set. */
const editable = {
  contact_id: nullable(Type.String({ description: 'A contact of the lead.' })),
  disposition: nullable(
    Type.Union(
      CALL_DISPOSITIONS.map((d) => Type.Literal(d)),
      { description: `How the call ended: ${CALL_DISPOSITIONS.join(', ')}.` },
    ),
  ),
  outcome_id: nullable(Type.String({ description: 'An outcome of your organization that applies to calls.' })),
  note: nullable(Type.String({ maxLength: 100_000, description: 'Blank is null.' })),
  duration: seconds('How long the call took.'),
  recording_url: httpsUrl('The recording.'),
  activity_at: nullable(
    Type.String({ description: 'When the call happened: a date or ISO 8601 timestamp; now unless given.' }),
  ),
}

const createBody = Type.Object(
  {
    lead_id: Type.String(),
    ...editable,
    user_id: userRef('Whose call it is.'),
    created_by: userRef('Who logged it.'),
    direction: Type.Optional(
      Type.Union([Type.Literal('outbound'), Type.Literal('inbound')], { description: 'Defaults to `outbound`.' }),
    ),
    status: Type.Optional(
      Type.Union(
        CALL_STATUSES.map((s) => Type.Literal(s)),
        { description: 'Defaults to `completed`.' },
      ),
    ),
    phone: nullable(
      Type.String({
        maxLength: 64,
        description:
          'The other party’s number: a valid number (as dialled in your organization’s country, or with +), or one of the lead’s contacts’ numbers as stored. Stored in E.164 as `phone` and `remote_phone`; names the contact when `contact_id` is not sent.',
      }),
    ),
    local_phone: nullable(Type.String({ maxLength: 64, description: 'One of your organization’s phone numbers.' })),
    voicemail_url: httpsUrl('A voicemail left.'),
    voicemail_duration: seconds('How long the voicemail is.'),
  },
  { additionalProperties: false },
)
type CreateBody = Static<typeof createBody>

const updateBody = Type.Object(editable, {
  additionalProperties: false,
  description: 'Only the fields sent change; null clears a field (a duration of null is 0).',
})
type UpdateBody = Static<typeof updateBody>

type Errors = Record<string, string>
const HTTPS_ONLY = 'Enter a URL that starts with https://.'

/** The checks POST and PUT share, on what the body sends; field errors go into `errors`. */
async function checkEditable(
  tx: Db,
  organizationId: string,
  leadId: string,
  body: UpdateBody,
  errors: Errors,
): Promise<Omit<CallFields, 'remote_phone'>> {
  const fields: Omit<CallFields, 'remote_phone'> = {}
  if (body.contact_id !== undefined) await checkContactOfLead(tx, organizationId, leadId, body.contact_id, errors)
  if (body.outcome_id !== undefined && body.outcome_id !== null) {
    const outcome = await findOutcome(tx, organizationId, body.outcome_id)
    if (outcome === undefined) errors.outcome_id = 'Not an outcome of your organization.'
    else if (!appliesToCalls(outcome)) errors.outcome_id = 'This outcome does not apply to calls.'
    else fields.outcome_id = outcome.id
  } else if (body.outcome_id === null) fields.outcome_id = null
  if (typeof body.recording_url === 'string' && !isHttpsUrl(body.recording_url)) errors.recording_url = HTTPS_ONLY
  else if (body.recording_url !== undefined) fields.recording_url = body.recording_url
  if (body.activity_at !== undefined && body.activity_at !== null) {
    const at = parseTimestamp(body.activity_at)
    if (at === undefined) errors.activity_at = TIMESTAMP_EXPECTED
    else fields.activity_at = at
  }
  if (body.note !== undefined) fields.note = cleanText(body.note) ?? null
  if (body.disposition !== undefined) fields.disposition = body.disposition
  if (body.duration !== undefined) fields.duration = body.duration ?? 0
  return fields
}

async function checkMember(tx: Db, organizationId: string, field: string, userId: string, errors: Errors) {
  if (!(await isMemberOf(tx, organizationId, userId))) errors[field] = 'Not a user of your organization.'
}

/**
 * The other party's number in E.164, and the contact of the lead it belongs to. A valid number is taken as it is;
 * anything else only when a contact of the lead has it as stored (contacts' phones are kept leniently, decision 0009).
 */
async function remotePhone(tx: Db, organizationId: string, leadId: string, raw: string, country: string) {
  const leadPhones = await tx
    .selectFrom('contact_phone')
    .innerJoin('contact', 'contact.id', 'contact_phone.contact_id')
    .select(['contact_phone.contact_id', 'contact_phone.phone'])
    .where('contact_phone.organization_id', '=', organizationId)
    .where('contact_phone.lead_id', '=', leadId)
    .orderBy('contact.date_created')
    .orderBy('contact.id')
    .orderBy('contact_phone.position')
    .execute()
  const strict = normalizePhoneNumber(raw, country)
  const lenient = normalizeContactPhone(raw, country)
  const phone = strict ?? leadPhones.find((p) => p.phone === lenient)?.phone
  return { phone, contactId: leadPhones.find((p) => phone !== undefined && p.phone === phone)?.contact_id ?? null }
}

/** Checks a new call's body against the organization's data; the call to store, or a 400 with every problem. */
async function checkedNewCall(tx: Db, me: { organizationId: string; userId: string }, body: CreateBody) {
  const errors: Errors = {}
  const org = me.organizationId
  const lead = await findLead(tx, org, body.lead_id)
  if (lead === undefined) errors.lead_id = 'Object does not exist.'
  const fields = await checkEditable(tx, org, body.lead_id, body, errors)
  const userId = body.user_id ?? me.userId
  const createdBy = body.created_by ?? me.userId
  if (body.user_id !== undefined && body.user_id !== null) await checkMember(tx, org, 'user_id', userId, errors)
  if (body.created_by !== undefined && body.created_by !== null) {
    await checkMember(tx, org, 'created_by', createdBy, errors)
  }
  if (body.voicemail_url !== undefined && body.voicemail_url !== null && !isHttpsUrl(body.voicemail_url)) {
    errors.voicemail_url = HTTPS_ONLY
  }
  let contactId = body.contact_id ?? null
  let remote: string | null = null
  let local: string | null = null
  const rawRemote = cleanText(body.phone)
  const rawLocal = cleanText(body.local_phone)
  if (typeof rawRemote === 'string' || typeof rawLocal === 'string') {
    const country = (await findOrganization(tx, org))?.country ?? ''
    if (typeof rawRemote === 'string') {
      const found = await remotePhone(tx, org, body.lead_id, rawRemote, country)
      if (found.phone === undefined) errors.phone = 'Enter a valid phone number.'
      else remote = found.phone
      if (body.contact_id === undefined) contactId = found.contactId
    }
    if (typeof rawLocal === 'string') {
      const number = normalizePhoneNumber(rawLocal, country)
      const own = number === undefined ? undefined : await phoneNumbersQuery(tx, org, { number }).executeTakeFirst()
      if (own === undefined) errors.local_phone = 'Not one of your organization’s phone numbers.'
      else local = own.number
    }
  }
  if (Object.keys(errors).length > 0) throw new ValidationError(errors)
  // A call logged for a contact without a number was with the contact's first one: the timeline can show it.
  if (body.phone === undefined && contactId !== null) remote = await firstPhoneOf(tx, org, contactId)
  return {
    leadId: body.lead_id,
    contactId,
    userId,
    createdBy,
    call: {
      ...fields,
      direction: body.direction ?? 'outbound',
      status: body.status ?? 'completed',
      remote_phone: remote,
      local_phone: local,
      voicemail_url: body.voicemail_url ?? null,
      voicemail_duration: body.voicemail_duration ?? 0,
    },
  }
}

async function firstPhoneOf(tx: Db, organizationId: string, contactId: string): Promise<string | null> {
  const row = await tx
    .selectFrom('contact_phone')
    .select('phone')
    .where('organization_id', '=', organizationId)
    .where('contact_id', '=', contactId)
    .orderBy('position')
    .executeTakeFirst()
  return row?.phone ?? null
}

async function findCall(tx: Db, organizationId: string, id: string): Promise<ActivityTable> {
  const row = found(await findActivity(tx, organizationId, id, 'Call'), 'Call')
  return row
}

export const callRoutes: FastifyPluginAsyncTypebox<Deps> = async (app, { db, clock }) => {
  typedRoutes(app, db, PATH, 'Call')

  app.post(
    PATH,
    {
      schema: {
        tags,
        summary: 'Log a call made outside Leadline (answers 200)',
        body: createBody,
      },
    },
    async (request) => {
      const me = caller(request)
      const ctx = changeContext(request, formatTimestamp(clock.now()))
      return db.transaction().execute(async (tx) => {
        const call = await checkedNewCall(tx, me, request.body)
        const id = await recordCall(
          tx,
          { ...call, organizationId: me.organizationId, updatedBy: me.userId, now: ctx.now },
          ctx.events,
        )
        return oneActivity(tx, me.organizationId, id, 'Call')
      })
    },
  )

  app.put(
    `${PATH}:id/`,
    {
      schema: {
        tags,
        summary: 'Change a call’s note, outcome, disposition, duration, recording, time or contact',
        params,
        body: updateBody,
      },
    },
    async (request) => {
      const me = caller(request)
      const ctx = changeContext(request, formatTimestamp(clock.now()))
      return db.transaction().execute(async (tx) => {
        const row = await findCall(tx, me.organizationId, request.params.id)
        const errors: Errors = {}
        const fields = await checkEditable(tx, me.organizationId, row.lead_id, request.body, errors)
        if (Object.keys(errors).length > 0) throw new ValidationError(errors)
        await changeCall(
          tx,
          row,
          { call: fields, ...(request.body.contact_id === undefined ? {} : { contactId: request.body.contact_id }) },
          { userId: me.userId, now: ctx.now, events: ctx.events },
        )
        return oneActivity(tx, me.organizationId, row.id, 'Call')
      })
    },
  )

  app.delete(`${PATH}:id/`, { schema: { tags, summary: 'Delete a call', params } }, async (request) => {
    const me = caller(request)
    const ctx = changeContext(request, formatTimestamp(clock.now()))
    await db.transaction().execute(async (tx) => {
      await deleteActivity(tx, ctx, await findCall(tx, me.organizationId, request.params.id))
    })
    return {}
  })
}
