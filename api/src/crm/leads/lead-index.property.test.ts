import fc from 'fast-check'
import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { DatabaseHandle } from '../../platform/data/database.js'
import {
  call,
  createTestContext,
  openSecondApi,
  type TestContext,
  type TestOrg,
} from '../../tooling/test-support/test-app.js'
import { searchLeads } from './lead-search.js'

// The in-memory lead index (decision 0061) against the database alone: random creates, updates, merges and deletes
// sent through two api instances, each on its own connection to one database as two processes are, and after each
// step every search's count and pages, answered by the index of each instance, compared with the same search
// answered by SQL. A write through one instance is seen by the other's next search.

let ctx: TestContext
let second: Awaited<ReturnType<typeof openSecondApi>>

beforeAll(async () => {
  ctx = await createTestContext()
  second = await openSecondApi(ctx)
})
afterAll(async () => {
  await second.close()
  await ctx.close()
})

const NAMES = ['Acme', 'Acme Robotics', 'acme', 'Globex', 'Initech', 'Summit Foods', '', null] as const
const CITIES = ['Denver', 'Boston', 'Austin'] as const
/**
 * Contacts' names, some the same but for case, one past U+FFFF (a surrogate pair in JavaScript, which sorts after
 * U+FFFD by code point and before it by code unit) and one without a name.
 */
const CONTACT_NAMES = ['Ann', 'ann', 'Émile', 'zoë', '\u{1D49C}lice', '\uFFFDx', 'Bob', null] as const

const SEARCHES = [
  '*',
  'has:email',
  'not has:email',
  'has:phone -has:email',
  'has:tasks',
  'has:url',
  'has:address or has:opportunities',
  'opportunities>0',
  'contacts>1',
  'contacts:1',
  'emails>=2',
  'tasks<1',
  'status:qualified',
  'status:potential or has:url',
  'status_label:customer has:contacts',
  'custom.Employees>50',
  'custom.Employees<=50 has:phone',
  'not custom.Employees:*',
  'created>2026-03-01',
  'updated<2026-03-01T12:00:00.010Z',
  'name:acme',
  'acme',
  'acme -has:email',
  'robotics or globex',
  'bot',
  'émile or initech',
  'summit -foods',
  'city:denver status:qualified',
  'url:*',
  'description:*',
  'name:*',
  'phone:415',
  'activities>0',
  'contact_name:ann',
  'ac',
  'ac st',
  'zo or ann',
  'é',
  '\u{1D49C}',
  'ë or zz',
  'ac -ro',
  'main st status:qualified',
  '555-10',
  'émile',
  'site3 or summit',
  'sort:created',
  'has:contacts sort:-created',
  'sort:-updated sort:created',
  'sort:status',
  'has:contacts sort:-status',
  'sort:contacts',
  'sort:-opportunities sort:status',
  'sort:-tasks sort:created',
  'sort:custom.Employees',
  'has:email sort:-custom.Employees',
  'sort:name',
  'has:email sort:-name',
  'sort:-name sort:created',
  'name:* sort:name',
  'sort:contact_name',
  'has:contacts sort:-contact_name',
  'sort:email',
  'sort:-phone sort:contact_name',
  'sort:url',
  'sort:opportunity_value',
  'sort:-opportunity_value sort:-status',
  'sort:-last_activity',
  'sort:next_task',
  'has:tasks sort:-next_task sort:-created',
  'has:contacts sort:last_activity sort:status',
]

/** The types an opportunity status is changed to (one that moves the leads' sums of active opportunities). */
const OPPORTUNITY_TYPES = ['active', 'won', 'lost'] as const

/** Status labels a rename picks from, some before and some after the defaults (Potential, Qualified, …) in order. */
const LABELS = ['Aardvark', 'zebra', 'Middle', 'customer care'] as const

type Step =
  | { kind: 'create'; name: number; status: number; url: boolean; city: number | null; employees: number | null }
  | { kind: 'update'; lead: number; status: number | null; name: number | null; employees: number | null }
  | { kind: 'contact'; lead: number; name: number; emails: number; phone: boolean }
  | { kind: 'removeContact'; contact: number }
  | { kind: 'task'; lead: number; date: number | null }
  | { kind: 'completeTask'; task: number }
  | { kind: 'opportunity'; lead: number; status: number; value: number | null }
  | { kind: 'retypeStatus'; status: number; type: number }
  | { kind: 'note'; lead: number }
  | { kind: 'deleteNote'; note: number }
  | { kind: 'delete'; lead: number }
  | { kind: 'merge'; source: number; destination: number }
  | { kind: 'renameStatus'; status: number; label: number }

const index = fc.nat({ max: 50 })
/**
 * A term of one or two characters, searched after a step besides SEARCHES: most are looked up for the first time
 * after writes, so they test the short-term index as kept up to date, not only the matches kept once found.
 */
const SHORT = ['a', 'c', 'o', 'e', 'm', 'n', 'b', 'é', 'ë', 'i', 'x', 's', 't', '.', '1']
const probe = fc.tuple(fc.constantFrom(...SHORT), fc.option(fc.constantFrom(...SHORT))).map(([a, b]) => a + (b ?? ''))
const create = fc.record({
  kind: fc.constant('create' as const),
  name: fc.nat({ max: NAMES.length - 1 }),
  status: fc.nat({ max: 3 }),
  url: fc.boolean(),
  city: fc.option(fc.nat({ max: CITIES.length - 1 })),
  employees: fc.option(fc.integer({ min: 0, max: 100 })),
})
const step: fc.Arbitrary<Step> = fc.oneof(
  { arbitrary: create, weight: 3 },
  fc.record({
    kind: fc.constant('update' as const),
    lead: index,
    status: fc.option(fc.nat({ max: 3 })),
    name: fc.option(fc.nat({ max: NAMES.length - 1 })),
    employees: fc.option(fc.integer({ min: 0, max: 100 })),
  }),
  {
    arbitrary: fc.record({
      kind: fc.constant('contact' as const),
      lead: index,
      name: fc.nat({ max: CONTACT_NAMES.length - 1 }),
      emails: fc.nat({ max: 2 }),
      phone: fc.boolean(),
    }),
    weight: 2,
  },
  fc.record({ kind: fc.constant('removeContact' as const), contact: index }),
  {
    arbitrary: fc.record({ kind: fc.constant('task' as const), lead: index, date: fc.option(fc.nat({ max: 7 })) }),
    weight: 2,
  },
  { arbitrary: fc.record({ kind: fc.constant('completeTask' as const), task: index }), weight: 2 },
  {
    arbitrary: fc.record({
      kind: fc.constant('opportunity' as const),
      lead: index,
      status: fc.nat({ max: 5 }),
      value: fc.option(fc.integer({ min: 0, max: 5000 })),
    }),
    weight: 2,
  },
  { arbitrary: fc.record({ kind: fc.constant('note' as const), lead: index }), weight: 2 },
  fc.record({ kind: fc.constant('deleteNote' as const), note: index }),
  fc.record({
    kind: fc.constant('retypeStatus' as const),
    status: fc.nat({ max: 5 }),
    type: fc.nat({ max: OPPORTUNITY_TYPES.length - 1 }),
  }),
  fc.record({ kind: fc.constant('delete' as const), lead: index }),
  fc.record({ kind: fc.constant('merge' as const), source: index, destination: index }),
  fc.record({
    kind: fc.constant('renameStatus' as const),
    status: fc.nat({ max: 3 }),
    label: fc.nat({ max: LABELS.length - 1 }),
  }),
)

interface World {
  org: TestOrg
  statuses: string[]
  opportunityStatuses: string[]
  employees: string
  leads: string[]
  contacts: string[]
  tasks: string[]
  notes: string[]
}

function pick<T>(items: readonly T[], at: number): T | undefined {
  return items.length === 0 ? undefined : items[at % items.length]
}

async function send(
  app: FastifyInstance,
  world: World,
  method: 'POST' | 'PUT' | 'DELETE',
  path: string,
  body?: object,
) {
  const res = await call(app, world.org.admin.key, method, path, body === undefined ? {} : { body })
  expect(res.statusCode, `${method} ${path}: ${res.body}`).toBe(200)
  return res.json<{ id: string }>()
}

/** A write to a contact or task, which may have gone with its lead (deleted, or merged away): 200 or 404. */
async function sendToPart(app: FastifyInstance, world: World, method: 'PUT' | 'DELETE', path: string, body?: object) {
  const res = await call(app, world.org.admin.key, method, path, body === undefined ? {} : { body })
  expect([200, 404], `${method} ${path}: ${res.body}`).toContain(res.statusCode)
}

async function apply(app: FastifyInstance, world: World, s: Step, n: number): Promise<void> {
  switch (s.kind) {
    case 'create': {
      const body: Record<string, unknown> = {
        name: NAMES[s.name],
        status_id: world.statuses[s.status % world.statuses.length],
        ...(s.url ? { url: `https://${n % 3 === 0 ? 'Site' : 'site'}${String((n * 7) % 10)}.example` } : {}),
        ...(s.city === null ? {} : { addresses: [{ address_1: '1 Main St', city: CITIES[s.city] }] }),
        ...(s.employees === null ? {} : { [`custom.${world.employees}`]: s.employees }),
      }
      world.leads.push((await send(app, world, 'POST', '/lead/', body)).id)
      return
    }
    case 'update': {
      const lead = pick(world.leads, s.lead)
      if (lead === undefined) return
      const body: Record<string, unknown> = {
        ...(s.status === null ? {} : { status_id: world.statuses[s.status % world.statuses.length] }),
        ...(s.name === null ? {} : { name: NAMES[s.name] ?? 'Renamed' }),
        [`custom.${world.employees}`]: s.employees,
      }
      await send(app, world, 'PUT', `/lead/${lead}/`, body)
      return
    }
    case 'contact': {
      const lead = pick(world.leads, s.lead)
      if (lead === undefined) return
      // Emails and phones that sort in another order than the contacts' steps (some the same but for case).
      const emails = Array.from({ length: s.emails }, (_, i) => ({
        email: `${i === 0 && n % 2 === 0 ? 'Ann' : 'ann'}${String((n * 7) % 10)}.${String(i)}@example.com`,
      }))
      const phones = s.phone ? [{ phone: `+1415555${String(1000 + ((n * 37) % 100))}` }] : []
      const name = CONTACT_NAMES[s.name] ?? null
      world.contacts.push(
        (
          await send(app, world, 'POST', '/contact/', {
            lead_id: lead,
            ...(name === null ? {} : { name }),
            emails,
            phones,
          })
        ).id,
      )
      return
    }
    case 'removeContact': {
      const contact = pick(world.contacts, s.contact)
      if (contact === undefined) return
      world.contacts = world.contacts.filter((c) => c !== contact)
      await sendToPart(app, world, 'DELETE', `/contact/${contact}/`)
      return
    }
    case 'task': {
      const lead = pick(world.leads, s.lead)
      if (lead === undefined) return
      // No date, a day, or a time: days 1 to 4 of March, the times at 23:00 (past midnight in zones east of UTC).
      const day = `2026-03-0${String(1 + ((s.date ?? 0) >> 1))}`
      const date = s.date === null ? {} : { date: s.date % 2 === 0 ? day : `${day}T23:00:00+00:00` }
      world.tasks.push((await send(app, world, 'POST', '/task/', { lead_id: lead, text: 'Call', ...date })).id)
      return
    }
    case 'completeTask': {
      const task = pick(world.tasks, s.task)
      if (task !== undefined) await sendToPart(app, world, 'PUT', `/task/${task}/`, { is_complete: true })
      return
    }
    case 'opportunity': {
      const lead = pick(world.leads, s.lead)
      if (lead === undefined) return
      const status_id = world.opportunityStatuses[s.status % world.opportunityStatuses.length]
      await send(app, world, 'POST', '/opportunity/', { lead_id: lead, status_id, value: s.value })
      return
    }
    case 'note': {
      // A note moves the lead's last activity, and no lead.
      const lead = pick(world.leads, s.lead)
      if (lead === undefined) return
      world.notes.push((await send(app, world, 'POST', '/activity/note/', { lead_id: lead, note: 'Called' })).id)
      return
    }
    case 'deleteNote': {
      const note = pick(world.notes, s.note)
      if (note === undefined) return
      world.notes = world.notes.filter((n) => n !== note)
      await sendToPart(app, world, 'DELETE', `/activity/note/${note}/`)
      return
    }
    case 'retypeStatus': {
      // An active status made won or lost (or back) moves its leads' sums without changing any lead.
      const status = world.opportunityStatuses[s.status % world.opportunityStatuses.length] ?? ''
      await send(app, world, 'PUT', `/status/opportunity/${status}/`, { type: OPPORTUNITY_TYPES[s.type] })
      return
    }
    case 'delete': {
      const lead = pick(world.leads, s.lead)
      if (lead === undefined) return
      world.leads = world.leads.filter((l) => l !== lead)
      await send(app, world, 'DELETE', `/lead/${lead}/`)
      return
    }
    case 'renameStatus': {
      // A rename moves the status in a sort by status without changing any lead.
      const status = world.statuses[s.status % world.statuses.length] ?? ''
      await send(app, world, 'PUT', `/status/lead/${status}/`, { label: `${LABELS[s.label] ?? ''} ${String(n)}` })
      return
    }
    case 'merge': {
      const source = pick(world.leads, s.source)
      const destination = pick(world.leads, s.destination)
      if (source === undefined || destination === undefined || source === destination) return
      world.leads = world.leads.filter((l) => l !== source)
      await send(app, world, 'POST', '/lead/merge/', { source, destination })
      return
    }
  }
}

/** Each lead's numbers as its search row holds them, sorted; leads without any left out. */
async function searchRowPhones(database: DatabaseHandle, world: World): Promise<Record<string, string[]>> {
  const rows = await database.db
    .selectFrom('lead_search')
    .select(['lead_id', 'phone'])
    .where('organization_id', '=', world.org.id)
    .where('phone', '<>', '')
    .execute()
  return Object.fromEntries(rows.map((r) => [r.lead_id, r.phone.split('\n').sort()]))
}

/** Each lead's contacts' stored numbers, sorted, read from `contact_phone` itself. */
async function contactPhones(database: DatabaseHandle, world: World): Promise<Record<string, string[]>> {
  const rows = await database.db
    .selectFrom('contact_phone')
    .select(['lead_id', 'phone'])
    .where('organization_id', '=', world.org.id)
    .execute()
  const byLead: Record<string, string[]> = {}
  for (const row of rows) (byLead[row.lead_id] ??= []).push(row.phone.toLowerCase())
  for (const phones of Object.values(byLead)) phones.sort()
  return byLead
}

async function answers(database: DatabaseHandle, world: World, query: string, engine: 'index' | 'sql') {
  const search = {
    dialect: database.dialect,
    organizationId: world.org.id,
    query,
    now: new Date('2026-03-02T00:00:00Z'),
    tzOffsetHours: 0,
    engine,
  }
  const first = await searchLeads(database.db, { ...search, skip: 0, limit: 4 })
  const later = await searchLeads(database.db, { ...search, skip: 3, limit: 5 })
  return {
    total: first.total_results,
    first: first.data.map((l) => l.id),
    later: later.data.map((l) => l.id),
    more: [first.has_more, later.has_more],
  }
}

describe('the in-memory lead index', () => {
  it('answers every search as SQL does, in either process, after any writes through either', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fc.boolean(), create), { minLength: 1, maxLength: 3 }),
        fc.array(fc.tuple(fc.boolean(), step, fc.array(probe, { maxLength: 3 })), { minLength: 1, maxLength: 20 }),
        async (first, rest) => {
          const steps: [boolean, Step, string[]?][] = [...first, ...rest]
          const org = await ctx.createOrg('Index Co')
          const statuses = (await call(ctx.app, org.admin.key, 'GET', '/status/lead/')).json<{
            data: { id: string }[]
          }>()
          const opportunityStatuses = (await call(ctx.app, org.admin.key, 'GET', '/status/opportunity/')).json<{
            data: { id: string }[]
          }>()
          const field = await call(ctx.app, org.admin.key, 'POST', '/custom_field/lead/', {
            body: { name: 'Employees', type: 'number' },
          })
          const world: World = {
            org,
            statuses: statuses.data.map((s) => s.id),
            opportunityStatuses: opportunityStatuses.data.map((s) => s.id),
            employees: field.json<{ id: string }>().id,
            leads: [],
            contacts: [],
            tasks: [],
            notes: [],
          }
          const processes = [
            { app: ctx.app, database: ctx.database },
            { app: second.app, database: second.database },
          ]
          for (const [n, [viaSecond, s, short]] of steps.entries()) {
            await apply(processes[viaSecond ? 1 : 0]?.app ?? ctx.app, world, s, n)
            // `phone:` reads the search rows' copy of the numbers (migration 0051): it must be the contacts' own.
            expect(await searchRowPhones(ctx.database, world), `phones after ${JSON.stringify(s)}`).toEqual(
              await contactPhones(ctx.database, world),
            )
            // Each process's next search sees the write, whichever took it.
            for (const { database } of processes) {
              for (const query of [...SEARCHES, ...(short ?? [])]) {
                const expected = await answers(database, world, query, 'sql')
                expect(await answers(database, world, query, 'index'), `${query} after ${JSON.stringify(s)}`).toEqual(
                  expected,
                )
              }
            }
          }
        },
      ),
      { numRuns: 25 },
    )
  }, 600_000)
})
