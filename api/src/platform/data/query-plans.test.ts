import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CompiledQuery, sql } from 'kysely'
import { buildApp } from '../../app/app.js'
import { loadConfig } from '../config.js'
import {
  createOrg,
  call,
  createTestDatabase,
  TestClock,
  testDatabaseKind,
  type TestDatabase,
  type TestOrg,
} from '../../tooling/test-support/test-app.js'
import { inboundSecretOf, signedPost } from '../../tooling/test-support/inbound-client.js'
import { accountsForAddresses } from '../../email/accounts/email-account-repo.js'
import { purgeUnboundUploads } from '../../email/attachments/email-attachment-repo.js'
import { openDatabase, type DatabaseHandle } from './database.js'
import { migrateToLatest } from './migrate.js'
import { searchLeads } from '../../crm/leads/lead-search.js'
import { leadIndexes } from '../../crm/leads/lead-index.js'

// The SQL the API runs for a request, explained: per-organization reads must reach their rows through an index
// that starts with organization_id, never by scanning every organization's rows. Postgres is told to avoid
// sequential scans so its plans show which indexes can serve a query even on these small tables.

const captured: CompiledQuery[] = []
let testDb: TestDatabase
let database: DatabaseHandle
let app: Awaited<ReturnType<typeof buildApp>>
let org: TestOrg
const clock = new TestClock()

beforeAll(async () => {
  testDb = await createTestDatabase()
  database = openDatabase(testDb.url, {
    log: (event) => {
      if (event.level === 'query') captured.push(event.query)
    },
  })
  await migrateToLatest(database.db)
  app = await buildApp({ database, config: loadConfig({ DATABASE_URL: testDb.url }), clock, logger: false })
  org = await createOrg(database, clock, 'Planned Inc')
  const other = await createOrg(database, clock, 'Other Inc')
  for (const who of [org, other]) {
    const res = await call(app, who.member.key, 'POST', '/lead/', {
      body: {
        name: 'Planned Co',
        description: 'First contact at the fair',
        url: 'https://planned.example.com',
        addresses: [
          { label: 'business', address_1: '1 Rue de Rivoli', city: 'Paris', state: 'Île-de-France', zipcode: '75001' },
        ],
        contacts: [{ name: 'Pat' }],
      },
    })
    expect(res.statusCode, res.body).toBe(200)
  }
  // A second lead in Paris: a page of one out of two matches is worth walking the sort index for (lead-search.ts).
  const annex = await call(app, org.member.key, 'POST', '/lead/', {
    body: { name: 'Planned Annex', addresses: [{ label: 'business', city: 'Paris' }] },
  })
  expect(annex.statusCode, annex.body).toBe(200)
  const notes = await call(app, org.admin.key, 'POST', '/custom_field/lead/', { body: { name: 'Notes', type: 'text' } })
  expect(notes.statusCode, notes.body).toBe(200)
})

afterAll(async () => {
  await app.close()
  await database.close()
  await testDb.drop()
})

/**
 * `setAside`: Postgres indexes dropped for this explain only, to show what else could serve the query; `noSort`:
 * Postgres avoids sorting if an index gives the order (on these tiny tables it would rather sort).
 */
async function explain(query: CompiledQuery, setAside: string[] = [], noSort = false): Promise<string[]> {
  if (database.dialect === 'sqlite') {
    const plan = await database.db.executeQuery<{ detail: string }>(
      CompiledQuery.raw(`explain query plan ${query.sql}`, [...query.parameters]),
    )
    return plan.rows.map((r) => r.detail)
  }
  // Rolled back, so that the indexes set aside come back.
  return database.db.connection().execute(async (connection) => {
    await sql`begin`.execute(connection)
    try {
      await sql`set local enable_seqscan = off`.execute(connection)
      if (noSort) await sql`set local enable_sort = off`.execute(connection)
      for (const index of setAside) await sql`drop index ${sql.ref(index)}`.execute(connection)
      const plan = await connection.executeQuery<{ 'QUERY PLAN': string }>(
        CompiledQuery.raw(`explain ${query.sql}`, [...query.parameters]),
      )
      return plan.rows.map((r) => r['QUERY PLAN'])
    } finally {
      await sql`rollback`.execute(connection)
    }
  })
}

/**
 * The organization's in-memory lead index forgotten: it keeps the matches of text terms once found (decision 0065),
 * so a search of words searched before would ask the database nothing.
 */
function firstLookup(): void {
  leadIndexes(database.db, database.dialect).forget(org.id)
}

/** The queries a request ran that read `table`. */
async function readsOf(path: string, table: string): Promise<CompiledQuery[]> {
  firstLookup()
  captured.length = 0
  const res = await call(app, org.member.key, 'GET', path)
  expect(res.statusCode, res.body).toBe(200)
  const reads = captured.filter((q) => q.sql.startsWith('select') && new RegExp(`\\b"?${table}"?\\b`).test(q.sql))
  expect(reads.length, `${path} reads ${table}`).toBeGreaterThan(0)
  return reads
}

/** The plans of the queries a request ran that read `table`. */
async function plansFor(path: string, table: string): Promise<string[][]> {
  return Promise.all((await readsOf(path, table)).map((q) => explain(q)))
}

/**
 * The plan nodes that read every row of `table`. SQLite says SCAN (of the table or of a whole index) where an index
 * narrows the read to SEARCH. In Postgres a scan node without an Index Cond or Recheck Cond reads everything.
 */
function fullScans(plan: string[], table: string): string[] {
  if (database.dialect === 'sqlite') return plan.filter((line) => new RegExp(`^SCAN ${table}( |$)`).test(line.trim()))
  const node = new RegExp(`Scan(?: Backward)?(?: using \\S+)? on ${table}( |$)`)
  const indent = (line: string) => line.length - line.trimStart().replace(/^->\s*/, '').length
  return plan.filter((line, i) => {
    if (!node.test(line)) return false
    const below = plan.slice(i + 1)
    const end = below.findIndex((next) => indent(next) <= indent(line))
    const block = end === -1 ? below : below.slice(0, end)
    return !block.some((next) => /^\s*(Index Cond|Recheck Cond):/.test(next))
  })
}

describe('query plans', () => {
  it.each([
    ['/lead/?query=city:pa', 'lead_address'],
    ['/lead/?query=zipcode:75 state:x', 'lead_address'],
    ['/lead/?query=country:fr', 'lead_address'],
    ['/lead/?query=zz', 'lead_search'],
    // A two-letter term is too short for the trigram index: the search compares contact names itself.
    ['/lead/?query=contact_name:pa', 'contact'],
    ['/lead/?query=status:potential', 'lead_status'],
    ['/lead/', 'lead'],
    ['/contact/', 'contact'],
    ['/outcome/', 'outcome'],
    ['/user/', 'phone_number'],
    ['/activity/call/', 'activity'],
    ['/user/availability/', 'inbound_ref'],
    ['/email_account/', 'email_account'],
    ['/me/', 'email_account'],
    ['/activity/emailthread/', 'activity'],
    ['/activity/emailthread/?contact_id=cont_x', 'activity'],
    ['/activity/?thread_emails=true', 'activity'],
    ['/activity/?thread_emails=only&lead_id=lead_x&user_id=user_x', 'activity'],
  ])('%s reads %s through an organization index', async (path, table) => {
    for (const plan of await plansFor(path, table)) expect(fullScans(plan, table), plan.join('\n')).toEqual([])
  })

  /** The plans of the search's own queries (not the rendering of its page), read as a large organization would. */
  async function searchPlans(query: string): Promise<string[][]> {
    firstLookup()
    captured.length = 0
    const res = await call(app, org.member.key, 'GET', '/lead/', { query: { query } })
    expect(res.statusCode, res.body).toBe(200)
    const searches = captured.filter((q) => q.sql.startsWith('select') && /lead_search_fts|\blead_search\b/.test(q.sql))
    expect(searches.length).toBeGreaterThan(0)
    // On these small tables Postgres reads an organization's few search rows through its organization indexes; set
    // aside, as a large organization's rows make it, the trigram indexes must serve the search.
    const plans: string[][] = []
    for (const search of searches)
      plans.push(
        await explain(search, ['lead_search_org_idx', 'lead_search_org_name_idx', 'lead_search_org_status_idx']),
      )
    for (const table of ['lead', 'lead_search', 'contact', 'lead_address', 'custom_value']) {
      for (const plan of plans) expect(fullScans(plan, table), plan.join('\n')).toEqual([])
    }
    return plans
  }

  /** SQLite: FTS5's MATCH (M) with both bounds of the organization's rowid range (> and <). */
  const ftsLookup = /lead_search_fts VIRTUAL TABLE INDEX \d+:M\S*>\S*</

  it.each([
    'planned',
    'name:planned',
    'description:first',
    'url:planned.example',
    'contact_name:pat',
    'city:paris',
    'state:france',
    'zipcode:75001',
    'address:rivoli',
    '"planned co" city:paris',
    'city:paris OR contact_name:pat',
  ])('%s finds text through the trigram index, limited to the organization', async (query) => {
    const lines = (await searchPlans(query)).flat()
    const trigram = database.dialect === 'sqlite' ? ftsLookup : /Bitmap Index Scan on lead_search_\w+_trgm/
    expect(
      lines.filter((l) => trigram.test(l)),
      lines.join('\n'),
    ).not.toEqual([])
  })

  // Postgres may rather test these tiny organizations' leads one by one through their keys; SQLite always asks FTS5.
  it.each(['custom.Notes:hello', '"planned co" city:paris status:potential', '-city:paris has:contacts'])(
    '%s combines the trigram index with other conditions, scanning nothing',
    async (query) => {
      const lines = (await searchPlans(query)).flat()
      if (database.dialect === 'sqlite')
        expect(
          lines.filter((l) => ftsLookup.test(l)),
          lines.join('\n'),
        ).not.toEqual([])
    },
  )

  // SQLite is told to walk; Postgres's planner chooses, and on tables this small it would rather sort: told not to,
  // it must find the order in the index. (Its walks by name or by an ascending date, whose ties go by descending id,
  // need an incremental sort, which it only picks for large tables: not tested here.)
  const walks: [string, string, string[]][] = [
    ['sort:name', 'lead_search_org_name_idx', ['sqlite']],
    ['sort:-name', 'lead_search_org_name_idx', ['sqlite']],
    ['city:paris', 'lead_org_updated', ['sqlite', 'postgres']],
    ['city:paris sort:-created', 'lead_org_created', ['sqlite', 'postgres']],
    ['city:paris sort:created', 'lead_org_created', ['sqlite']],
  ]
  it.each(walks.filter(([, , dialects]) => dialects.includes(testDatabaseKind)))(
    'a small page of %s walks %s… in order',
    async (query, index) => {
      // The page as SQL reads it (the in-memory index answers these searches outside a transaction, decision 0061).
      captured.length = 0
      const search = { dialect: database.dialect, organizationId: org.id, now: new Date(), tzOffsetHours: 0 }
      await searchLeads(database.db, { ...search, query, skip: 0, limit: 1, engine: 'sql' })
      const page = captured.find((q) => /^select lead\.\*/.test(q.sql))
      expect(page, captured.map((q) => q.sql).join('\n')).toBeDefined()
      if (page === undefined) return
      const plan = await explain(page, [], true)
      const walked =
        database.dialect === 'sqlite' ? new RegExp(`USING INDEX ${index}`) : new RegExp(`Index Scan.* using ${index}`)
      expect(
        plan.filter((line) => walked.test(line)),
        plan.join('\n'),
      ).not.toEqual([])
      const sorts = plan.filter((line) => /TEMP B-TREE FOR ORDER BY|^\s*(->\s*)?Sort\b/.test(line))
      expect(sorts, plan.join('\n')).toEqual([])
    },
  )

  it('an incoming text finds the contact with its number and the organization’s number through their indexes', async () => {
    const number = await call(app, org.admin.key, 'POST', '/phone_number/', { body: { number: '+14155550150' } })
    expect(number.statusCode, number.body).toBe(200)
    captured.length = 0
    const res = await signedPost(app, clock, 'sms', {
      organizationId: org.id,
      secret: await inboundSecretOf(app, org),
      body: { id: 'SM-plan', remote_phone: '+14155550151', local_phone: '+14155550150', text: 'Planned' },
    })
    expect(res.statusCode, res.body).toBe(200)
    // The lookup by number goes straight to it, not through every phone of the organization.
    const byNumber =
      database.dialect === 'sqlite' ? /USING (COVERING )?INDEX \S+ \([^)]*\bphone=\?/ : /Index Cond: .*\(phone = /
    for (const table of ['contact_phone', 'phone_number']) {
      const reads = captured.filter((q) => q.sql.startsWith('select') && new RegExp(`\\b"?${table}"?\\b`).test(q.sql))
      expect(reads.length, `an incoming text reads ${table}`).toBeGreaterThan(0)
      const plans = await Promise.all(reads.map((read) => explain(read)))
      for (const plan of plans) expect(fullScans(plan, table), plan.join('\n')).toEqual([])
      if (table === 'contact_phone') expect(plans.flat().join('\n')).toMatch(byNumber)
    }
  })

  it.each([null, 'org'])(
    'incoming mail finds the accounts of an address through its index (organization: %s)',
    async (scope) => {
      // Set by an admin, the account's address is verified at once, so it receives.
      const account = await call(app, org.admin.key, 'POST', '/email_account/', {
        body: {
          user_id: org.member.id,
          email: `plan-${String(scope)}@planned.example`,
          smtp: { host: 'smtp.planned.example', port: 587 },
        },
      })
      expect(account.statusCode, account.body).toBe(200)
      captured.length = 0
      const found = await accountsForAddresses(database.db, scope === null ? null : org.id, [
        `plan-${String(scope)}@planned.example`,
      ])
      expect(found.map((a) => a.id)).toEqual([account.json<{ id: string }>().id])
      const [read] = captured.filter((q) => q.sql.startsWith('select'))
      expect(read).toBeDefined()
      if (read === undefined) return
      const plan = await explain(read)
      for (const table of ['email_account', 'email_account_address'])
        expect(fullScans(plan, table), plan.join('\n')).toEqual([])
    },
  )

  it('the likely duplicates count the leads of shared emails (and on SQLite phones) from their lookup indexes alone', async () => {
    captured.length = 0
    const res = await call(app, org.member.key, 'GET', '/lead/duplicates/')
    expect(res.statusCode, res.body).toBe(200)
    const [clusters] = captured.filter((q) => q.sql.includes('count(distinct lead_id)'))
    expect(clusters).toBeDefined()
    if (clusters === undefined) return
    const plan = (await explain(clusters)).join('\n')
    // Each value's leads come from the index, in order: no table row is read, nothing is sorted to count them. The
    // phones' index holds the lead on SQLite only (migration 0052).
    for (const table of database.dialect === 'sqlite' ? ['contact_email', 'contact_phone'] : ['contact_email']) {
      const covering =
        database.dialect === 'sqlite'
          ? new RegExp(`SEARCH ${table} USING COVERING INDEX ${table}_lookup_idx`)
          : new RegExp(`Index Only Scan using ${table}_lookup_idx on ${table}`)
      expect(plan).toMatch(covering)
    }
    if (database.dialect === 'sqlite') expect(plan).not.toMatch(/TEMP B-TREE FOR count\(DISTINCT\)/)
  })

  it('a sort by last activity reads each lead’s newest call, email, note or SMS from activity_last_idx alone', async () => {
    firstLookup()
    captured.length = 0
    const res = await call(app, org.member.key, 'GET', '/lead/', { query: { query: 'sort:-last_activity' } })
    expect(res.statusCode, res.body).toBe(200)
    const reads = captured.filter((q) => q.sql.includes('max(date_created)'))
    expect(reads.length).toBeGreaterThan(0)
    for (const read of reads) {
      const plan = (await explain(read)).join('\n')
      // The index of those four kinds (migration 0053) holds the lead and the time: no activity row is read.
      expect(plan).toMatch(
        database.dialect === 'sqlite'
          ? /SEARCH activity USING COVERING INDEX activity_last_idx \(organization_id=\? AND lead_id/
          : /Index Only Scan using activity_last_idx on activity/,
      )
    }
  })

  it('the purge of uploads no email took finds them through their own index, never reading every file', async () => {
    captured.length = 0
    await purgeUnboundUploads(database.db, clock)
    const [purge] = captured.filter((q) => q.sql.startsWith('delete'))
    expect(purge).toBeDefined()
    if (purge === undefined) return
    const plan = await explain(purge)
    expect(fullScans(plan, 'email_attachment'), plan.join('\n')).toEqual([])
    expect(plan.join('\n')).toContain('email_attachment_unbound_idx')
  })

  it.each(['/activity/note/', '/activity/?_type=TaskCompleted'])(
    '%s reads the type’s newest from the type index in order, testing no other activity',
    async (path) => {
      for (const read of await readsOf(path, 'activity')) {
        const plan = (await explain(read, [], true)).join('\n')
        // Migration 0054: the type index ends with the id, so one range of it is the list's order.
        expect(plan).toMatch(
          database.dialect === 'sqlite'
            ? /SEARCH activity USING INDEX activity_org_idx \(organization_id=\? AND type=\?\)/
            : /Index Scan Backward using activity_org_idx on activity/,
        )
        expect(plan).not.toMatch(/TEMP B-TREE|Sort\b/)
      }
    },
  )

  it.each([
    ['/activity/?contact_id=cont_planned', /activity_org_contact_idx/],
    ['/activity/?task_id=task_planned', /activity_org_task_idx/],
  ])('%s reads the activities of that one contact or task from its index', async (path, index) => {
    // Migration 0055: not the organization's activities walked by date and each one tested.
    for (const read of await readsOf(path, 'activity')) {
      const plan = (await explain(read)).join('\n')
      expect(plan).toMatch(index)
      expect(fullScans(plan.split('\n'), 'activity'), plan).toEqual([])
    }
  })

  it('a list of several types pages their keys from the type index, each type’s newest only', async () => {
    const reads = await readsOf('/activity/?_type__in=Note,TaskCompleted,Created', 'activity')
    const keys = reads.find((q) => q.sql.includes('union all'))
    expect(keys, reads.map((q) => q.sql).join('\n')).toBeDefined()
    if (keys === undefined) return
    const plan = (await explain(keys, [], true)).join('\n')
    const parts =
      database.dialect === 'sqlite'
        ? /SEARCH activity USING COVERING INDEX activity_org_idx \(organization_id=\? AND type=\?\)/g
        : /Index Only Scan Backward using activity_org_idx on activity/g
    expect(plan.match(parts), plan).toHaveLength(3)
    expect(fullScans(plan.split('\n'), 'activity'), plan).toEqual([])
  })

  it.each(['/activity/', '/activity/?user_id=USER'])('%s walks an index in order: no scan, no sort', async (path) => {
    for (const plan of await plansFor(path.replace('USER', org.admin.id), 'activity')) {
      expect(fullScans(plan, 'activity'), plan.join('\n')).toEqual([])
      const sorts = plan.filter((line) => /TEMP B-TREE FOR ORDER BY|^\s*(->\s*)?Sort\b/.test(line))
      expect(sorts, plan.join('\n')).toEqual([])
    }
  })
})

describe('the opportunity list’s orders', () => {
  let pipelineId = ''
  /** What the board asks for its first column: the first status's 20 newest (migration 0057). */
  let boardColumn = ''

  beforeAll(async () => {
    const res = await call(app, org.member.key, 'GET', '/pipeline/')
    expect(res.statusCode, res.body).toBe(200)
    const first = res.json<{ data: { id: string; statuses: { id: string }[] }[] }>().data[0]
    const status = first?.statuses[0]
    if (first === undefined || status === undefined) throw new Error('the organization has no pipeline with statuses')
    pipelineId = first.id
    boardColumn = `/opportunity/?status_id=${status.id}&_limit=20&_skip=0`
  })

  /** The plan of the query that reads a page of the list (the one that selects its rows in order). */
  async function pagePlan(path: string): Promise<string> {
    const reads = await readsOf(path, 'opportunity')
    const page = reads.find((q) => q.sql.includes('"group_key"') && q.sql.includes('order by'))
    expect(page, reads.map((q) => q.sql).join('\n')).toBeDefined()
    return page === undefined ? '' : (await explain(page, [], true)).join('\n')
  }

  // Migration 0056: each order from an index, on Postgres the columns that may be null from one a direction.
  const orders = [
    ['-value', 'opportunity_org_value_idx', 'opportunity_org_value_idx'],
    ['value', 'opportunity_org_value_idx', 'opportunity_org_value_asc_idx'],
    ['confidence', 'opportunity_org_confidence_idx', 'opportunity_org_confidence_idx'],
    ['-confidence', 'opportunity_org_confidence_idx', 'opportunity_org_confidence_idx'],
    ['date_updated', 'opportunity_org_updated_idx', 'opportunity_org_updated_idx'],
    ['-date_won', 'opportunity_org_won_idx', 'opportunity_org_won_idx'],
    ['date_won', 'opportunity_org_won_idx', 'opportunity_org_won_asc_idx'],
    ['-date_created', 'opportunity_org_created_idx', 'opportunity_org_created_idx'],
  ].map(([order, sqlite, postgres]) => [order, testDatabaseKind === 'sqlite' ? sqlite : postgres] as const)

  it.each(orders)('_order_by=%s walks %s in order, within a pipeline too: no sort', async (order, index) => {
    for (const filter of ['', `&pipeline_id=${pipelineId}`]) {
      const plan = await pagePlan(`/opportunity/?_order_by=${order}&_limit=5${filter}`)
      expect(plan).toMatch(
        database.dialect === 'sqlite'
          ? new RegExp(`SEARCH opportunity USING INDEX ${index} \\(organization_id=\\?\\)`)
          : new RegExp(`Index Scan(?: Backward)? using ${index} on opportunity`),
      )
      expect(plan).not.toMatch(/TEMP B-TREE FOR ORDER BY|Sort\b/)
      expect(fullScans(plan.split('\n'), 'opportunity'), plan).toEqual([])
    }
  })

  // Migration 0057: the board's column, one status newest first, reads its page from the status's index in order.
  it('a board column (one status, newest first) walks opportunity_org_status_idx in order: no sort', async () => {
    const plan = await pagePlan(boardColumn)
    expect(plan).toMatch(
      database.dialect === 'sqlite'
        ? /SEARCH opportunity USING INDEX opportunity_org_status_idx \(organization_id=\? AND status_id=\?\)/
        : /Index Scan(?: Backward)? using opportunity_org_status_idx on opportunity/,
    )
    expect(plan).not.toMatch(/TEMP B-TREE FOR ORDER BY|Sort\b/)
  })

  // A board column's sums add up the status's rollup rows; walking the organization's rollup by day (which a period's
  // groups need) read every row of the organization: 27 ms against 2 at a million, where the planner then takes the
  // key that starts with the status. A small test organization's statistics may choose either index, so the test
  // holds the query's shape: no grouping by day, no sort.
  it('a board column’s sums add up its rollup rows directly, without grouping the organization’s by day', async () => {
    const reads = await readsOf(boardColumn, 'opportunity_rollup')
    const sums = reads.find((q) => q.sql.includes('"total_results"'))
    expect(sums, reads.map((q) => q.sql).join('\n')).toBeDefined()
    expect(sums?.sql).not.toMatch(/group by/i)
    const plan = sums === undefined ? [] : await explain(sums)
    expect(plan.join('\n')).not.toMatch(/TEMP B-TREE|Sort\b|HashAggregate|GroupAggregate/)
    expect(fullScans(plan, 'opportunity_rollup'), plan.join('\n')).toEqual([])
  })

  // SQLite's planner alone: Postgres plans joins its own way, whatever the query's join says.
  it.each(testDatabaseKind === 'sqlite' ? ['SQLite'] : [])(
    'within one of two pipelines, with a large organization’s statistics, %s walks the order’s index',
    async () => {
      // Joined the other way round, SQLite's statistics (with their samples) made it start from the pipeline's
      // statuses and read every opportunity of each through the status index, then sort them all: 1.5 s a page at a
      // million. Two pipelines and two hundred opportunities analyzed are enough for it to choose that.
      const second = await call(app, org.admin.key, 'POST', '/pipeline/', {
        body: {
          name: 'Renewals',
          statuses: [
            { label: 'Due' },
            { label: 'Quoted' },
            { label: 'Renewed', type: 'won' },
            { label: 'Gone', type: 'lost' },
          ],
        },
      })
      expect(second.statusCode, second.body).toBe(201)
      const added = second.json<{ id: string; statuses: { id: string }[] }>()
      const [lead] = (
        await sql<{ id: string }>`select id from lead where organization_id = ${org.id} limit 1`.execute(database.db)
      ).rows
      const statuses = (
        await sql<{ id: string }>`select id from opportunity_status where organization_id = ${org.id}`.execute(
          database.db,
        )
      ).rows
      if (lead === undefined) throw new Error('the organization has no lead')
      const ids = Array.from({ length: 200 }, (_, i) => `oppo_planned${String(i).padStart(4, '0')}`)
      const tables = ['opportunity', 'opportunity_status']
      try {
        for (const [i, id] of ids.entries()) {
          const at = new Date(Date.UTC(2026, 0, 1) + i * 60_000).toISOString()
          const status = statuses[i % statuses.length]?.id ?? ''
          await sql`insert into opportunity (id, organization_id, lead_id, status_id, value, value_period,
            value_currency, confidence, note, date_created, date_updated)
            values (${id}, ${org.id}, ${lead.id}, ${status}, ${i * 100}, 'one_time', 'USD', ${i % 100}, '', ${at},
              ${at})`.execute(database.db)
        }
        for (const table of tables) await sql`analyze ${sql.table(table)}`.execute(database.db)
        for (const [order, index] of [
          ['-value', 'opportunity_org_value_idx'],
          ['-date_created', 'opportunity_org_created_idx'],
        ]) {
          const plan = await pagePlan(`/opportunity/?_order_by=${order}&_limit=50&pipeline_id=${pipelineId}`)
          expect(plan).toMatch(new RegExp(`SEARCH opportunity USING INDEX ${index} \\(organization_id=\\?\\)`))
          expect(plan).not.toMatch(/TEMP B-TREE FOR ORDER BY/)
        }
      } finally {
        await sql`delete from opportunity where id in (${sql.join(ids)})`.execute(database.db)
        // The organization as the other tests found it: one pipeline (a status answers 200, a pipeline 204).
        for (const status of added.statuses) {
          const removed = await call(app, org.admin.key, 'DELETE', `/status/opportunity/${status.id}/`)
          expect(removed.statusCode, removed.body).toBe(200)
        }
        const removed = await call(app, org.admin.key, 'DELETE', `/pipeline/${added.id}/`)
        expect(removed.statusCode, removed.body).toBe(204)
        for (const stats of ['sqlite_stat1', 'sqlite_stat4']) {
          await sql`delete from ${sql.table(stats)} where tbl in (${sql.join(tables)})`.execute(database.db)
        }
        // Documented: the planner reads the statistics again.
        await sql`analyze sqlite_schema`.execute(database.db)
      }
    },
  )
})
