import type { FastifyInstance } from 'fastify'
import { buildApp } from '../../app/app.js'
import type { Config } from '../../platform/config.js'
import type { DatabaseHandle, Db } from '../../platform/data/database.js'
import type { Clock } from '../../platform/data/time.js'
import { API_PREFIX } from '../../platform/http/platform.js'
import type { RateLimiter } from '../../platform/http/rate-limit.js'
import { createApiKey, revokeApiKey } from '../../platform/security/api-key-repo.js'
import { isObject, objects, text, type CloseSource, type SourceObject } from './close-source.js'
import { findMapping, saveMapping, type MappingScope } from './import-mapping-repo.js'

/** What was done with the objects of one kind. */
export interface KindCounts {
  /** New in Leadline. */
  created: number
  /** Copied before, changed to match the source again. */
  updated: number
  /** Already there: found by name, or copied by an earlier run. */
  unchanged: number
  /** Leadline refused them; `problems` says why. */
  failed: number
  /** Leadline has no place for them; `problems` says why. */
  not_copied: number
}

export interface ImportProblem {
  kind: string
  source_id: string
  reason: string
}

export interface ImportReport {
  organization_id: string
  source: string
  /** Who the import wrote as when a source user has no member here. */
  imported_as: string
  users: { matched: number; unmatched: string[] }
  kinds: Record<ImportKind, KindCounts>
  problems: ImportProblem[]
}

export interface ImportOptions {
  database: DatabaseHandle
  config: Config
  clock: Clock
  organizationId: string
  source: CloseSource
  /** A line of progress (stderr). */
  log: (line: string) => void
  /** A progress line every this many leads. */
  leadProgressEvery?: number
}

export const IMPORT_KINDS = [
  'lead_status',
  'pipeline',
  'opportunity_status',
  'lead_custom_field',
  'contact_custom_field',
  'opportunity_custom_field',
  'lead',
  'contact',
  'opportunity',
  'task',
  'note',
  'call',
  'email',
] as const
export type ImportKind = (typeof IMPORT_KINDS)[number]
type Kind = ImportKind

/** The import writes through Leadline's own routes, as fast as the database takes it: no rate limit applies. */
const unlimited: RateLimiter = {
  consume: () => ({
    allowed: true,
    limit: Number.MAX_SAFE_INTEGER,
    remaining: Number.MAX_SAFE_INTEGER,
    resetSeconds: 0,
  }),
}

const CUSTOM_OBJECT_TYPES = ['lead', 'contact', 'opportunity'] as const
type CustomObjectType = (typeof CUSTOM_OBJECT_TYPES)[number]

interface MappedField {
  id: string
  type: string
}

interface Answer {
  status: number
  body: SourceObject
}

/** Why Leadline refused a write, in one line: its field errors, or its error. */
function refusal(answer: Answer): string {
  const fieldErrors = answer.body['field-errors']
  if (isObject(fieldErrors) && Object.keys(fieldErrors).length > 0) {
    return Object.entries(fieldErrors)
      .map(([field, message]) => `${field}: ${String(message)}`)
      .join('; ')
  }
  const error = answer.body.error
  if (typeof error === 'string') return error
  const errors = answer.body.errors
  if (Array.isArray(errors) && errors.length > 0) return errors.map(String).join('; ')
  return `HTTP ${answer.status}`
}

function pick(object: SourceObject, keys: readonly string[]): SourceObject {
  const out: SourceObject = {}
  for (const key of keys) if (object[key] !== undefined) out[key] = object[key]
  return out
}

const byName = (name: string) => name.trim().toLowerCase()

const ADDRESS_KEYS = ['label', 'address_1', 'address_2', 'city', 'state', 'zipcode', 'country'] as const
const EMAIL_KEYS = ['email', 'type'] as const
const PHONE_KEYS = ['phone', 'type'] as const
const URL_KEYS = ['url', 'type'] as const
const SENDABLE_EMAIL_STATUSES = new Set(['sent', 'inbox', 'draft'])

/**
 * Copies an organization from a Close-compatible API into `organizationId`, through Leadline's own routes (an app
 * built in this process, driven with `inject`), so every write validates, indexes, counts and records its events as
 * any client's does. Source users are matched to members by email; an object is written with its user's key when
 * that user has a member here, else as the organization's first admin.
 */
export async function importFromClose(options: ImportOptions): Promise<ImportReport> {
  const { database, clock, organizationId, source, log } = options
  const db: Db = database.db
  const scope: MappingScope = { organizationId, source: source.baseUrl }
  const kinds = Object.fromEntries(
    IMPORT_KINDS.map((kind) => [kind, { created: 0, updated: 0, unchanged: 0, failed: 0, not_copied: 0 }]),
  ) as Record<Kind, KindCounts>
  const problems: ImportProblem[] = []
  const problem = (kind: Kind, sourceId: string, reason: string, count: 'failed' | 'not_copied' = 'failed') => {
    kinds[kind][count] += 1
    problems.push({ kind, source_id: sourceId, reason })
  }

  const members = await db
    .selectFrom('membership')
    .innerJoin('user', 'user.id', 'membership.user_id')
    .select(['membership.id as membership_id', 'membership.user_id', 'membership.role', 'user.email'])
    .where('membership.organization_id', '=', organizationId)
    .orderBy('membership.date_created')
    .orderBy('membership.id')
    .execute()
  const admin = members.find((m) => m.role === 'admin')
  if (admin === undefined) throw new Error(`organization "${organizationId}" has no admin to import as`)

  const app: FastifyInstance = await buildApp({
    database,
    config: options.config,
    clock,
    logger: false,
    rateLimiter: unlimited,
  })
  const keys = new Map<string, string>()
  const issued: string[] = []
  try {
    const keyOf = async (userId: string): Promise<string> => {
      const known = keys.get(userId)
      if (known !== undefined) return known
      const member = members.find((m) => m.user_id === userId)
      if (member === undefined) throw new Error(`${userId} is not a member`)
      const key = await createApiKey(
        db,
        clock,
        { organizationId, userId, membershipId: member.membership_id },
        { description: 'leadline import close (revoked when it ends)' },
      )
      issued.push(key.api_key_id)
      keys.set(userId, key.api_key)
      return key.api_key
    }
    const call = async (userId: string, method: 'GET' | 'POST' | 'PUT', path: string, body?: SourceObject) => {
      const key = await keyOf(userId)
      const response = await app.inject({
        method,
        url: `${API_PREFIX}${path}`,
        headers: { authorization: `Basic ${Buffer.from(`${key}:`).toString('base64')}` },
        ...(body === undefined ? {} : { payload: body }),
      })
      const parsed: unknown = response.body === '' ? {} : JSON.parse(response.body)
      return { status: response.statusCode, body: isObject(parsed) ? parsed : {} }
    }
    const ok = (answer: Answer) => answer.status >= 200 && answer.status < 300
    /** Every object of one of Leadline's own lists (statuses, pipelines, custom fields: short ones). */
    const targetList = async (path: string): Promise<SourceObject[]> => {
      const answer = await call(admin.user_id, 'GET', path)
      if (!ok(answer)) throw new Error(`GET ${path} in Leadline: ${refusal(answer)}`)
      return objects(answer.body, 'data')
    }

    // Users: matched by email to the organization's members.
    const userMap = new Map<string, string>()
    const unmatched: string[] = []
    const memberByEmail = new Map(members.map((m) => [m.email.toLowerCase(), m.user_id]))
    for await (const user of source.list('/user/')) {
      const id = text(user, 'id')
      const email = text(user, 'email')
      if (id === undefined) continue
      const member = email === undefined ? undefined : memberByEmail.get(email.toLowerCase())
      if (member === undefined) unmatched.push(email ?? id)
      else userMap.set(id, member)
    }
    log(`users: ${userMap.size} matched to members by email, ${unmatched.length} not found here`)
    /** The member a source user became, or undefined (no user, or not a member here). */
    const userOf = (value: unknown) => (typeof value === 'string' ? userMap.get(value) : undefined)
    /** Whose key writes an object: its author's when they are a member here, else the admin's. */
    const writerOf = (object: SourceObject) => userOf(object.created_by) ?? userOf(object.user_id) ?? admin.user_id

    // Lead statuses, by label.
    const leadStatusMap = new Map<string, string>()
    const leadStatuses = new Map(
      (await targetList('/status/lead/')).map((s) => [byName(text(s, 'label') ?? ''), text(s, 'id') ?? '']),
    )
    for await (const status of source.list('/status/lead/')) {
      const id = text(status, 'id') ?? ''
      const label = text(status, 'label') ?? ''
      const found = leadStatuses.get(byName(label))
      if (found !== undefined) {
        leadStatusMap.set(id, found)
        kinds.lead_status.unchanged += 1
        continue
      }
      const answer = await call(admin.user_id, 'POST', '/status/lead/', { label })
      const created = text(answer.body, 'id')
      if (!ok(answer) || created === undefined) {
        problem('lead_status', id, refusal(answer))
        continue
      }
      leadStatuses.set(byName(label), created)
      leadStatusMap.set(id, created)
      kinds.lead_status.created += 1
    }
    log(`lead statuses: ${describeCounts(kinds.lead_status)}`)

    // Pipelines by name, and their opportunity statuses by label within each.
    const opportunityStatusMap = new Map<string, string>()
    const pipelines = new Map((await targetList('/pipeline/')).map((p) => [byName(text(p, 'name') ?? ''), p]))
    for await (const pipeline of source.list('/pipeline/')) {
      const id = text(pipeline, 'id') ?? ''
      const name = text(pipeline, 'name') ?? ''
      const statuses = objects(pipeline, 'statuses')
      let target = pipelines.get(byName(name))
      // A pipeline made here now was made with its statuses; one found keeps its own and gets the missing ones.
      const fresh = target === undefined
      if (target === undefined) {
        const answer = await call(admin.user_id, 'POST', '/pipeline/', {
          name,
          statuses: statuses.map((s) => pick(s, ['label', 'type'])),
        })
        if (!ok(answer)) {
          problem('pipeline', id, refusal(answer))
          for (const status of statuses) {
            problem('opportunity_status', text(status, 'id') ?? '', `its pipeline "${name}" could not be created`)
          }
          continue
        }
        target = answer.body
        pipelines.set(byName(name), target)
        kinds.pipeline.created += 1
        kinds.opportunity_status.created += statuses.length
      } else {
        kinds.pipeline.unchanged += 1
      }
      const targetId = text(target, 'id') ?? ''
      const labels = new Map(objects(target, 'statuses').map((s) => [byName(text(s, 'label') ?? ''), text(s, 'id')]))
      for (const status of statuses) {
        const statusId = text(status, 'id') ?? ''
        const found = labels.get(byName(text(status, 'label') ?? ''))
        if (found !== undefined) {
          opportunityStatusMap.set(statusId, found)
          if (!fresh) kinds.opportunity_status.unchanged += 1
          continue
        }
        const answer = await call(admin.user_id, 'POST', '/status/opportunity/', {
          ...pick(status, ['label', 'type']),
          pipeline_id: targetId,
        })
        const created = text(answer.body, 'id')
        if (!ok(answer) || created === undefined) {
          problem('opportunity_status', statusId, refusal(answer))
          continue
        }
        labels.set(byName(text(status, 'label') ?? ''), created)
        opportunityStatusMap.set(statusId, created)
        kinds.opportunity_status.created += 1
      }
    }
    log(
      `pipelines: ${describeCounts(kinds.pipeline)}; opportunity statuses: ${describeCounts(kinds.opportunity_status)}`,
    )

    // Custom fields of leads, contacts and opportunities, by name.
    const fieldMaps: Record<CustomObjectType, Map<string, MappedField>> = {
      lead: new Map(),
      contact: new Map(),
      opportunity: new Map(),
    }
    for (const objectType of CUSTOM_OBJECT_TYPES) {
      const kind: Kind = `${objectType}_custom_field`
      const path = `/custom_field/${objectType}/`
      const existing = new Map((await targetList(path)).map((f) => [byName(text(f, 'name') ?? ''), f]))
      for await (const field of source.list(path)) {
        const id = text(field, 'id') ?? ''
        const name = text(field, 'name') ?? ''
        const found = existing.get(byName(name))
        if (found !== undefined) {
          fieldMaps[objectType].set(id, { id: text(found, 'id') ?? '', type: text(found, 'type') ?? '' })
          kinds[kind].unchanged += 1
          continue
        }
        const answer = await call(admin.user_id, 'POST', path, {
          name,
          ...pick(field, ['type', 'description', 'accepts_multiple_values']),
          ...(field.type === 'choices' ? { choices: field.choices } : {}),
        })
        const created = text(answer.body, 'id')
        if (!ok(answer) || created === undefined) {
          problem(kind, id, `"${name}": ${refusal(answer)}`)
          continue
        }
        existing.set(byName(name), answer.body)
        fieldMaps[objectType].set(id, { id: created, type: text(answer.body, 'type') ?? '' })
        kinds[kind].created += 1
      }
      log(`${objectType} custom fields: ${describeCounts(kinds[kind])}`)
    }

    const contactMap = new Map<string, string>()
    const mappedContact = async (sourceId: unknown): Promise<string | undefined> => {
      if (typeof sourceId !== 'string') return undefined
      const known = contactMap.get(sourceId) ?? (await findMapping(db, scope, sourceId))
      if (known !== undefined) contactMap.set(sourceId, known)
      return known
    }
    /**
     * The `custom.<id>` values of a source object under this organization's field ids. A user or contact value that
     * names nobody here is left out, and said.
     */
    const customValues = async (object: SourceObject, objectType: CustomObjectType, kind: Kind, sourceId: string) => {
      const out: SourceObject = {}
      for (const [key, value] of Object.entries(object)) {
        if (!key.startsWith('custom.')) continue
        const field = fieldMaps[objectType].get(key.slice('custom.'.length))
        if (field === undefined || value === null || value === undefined) continue
        if (field.type === 'user' || field.type === 'contact') {
          const many = Array.isArray(value) ? value : [value]
          const mapped: string[] = []
          for (const one of many) {
            const target = field.type === 'user' ? userOf(one) : await mappedContact(one)
            if (target === undefined) {
              problems.push({ kind, source_id: sourceId, reason: `${key}: ${String(one)} has no counterpart here` })
            } else mapped.push(target)
          }
          if (mapped.length > 0) out[`custom.${field.id}`] = Array.isArray(value) ? mapped : mapped[0]
          continue
        }
        out[`custom.${field.id}`] = value
      }
      return out
    }
    const contactBody = async (contact: SourceObject, sourceId: string): Promise<SourceObject> => ({
      ...pick(contact, ['name', 'title']),
      emails: objects(contact, 'emails').map((e) => pick(e, EMAIL_KEYS)),
      phones: objects(contact, 'phones').map((p) => pick(p, PHONE_KEYS)),
      urls: objects(contact, 'urls').map((u) => pick(u, URL_KEYS)),
      ...(await customValues(contact, 'contact', 'contact', sourceId)),
    })

    // Leads with their contacts, addresses and custom values.
    const every = options.leadProgressEvery ?? 200
    let leadsRead = 0
    for await (const lead of source.list('/lead/')) {
      leadsRead += 1
      const id = text(lead, 'id') ?? ''
      const statusId = text(lead, 'status_id')
      const status = statusId === undefined ? undefined : leadStatusMap.get(statusId)
      const body: SourceObject = {
        ...pick(lead, ['name', 'url', 'description']),
        ...(status === undefined ? {} : { status_id: status }),
        addresses: objects(lead, 'addresses').map((a) => pick(a, ADDRESS_KEYS)),
        ...(await customValues(lead, 'lead', 'lead', id)),
      }
      const contacts = objects(lead, 'contacts')
      const writer = writerOf(lead)
      const existing = await findMapping(db, scope, id)
      let leadId: string | undefined
      if (existing !== undefined) {
        const answer = await call(writer, 'PUT', `/lead/${existing}/`, body)
        if (ok(answer)) {
          leadId = existing
          kinds.lead.updated += 1
        } else if (answer.status !== 404) {
          problem('lead', id, refusal(answer))
          continue
        }
      }
      if (leadId === undefined) {
        const withContacts = []
        for (const contact of contacts) withContacts.push(await contactBody(contact, text(contact, 'id') ?? ''))
        const answer = await call(writer, 'POST', '/lead/', { ...body, contacts: withContacts })
        const created = text(answer.body, 'id')
        if (!ok(answer) || created === undefined) {
          problem('lead', id, refusal(answer))
          for (const contact of contacts) {
            problem('contact', text(contact, 'id') ?? '', `its lead ${id} could not be copied`)
          }
          continue
        }
        await saveMapping(db, clock, scope, { sourceId: id, kind: 'lead', targetId: created })
        kinds.lead.created += 1
        const made = objects(answer.body, 'contacts')
        for (const [i, contact] of contacts.entries()) {
          const contactId = text(contact, 'id') ?? ''
          const madeId = made[i] === undefined ? undefined : text(made[i], 'id')
          if (madeId === undefined) {
            problem('contact', contactId, 'Leadline did not answer with this contact')
            continue
          }
          await saveMapping(db, clock, scope, { sourceId: contactId, kind: 'contact', targetId: madeId })
          contactMap.set(contactId, madeId)
          kinds.contact.created += 1
        }
      } else {
        for (const contact of contacts) {
          const contactId = text(contact, 'id') ?? ''
          const contactBodyNow = await contactBody(contact, contactId)
          const known = await mappedContact(contactId)
          if (known !== undefined) {
            const answer = await call(writer, 'PUT', `/contact/${known}/`, contactBodyNow)
            if (ok(answer)) {
              kinds.contact.updated += 1
              continue
            }
            if (answer.status !== 404) {
              problem('contact', contactId, refusal(answer))
              continue
            }
          }
          const answer = await call(writer, 'POST', '/contact/', { ...contactBodyNow, lead_id: leadId })
          const created = text(answer.body, 'id')
          if (!ok(answer) || created === undefined) {
            problem('contact', contactId, refusal(answer))
            continue
          }
          await saveMapping(db, clock, scope, { sourceId: contactId, kind: 'contact', targetId: created })
          contactMap.set(contactId, created)
          kinds.contact.created += 1
        }
      }
      if (leadsRead % every === 0) log(`leads: ${leadsRead} read; ${describeCounts(kinds.lead)}`)
    }
    log(`leads: ${leadsRead} read; ${describeCounts(kinds.lead)}; contacts: ${describeCounts(kinds.contact)}`)

    /**
     * Copies each object of a source list once: one copied by an earlier run is left as it is (activities are
     * history; what changed since is the lead's). The source's list and Leadline's create share `path`. `build`
     * answers the body, or a reason it cannot be copied.
     */
    const copyOnce = async (
      kind: Kind,
      path: string,
      build: (object: SourceObject, sourceId: string) => Promise<SourceObject | { notCopied: string }>,
      params: Record<string, string> = {},
    ) => {
      for await (const object of source.list(path, params)) {
        const id = text(object, 'id') ?? ''
        if ((await findMapping(db, scope, id)) !== undefined) {
          kinds[kind].unchanged += 1
          continue
        }
        const leadId = await findMapping(db, scope, text(object, 'lead_id') ?? '')
        if (leadId === undefined) {
          problem(kind, id, `its lead ${text(object, 'lead_id') ?? '(none)'} was not copied`, 'not_copied')
          continue
        }
        const body = await build(object, id)
        if ('notCopied' in body && typeof body.notCopied === 'string') {
          problem(kind, id, body.notCopied, 'not_copied')
          continue
        }
        const answer = await call(writerOf(object), 'POST', path, { ...body, lead_id: leadId })
        const created = text(answer.body, 'id')
        if (!ok(answer) || created === undefined) {
          problem(kind, id, refusal(answer))
          continue
        }
        await saveMapping(db, clock, scope, { sourceId: id, kind, targetId: created })
        kinds[kind].created += 1
      }
      log(`${kind === 'opportunity' ? 'opportunities' : `${kind}s`}: ${describeCounts(kinds[kind])}`)
    }
    const contactOf = async (object: SourceObject) => {
      const contact = await mappedContact(object.contact_id)
      return contact === undefined ? {} : { contact_id: contact }
    }

    await copyOnce('opportunity', '/opportunity/', async (opportunity, id) => {
      const statusId = text(opportunity, 'status_id')
      const status = statusId === undefined ? undefined : opportunityStatusMap.get(statusId)
      if (status === undefined) return { notCopied: `its status ${statusId ?? '(none)'} was not copied` }
      const owner = userOf(opportunity.user_id)
      return {
        ...pick(opportunity, ['value', 'value_period', 'value_currency', 'confidence', 'note', 'date_won']),
        status_id: status,
        ...(owner === undefined ? {} : { user_id: owner }),
        ...(await contactOf(opportunity)),
        ...(await customValues(opportunity, 'opportunity', 'opportunity', id)),
      }
    })

    // Every type of task: Close lists only lead tasks unless asked, and the others are to be counted, not missed.
    await copyOnce(
      'task',
      '/task/',
      async (task) => {
        const type = text(task, '_type') ?? 'lead'
        if (type !== 'lead')
          return { notCopied: `a task of type ${type}: Leadline makes those itself and creates only lead tasks` }
        const assignee = userOf(task.assigned_to)
        return {
          ...pick(task, ['text', 'date', 'is_complete']),
          ...(assignee === undefined ? {} : { assigned_to: assignee }),
          ...(await contactOf(task)),
        }
      },
      { _type: 'all' },
    )

    await copyOnce('note', '/activity/note/', async (note) => {
      const body = text(note, 'note') ?? ''
      if (body.trim() === '' && text(note, 'note_html') !== undefined) {
        return { notCopied: 'a note with only rich text (note_html): Leadline keeps notes as plain text' }
      }
      return { note: body, ...(await contactOf(note)) }
    })

    await copyOnce('call', '/activity/call/', async (call) => {
      const user = userOf(call.user_id)
      const https = (key: string) => {
        const url = text(call, key)
        return url?.startsWith('https://') === true ? { [key]: url } : {}
      }
      return {
        ...pick(call, ['direction', 'status', 'disposition', 'note', 'duration', 'phone', 'voicemail_duration']),
        activity_at: call.activity_at ?? call.date_created,
        user_id: user ?? null,
        ...https('recording_url'),
        ...https('voicemail_url'),
        ...(await contactOf(call)),
      }
    })

    await copyOnce('email', '/activity/email/', async (email, id) => {
      const status = text(email, 'status') ?? ''
      if (!SENDABLE_EMAIL_STATUSES.has(status)) {
        return { notCopied: `an email in status "${status}": copying it would send it, or it was never sent` }
      }
      if (objects(email, 'attachments').length > 0) {
        problems.push({ kind: 'email', source_id: id, reason: 'its attachments were not copied (only the message)' })
      }
      const user = userOf(email.user_id)
      return {
        ...pick(email, ['status', 'subject', 'body_text', 'body_html', 'sender', 'to', 'cc', 'bcc']),
        user_id: user ?? null,
        ...(await contactOf(email)),
      }
    })

    return {
      organization_id: organizationId,
      source: source.baseUrl,
      imported_as: admin.email,
      users: { matched: userMap.size, unmatched },
      kinds,
      problems,
    }
  } finally {
    for (const id of issued) await revokeApiKey(db, clock, id)
    await app.close()
  }
}

export function describeCounts(counts: KindCounts): string {
  const parts = [`${counts.created} created`]
  if (counts.updated > 0) parts.push(`${counts.updated} updated`)
  if (counts.unchanged > 0) parts.push(`${counts.unchanged} already there`)
  if (counts.failed > 0) parts.push(`${counts.failed} failed`)
  if (counts.not_copied > 0) parts.push(`${counts.not_copied} not copied`)
  return parts.join(', ')
}
