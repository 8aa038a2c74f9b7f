import type { IdKind } from '@leadline/shared/ids'
import type { Insertable } from 'kysely'
import type {
  ActivityTable,
  ContactEmailTable,
  ContactPhoneTable,
  ContactTable,
  CustomValueTable,
  LeadAddressTable,
  LeadTable,
  OpportunityTable,
  TaskTable,
} from '../../platform/data/database.js'
import { leadSearchRow, phoneTexts, type LeadSearchRow } from '../../crm/leads/lead-search-index.js'
import { formatTimestamp } from '../../platform/data/time.js'
import { flattenRows, type FlatRows } from '../../platform/data/bulk-insert.js'
import { ascendingIds } from './demo-ids.js'
import {
  CHANGES_PER_OPPORTUNITY,
  demoOpportunityMaker,
  MAX_OPPORTUNITIES,
  type DemoOpportunityStatus,
} from './demo-opportunity-rows.js'
import { generator, type Generator } from './demo-random.js'

// Realistic-looking demo leads, generated in memory: every row of a batch of leads, their search rows included,
// ready to be written as they are. A seeded generator gives every run the same kind of data.

const ADJECTIVES = [
  'Blue',
  'Bright',
  'Golden',
  'Summit',
  'Pioneer',
  'Evergreen',
  'Silver',
  'Northern',
  'Rapid',
  'Urban',
  'Coastal',
  'Prime',
  'Atlas',
  'Vertex',
  'Harbor',
  'Granite',
  'Maple',
  'Crescent',
  'Redwood',
  'Beacon',
]
const NOUNS = [
  'Logistics',
  'Analytics',
  'Dental',
  'Robotics',
  'Foods',
  'Energy',
  'Media',
  'Health',
  'Software',
  'Construction',
  'Capital',
  'Labs',
  'Farms',
  'Apparel',
  'Motors',
  'Biotech',
  'Studios',
  'Systems',
  'Partners',
  'Networks',
]
const SUFFIXES = ['Inc', 'LLC', 'Group', 'Co', 'Corp', 'Ltd']
const FIRST_NAMES = [
  'Olivia',
  'Liam',
  'Emma',
  'Noah',
  'Ava',
  'Elijah',
  'Sophia',
  'James',
  'Isabella',
  'Lucas',
  'Mia',
  'Mateo',
  'Amelia',
  'Benjamin',
  'Harper',
  'Ethan',
  'Aisha',
  'Wei',
  'Priya',
  'Diego',
  'Fatima',
  'Kenji',
  'Zoe',
  'Omar',
]
const LAST_NAMES = [
  'Smith',
  'Johnson',
  'Garcia',
  'Nguyen',
  'Patel',
  'Kim',
  'Brown',
  'Martinez',
  'Davis',
  'Lopez',
  'Wilson',
  'Anderson',
  'Thomas',
  'Moore',
  'Chen',
  'Okafor',
  'Schmidt',
  'Rossi',
  'Haddad',
  'Ivanova',
]
const TITLES = [
  'CEO',
  'CTO',
  'VP Sales',
  'Head of Operations',
  'Procurement Manager',
  'Office Manager',
  'Founder',
  'Director of Marketing',
  'CFO',
  'IT Manager',
]
const PLACES = [
  ['New York', 'NY', '10001', '212'],
  ['San Francisco', 'CA', '94105', '415'],
  ['Chicago', 'IL', '60601', '312'],
  ['Boston', 'MA', '02110', '617'],
  ['Seattle', 'WA', '98101', '206'],
  ['Austin', 'TX', '78701', '512'],
  ['Denver', 'CO', '80202', '303'],
  ['Atlanta', 'GA', '30303', '404'],
] as const
const STREETS = ['Main St', 'Oak Ave', 'Market St', 'Pine St', 'Elm St', 'Broadway', 'Cedar Rd', 'Lake Shore Dr']
const NOTES = [
  'Intro call went well; they want a proposal by Friday.',
  'Left a voicemail, will try again next week.',
  'Asked about volume pricing for 50+ seats.',
  'Decision maker is on vacation until the 15th.',
  'Sent the case study they asked for.',
  'They are evaluating two other vendors.',
  'Follow up after their budget meeting.',
]
/**
 * Words the demo's leads are found by (their first and last names, the words of their companies' names, their cities
 * and streets), lower-cased as one types them: a hundred, each held by many leads.
 */
export const DEMO_SEARCH_WORDS = [
  ...FIRST_NAMES,
  ...LAST_NAMES,
  ...ADJECTIVES,
  ...NOUNS,
  ...PLACES.map(([city]) => city),
  ...STREETS,
].map((word) => word.toLowerCase())

export const INDUSTRIES = ['Software', 'Healthcare', 'Manufacturing', 'Retail', 'Finance', 'Education']
export const DECISION_ROLES = ['Champion', 'Economic buyer', 'Technical buyer', 'Gatekeeper']
const DAY_MS = 86_400_000
const MINUTE_MS = 60_000

/** What every demo lead is made with: plain data, so a worker thread can be given it. */
export interface DemoLeadSetting {
  organizationId: string
  nowMs: number
  userIds: string[]
  statuses: { id: string; label: string }[]
  /** The organization's currency, its opportunities' too. */
  currency: string
  /** Pipeline by pipeline in their order, each pipeline's statuses in theirs. */
  opportunityStatuses: DemoOpportunityStatus[]
  fields: { industry: string; employees: string; renewal: string; owner: string; decisionRole: string }
  /** Seeds the generator: the same seed gives the same kind of leads, in the same order. */
  seed: number
  /** How many leads the seed makes in all: their ids, and their rows', are drawn before the first batch. */
  leads: number
  /**
   * SQLite: the rowid of the first lead's search row, which the next leads' follow (lead-search-index.ts,
   * `nextSearchRowid`); undefined on Postgres, where search rows have none.
   */
  firstSearchRowid: number | undefined
}

/** SQLite's leads also record their search row's rowid (migration 0006). */
type DemoLead = Insertable<LeadTable> & { search_rowid?: number }
type DemoSearchRow = { rowid?: number } & LeadSearchRow & { organization_id: string }

/** Every row of some demo leads, as generated: the leads, everything under them and their search rows. */
interface DemoLeadRows {
  leads: DemoLead[]
  addresses: LeadAddressTable[]
  contacts: ContactTable[]
  emails: ContactEmailTable[]
  phones: ContactPhoneTable[]
  values: CustomValueTable[]
  opportunities: Insertable<OpportunityTable>[]
  activities: ActivityTable[]
  tasks: TaskTable[]
  searches: DemoSearchRow[]
}

/** The tables a seed writes to, parents before children. */
export const SEEDED_TABLES = [
  'lead',
  'lead_address',
  'contact',
  'contact_email',
  'contact_phone',
  'custom_value',
  'opportunity',
  'task',
  'activity',
  'lead_search',
] as const

/** Some demo leads, ready to write: each table's rows, flat (a worker hands these over cheaper than objects). */
export interface DemoLeadBatch {
  leads: number
  tables: { table: (typeof SEEDED_TABLES)[number]; rows: FlatRows }[]
}

/** The search texts of the few phone numbers demo leads have, each worked out once. */
function cachedPhoneTexts(): (e164: string) => string[] {
  const known = new Map<string, string[]>()
  return (e164) => {
    let texts = known.get(e164)
    if (texts === undefined) {
      texts = phoneTexts(e164)
      known.set(e164, texts)
    }
    return texts
  }
}

/** The most contacts, status changes and notes a demo lead gets. */
const MAX_CONTACTS = 3
const MAX_CHANGES = 2
const MAX_NOTES = 3
const ACTIVITIES_PER_LEAD = 1 + MAX_CHANGES + MAX_NOTES + MAX_OPPORTUNITIES * CHANGES_PER_OPPORTUNITY

/**
 * `count` new random ids, handed out in ascending order, `slots` at a time. They are as random as the ids the app
 * makes one at a time; taken in order, each table's rows arrive in primary-key order, and SQLite appends them to
 * its key's index (and finds their parent rows next to the last one) instead of inserting each at a random place,
 * which cost about a third of the load's time. A lead takes as many ids as it could need and uses some of them:
 * which ones it leaves unused does not depend on their values, so those it uses are still uniformly random.
 */
function idSlots(kind: IdKind, count: number, slots: number): () => string[] {
  const next = ascendingIds(kind, count * slots)
  return () => Array.from({ length: slots }, () => next())
}

/**
 * The ids of one seed's leads, contacts, opportunities, activities and tasks, each kind ascending: a lead's worth at
 * a time.
 */
interface DemoIds {
  lead: () => string[]
  contacts: () => string[]
  opportunities: () => string[]
  activities: () => string[]
  tasks: () => string[]
}

function demoIds(leads: number): DemoIds {
  return {
    lead: idSlots('lead', leads, 1),
    contacts: idSlots('contact', leads, MAX_CONTACTS),
    opportunities: idSlots('opportunity', leads, MAX_OPPORTUNITIES),
    // Created, then the status changes, then the notes, then the opportunities' status changes.
    activities: idSlots('activity', leads, ACTIVITIES_PER_LEAD),
    // The system's tasks take the ids the app gives them (task-repo.ts).
    tasks: idSlots('notification', leads, MAX_OPPORTUNITIES),
  }
}

/** A source of demo leads: each call makes the next `size` leads, up to `setting.leads`. */
export function demoLeadGenerator(setting: DemoLeadSetting): (size: number) => DemoLeadBatch {
  const rand = generator(setting.seed)
  const textsOfPhone = cachedPhoneTexts()
  const ids = demoIds(setting.leads)
  const addOpportunities = demoOpportunityMaker(setting)
  let made = 0
  return (size) => {
    const rows: DemoLeadRows = {
      leads: [],
      addresses: [],
      contacts: [],
      emails: [],
      phones: [],
      values: [],
      opportunities: [],
      activities: [],
      tasks: [],
      searches: [],
    }
    for (let n = 0; n < size; n++) {
      const searchRowid = setting.firstSearchRowid === undefined ? undefined : setting.firstSearchRowid + made
      addLead(rows, rand, setting, { ids, searchRowid, textsOfPhone, addOpportunities })
      made++
    }
    const byTable = {
      lead: rows.leads,
      lead_address: rows.addresses,
      contact: rows.contacts,
      contact_email: rows.emails,
      contact_phone: rows.phones,
      custom_value: rows.values,
      opportunity: rows.opportunities,
      task: rows.tasks,
      activity: rows.activities,
      lead_search: rows.searches,
    } satisfies Record<(typeof SEEDED_TABLES)[number], object[]>
    return {
      leads: rows.leads.length,
      tables: SEEDED_TABLES.map((table) => ({ table, rows: flattenRows(byTable[table]) })),
    }
  }
}

interface LeadPlan {
  ids: DemoIds
  searchRowid: number | undefined
  textsOfPhone: (e164: string) => string[]
  addOpportunities: ReturnType<typeof demoOpportunityMaker>
}

function addLead(rows: DemoLeadRows, rand: Generator, setting: DemoLeadSetting, plan: LeadPlan): void {
  const { ids, searchRowid, textsOfPhone, addOpportunities } = plan
  const { organizationId, nowMs } = setting
  // Where this lead's rows start in each list of the batch.
  const first = {
    addresses: rows.addresses.length,
    contacts: rows.contacts.length,
    emails: rows.emails.length,
    phones: rows.phones.length,
    values: rows.values.length,
  }
  const [leadId = ''] = ids.lead()
  const [createdId = '', ...activityIds] = ids.activities()
  const changeIds = activityIds.slice(0, MAX_CHANGES)
  const noteIds = activityIds.slice(MAX_CHANGES, MAX_CHANGES + MAX_NOTES)
  const opportunityActivityIds = activityIds.slice(MAX_CHANGES + MAX_NOTES)
  const name = `${rand.pick(ADJECTIVES)} ${rand.pick(NOUNS)} ${rand.pick(SUFFIXES)}`
  const domain = `${name.split(' ').slice(0, 2).join('').toLowerCase()}${String(rand.int(1000))}.example.com`
  const createdMs = nowMs - (30 + rand.int(335)) * DAY_MS - rand.int(DAY_MS)
  const createdAt = formatTimestamp(new Date(createdMs))
  const creator = rand.pick(setting.userIds)
  const [city, state, zipcode, area] = rand.pick(PLACES)
  const timestamps: number[] = [createdMs]
  // Nothing the demo generates may lie in the future, however late in its year a lead was created.
  const activity = (id: string, type: string, data: unknown, wantedMs: number, userId: string) => {
    const atMs = Math.min(wantedMs, nowMs)
    timestamps.push(atMs)
    const at = formatTimestamp(new Date(atMs))
    rows.activities.push({
      id,
      organization_id: organizationId,
      lead_id: leadId,
      contact_id: null,
      user_id: userId,
      type,
      data: JSON.stringify(data),
      opportunity_id: null,
      task_id: null,
      thread_id: null,
      sender_check: null,
      sender_check_reason: null,
      created_by: userId,
      updated_by: userId,
      date_created: at,
      date_updated: at,
    })
  }
  activity(createdId, 'Created', { source: 'import', import_id: null }, createdMs, creator)

  let status = setting.statuses[0] ?? { id: '', label: '' }
  const changes = rand.int(MAX_CHANGES + 1)
  let changedMs = createdMs
  for (let i = 1; i <= changes; i++) {
    const next = rand.pick(setting.statuses)
    // Each change comes days after the one before, so the last one made is the latest, and the lead's status.
    changedMs += (1 + rand.int(20)) * DAY_MS
    const id = changeIds[i - 1] ?? ''
    if (next.id === status.id) continue
    activity(
      id,
      'LeadStatusChange',
      {
        old_status_id: status.id,
        old_status_label: status.label,
        new_status_id: next.id,
        new_status_label: next.label,
      },
      // A minute apart at least, so clamped changes still read in the order they were made.
      Math.min(changedMs, nowMs - (changes - i) * MINUTE_MS),
      rand.pick(setting.userIds),
    )
    status = next
  }
  const notes = rand.int(MAX_NOTES + 1)
  for (let i = 0; i < notes; i++) {
    activity(
      noteIds[i] ?? '',
      'Note',
      { note: rand.pick(NOTES) },
      createdMs + rand.int(30) * DAY_MS + rand.int(DAY_MS),
      rand.pick(setting.userIds),
    )
  }

  // A lead's contacts share their creation time, so they list by position (then id), as one request makes them.
  const contactIds = ids.contacts().slice(0, 1 + rand.int(MAX_CONTACTS))
  for (const [position, contactId] of contactIds.entries()) {
    const first = rand.pick(FIRST_NAMES)
    const last = rand.pick(LAST_NAMES)
    const contact = { name: `${first} ${last}`, title: rand.pick(TITLES) }
    rows.contacts.push({
      id: contactId,
      organization_id: organizationId,
      lead_id: leadId,
      ...contact,
      position,
      created_by: creator,
      updated_by: creator,
      date_created: createdAt,
      date_updated: createdAt,
    })
    const email = `${first}.${last}@${domain}`.toLowerCase()
    rows.emails.push({
      contact_id: contactId,
      position: 0,
      organization_id: organizationId,
      lead_id: leadId,
      type: 'office',
      email,
      value_lower: email,
    })
    const phone = `+1${area}555${String(100 + rand.int(100)).padStart(4, '0')}`
    rows.phones.push({
      contact_id: contactId,
      position: 0,
      organization_id: organizationId,
      lead_id: leadId,
      type: rand.pick(['office', 'mobile', 'direct']),
      phone,
      value_lower: phone,
    })
  }

  // Their status changes are the lead's activities, but the app does not date a lead's update by its
  // opportunities' changes: the lead's own timestamps leave them out.
  addOpportunities(rows, {
    id: leadId,
    createdMs,
    contactIds,
    opportunityIds: ids.opportunities(),
    activityIds: opportunityActivityIds,
    taskIds: ids.tasks(),
  })

  const address = {
    address_1: `${String(1 + rand.int(9000))} ${rand.pick(STREETS)}`,
    address_2: null,
    city,
    state,
    zipcode,
    country: 'US',
  }
  rows.addresses.push({ lead_id: leadId, position: 0, organization_id: organizationId, label: 'business', ...address })

  const value = (fieldId: string, text: string, number: number | null, objectId = leadId) => {
    rows.values.push({
      object_id: objectId,
      field_id: fieldId,
      position: 0,
      organization_id: organizationId,
      lead_id: leadId,
      value_text: text,
      value_number: number,
    })
  }
  value(setting.fields.industry, rand.pick(INDUSTRIES), null)
  value(setting.fields.owner, creator, null)
  // The first contact is usually the one the deal depends on.
  const firstContactId = contactIds[0]
  if (firstContactId !== undefined && rand.next() < 0.7)
    value(setting.fields.decisionRole, rand.pick(DECISION_ROLES), null, firstContactId)
  const employees = 5 + rand.int(5000)
  value(setting.fields.employees, String(employees), employees)
  if (rand.next() < 0.5)
    value(setting.fields.renewal, formatTimestamp(new Date(nowMs + rand.int(365) * DAY_MS)).slice(0, 10), null)

  const updatedMs = Math.min(nowMs, Math.max(...timestamps))
  const lead = {
    id: leadId,
    name,
    description: `${rand.pick(INDUSTRIES)} company in ${city}.`,
    url: `https://${domain}`,
    status_id: status.id,
  }
  rows.leads.push({
    ...lead,
    organization_id: organizationId,
    created_by: creator,
    updated_by: creator,
    date_created: createdAt,
    date_updated: formatTimestamp(new Date(updatedMs)),
    ...(searchRowid === undefined ? {} : { search_rowid: searchRowid }),
  })
  // The search row the write path would build from these rows (lead-search-index.ts), with the next rowid.
  rows.searches.push({
    ...(searchRowid === undefined ? {} : { rowid: searchRowid }),
    organization_id: organizationId,
    ...leadSearchRow(
      {
        lead,
        contacts: rows.contacts.slice(first.contacts),
        emails: rows.emails.slice(first.emails),
        phones: rows.phones.slice(first.phones),
        urls: [],
        addresses: rows.addresses.slice(first.addresses),
        custom: rows.values.slice(first.values),
      },
      textsOfPhone,
    ),
  })
}
