import { sql } from 'kysely'
import type {
  ActivityTable,
  ContactTable,
  CustomObjectType,
  CustomValueTable,
  Db,
  LeadAddressTable,
  LeadRow,
} from '../db/database.js'
import { newId } from '../platform/ids.js'
import { formatTimestamp, type Clock } from '../platform/time.js'
import { refreshLeadSearchOf } from '../leads/lead-search-index.js'

// Realistic-looking demo data, generated in bulk: rows are built in memory and inserted a few hundred at a time,
// so 100 000 leads take minutes, not hours. A seeded generator makes every run produce the same kind of data.

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
const INDUSTRIES = ['Software', 'Healthcare', 'Manufacturing', 'Retail', 'Finance', 'Education']
const DECISION_ROLES = ['Champion', 'Economic buyer', 'Technical buyer', 'Gatekeeper']
const NOTES = [
  'Intro call went well; they want a proposal by Friday.',
  'Left a voicemail, will try again next week.',
  'Asked about volume pricing for 50+ seats.',
  'Decision maker is on vacation until the 15th.',
  'Sent the case study they asked for.',
  'They are evaluating two other vendors.',
  'Follow up after their budget meeting.',
]
const DAY_MS = 86_400_000
const MINUTE_MS = 60_000
const BATCH = 500
const INSERT_ROWS = 150

/** A small deterministic generator (mulberry32), so demo data is the same shape on every run. */
function generator(seed: number) {
  let state = seed >>> 0
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  const int = (max: number) => Math.floor(next() * max)
  const pick = <T>(items: readonly T[]): T => {
    const item = items[int(items.length)]
    if (item === undefined) throw new Error('pick from an empty list')
    return item
  }
  return { next, int, pick }
}

async function inChunks<T>(rows: T[], insert: (part: T[]) => Promise<unknown>): Promise<void> {
  for (let i = 0; i < rows.length; i += INSERT_ROWS) await insert(rows.slice(i, i + INSERT_ROWS))
}

interface Batch {
  leads: Omit<LeadRow, 'revision'>[]
  addresses: LeadAddressTable[]
  contacts: ContactTable[]
  emails: {
    contact_id: string
    position: number
    organization_id: string
    lead_id: string
    type: string
    email: string
    value_lower: string
  }[]
  phones: {
    contact_id: string
    position: number
    organization_id: string
    lead_id: string
    type: string
    phone: string
    value_lower: string
  }[]
  values: CustomValueTable[]
  activities: ActivityTable[]
}

async function ensureDemoFields(db: Db, organizationId: string, now: string) {
  const wanted: { objectType: CustomObjectType; name: string; type: string; choices: string | null }[] = [
    { objectType: 'lead', name: 'Industry', type: 'choices', choices: JSON.stringify(INDUSTRIES) },
    { objectType: 'lead', name: 'Employees', type: 'number', choices: null },
    { objectType: 'lead', name: 'Renewal date', type: 'date', choices: null },
    { objectType: 'lead', name: 'Account owner', type: 'user', choices: null },
    { objectType: 'contact', name: 'Decision role', type: 'choices', choices: JSON.stringify(DECISION_ROLES) },
  ]
  const existing = await db
    .selectFrom('custom_field')
    .select(['id', 'name', 'object_type'])
    .where('organization_id', '=', organizationId)
    .execute()
  const ids: Record<string, string> = {}
  for (const field of wanted) {
    const found = existing.find((f) => f.name === field.name && f.object_type === field.objectType)
    if (found !== undefined) {
      ids[field.name] = found.id
      continue
    }
    const id = newId('customField')
    await db
      .insertInto('custom_field')
      .values({
        id,
        organization_id: organizationId,
        object_type: field.objectType,
        name: field.name,
        description: null,
        type: field.type,
        choices: field.choices,
        accepts_multiple_values: 0,
        created_by: null,
        updated_by: null,
        date_created: now,
        date_updated: now,
      })
      .execute()
    ids[field.name] = id
  }
  return {
    industry: ids.Industry ?? '',
    employees: ids.Employees ?? '',
    renewal: ids['Renewal date'] ?? '',
    owner: ids['Account owner'] ?? '',
    decisionRole: ids['Decision role'] ?? '',
  }
}

/** Creates `count` realistic leads with contacts, addresses, custom values, notes and status changes. */
export async function seedDemoLeads(
  db: Db,
  clock: Clock,
  organizationId: string,
  count: number,
  onProgress: (created: number, total: number) => void,
): Promise<number> {
  if (count === 0) return 0
  const nowMs = clock.now().getTime()
  const now = formatTimestamp(new Date(nowMs))
  const rand = generator(count * 7919 + 17)
  const [members, statuses] = await Promise.all([
    db.selectFrom('membership').select('user_id').where('organization_id', '=', organizationId).execute(),
    db
      .selectFrom('lead_status')
      .select(['id', 'label'])
      .where('organization_id', '=', organizationId)
      .orderBy('position')
      .execute(),
  ])
  const userIds = members.map((m) => m.user_id)
  if (userIds.length === 0 || statuses.length === 0)
    throw new Error('The organization needs users and lead statuses first.')
  const fields = await ensureDemoFields(db, organizationId, now)

  let created = 0
  while (created < count) {
    const size = Math.min(BATCH, count - created)
    const batch: Batch = {
      leads: [],
      addresses: [],
      contacts: [],
      emails: [],
      phones: [],
      values: [],
      activities: [],
    }
    for (let n = 0; n < size; n++) addLead(batch, rand, { organizationId, nowMs, userIds, statuses, fields })
    await db.transaction().execute(async (tx) => {
      await inChunks(batch.leads, (part) => tx.insertInto('lead').values(part).execute())
      await inChunks(batch.addresses, (part) => tx.insertInto('lead_address').values(part).execute())
      await inChunks(batch.contacts, (part) => tx.insertInto('contact').values(part).execute())
      await inChunks(batch.emails, (part) => tx.insertInto('contact_email').values(part).execute())
      await inChunks(batch.phones, (part) => tx.insertInto('contact_phone').values(part).execute())
      await inChunks(batch.values, (part) => tx.insertInto('custom_value').values(part).execute())
      await inChunks(batch.activities, (part) => tx.insertInto('activity').values(part).execute())
      // The documents are read back from the rows just written, as for any other write.
      await refreshLeadSearchOf(tx, organizationId, batch.leads)
    })
    created += size
    onProgress(created, count)
  }
  // A bulk load changes the tables' shape: give the query planner fresh statistics.
  await sql`analyze`.execute(db)
  return created
}

interface LeadSetting {
  organizationId: string
  nowMs: number
  userIds: string[]
  statuses: { id: string; label: string }[]
  fields: Awaited<ReturnType<typeof ensureDemoFields>>
}

function addLead(batch: Batch, rand: ReturnType<typeof generator>, setting: LeadSetting): void {
  const { organizationId, nowMs } = setting
  const leadId = newId('lead')
  const name = `${rand.pick(ADJECTIVES)} ${rand.pick(NOUNS)} ${rand.pick(SUFFIXES)}`
  const domain = `${name.split(' ').slice(0, 2).join('').toLowerCase()}${String(rand.int(1000))}.example.com`
  const createdMs = nowMs - (30 + rand.int(335)) * DAY_MS - rand.int(DAY_MS)
  const creator = rand.pick(setting.userIds)
  const [city, state, zipcode, area] = rand.pick(PLACES)
  const timestamps: number[] = [createdMs]
  // Nothing the demo generates may lie in the future, however late in its year a lead was created.
  const activity = (type: string, data: unknown, wantedMs: number, userId: string) => {
    const atMs = Math.min(wantedMs, nowMs)
    timestamps.push(atMs)
    const at = formatTimestamp(new Date(atMs))
    batch.activities.push({
      id: newId('activity'),
      organization_id: organizationId,
      lead_id: leadId,
      contact_id: null,
      user_id: userId,
      type,
      data: JSON.stringify(data),
      created_by: userId,
      updated_by: userId,
      date_created: at,
      date_updated: at,
    })
  }
  activity('Created', { source: 'import', import_id: null }, createdMs, creator)

  let status = setting.statuses[0] ?? { id: '', label: '' }
  const changes = rand.int(3)
  for (let i = 1; i <= changes; i++) {
    const next = rand.pick(setting.statuses)
    if (next.id === status.id) continue
    activity(
      'LeadStatusChange',
      {
        old_status_id: status.id,
        old_status_label: status.label,
        new_status_id: next.id,
        new_status_label: next.label,
      },
      // A minute apart at least, so clamped changes still read in the order they were made.
      Math.min(createdMs + i * (1 + rand.int(20)) * DAY_MS, nowMs - (changes - i) * MINUTE_MS),
      rand.pick(setting.userIds),
    )
    status = next
  }
  for (let i = rand.int(4); i > 0; i--) {
    activity(
      'Note',
      { note: rand.pick(NOTES) },
      createdMs + rand.int(30) * DAY_MS + rand.int(DAY_MS),
      rand.pick(setting.userIds),
    )
  }

  let firstContactId: string | undefined
  for (let c = 1 + rand.int(3); c > 0; c--) {
    const first = rand.pick(FIRST_NAMES)
    const last = rand.pick(LAST_NAMES)
    const contactId = newId('contact')
    firstContactId ??= contactId
    const at = formatTimestamp(new Date(createdMs))
    const contact = { name: `${first} ${last}`, title: rand.pick(TITLES) }
    batch.contacts.push({
      id: contactId,
      organization_id: organizationId,
      lead_id: leadId,
      ...contact,
      created_by: creator,
      updated_by: creator,
      date_created: at,
      date_updated: at,
    })
    const email = `${first}.${last}@${domain}`.toLowerCase()
    batch.emails.push({
      contact_id: contactId,
      position: 0,
      organization_id: organizationId,
      lead_id: leadId,
      type: 'office',
      email,
      value_lower: email,
    })
    const phone = `+1${area}555${String(100 + rand.int(100)).padStart(4, '0')}`
    batch.phones.push({
      contact_id: contactId,
      position: 0,
      organization_id: organizationId,
      lead_id: leadId,
      type: rand.pick(['office', 'mobile', 'direct']),
      phone,
      value_lower: phone,
    })
  }

  const address = {
    address_1: `${String(1 + rand.int(9000))} ${rand.pick(STREETS)}`,
    address_2: null,
    city,
    state,
    zipcode,
    country: 'US',
  }
  batch.addresses.push({ lead_id: leadId, position: 0, organization_id: organizationId, label: 'business', ...address })

  const value = (fieldId: string, text: string, number: number | null, objectId = leadId) => {
    batch.values.push({
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
  if (firstContactId !== undefined && rand.next() < 0.7)
    value(setting.fields.decisionRole, rand.pick(DECISION_ROLES), null, firstContactId)
  const employees = 5 + rand.int(5000)
  value(setting.fields.employees, String(employees), employees)
  if (rand.next() < 0.5)
    value(setting.fields.renewal, formatTimestamp(new Date(nowMs + rand.int(365) * DAY_MS)).slice(0, 10), null)

  const updatedMs = Math.min(nowMs, Math.max(...timestamps))
  const url = `https://${domain}`
  const description = `${rand.pick(INDUSTRIES)} company in ${city}.`
  batch.leads.push({
    id: leadId,
    organization_id: organizationId,
    name,
    description,
    url,
    status_id: status.id,
    created_by: creator,
    updated_by: creator,
    date_created: formatTimestamp(new Date(createdMs)),
    date_updated: formatTimestamp(new Date(updatedMs)),
  })
}
