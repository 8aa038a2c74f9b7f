import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { LAST_ACTIVITY_TYPES } from '@leadline/shared/lead-summary-schema'
import { sql } from 'kysely'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { Db } from '../../platform/data/database.js'
import { leadChangePosition, leadChangesSince } from '../../crm/leads/lead-changes.js'
import { leadSearchRowids, refreshLeadSearchOf, SEARCH_COLUMNS } from '../../crm/leads/lead-search-index.js'
import { call, createTestContext, createTestDatabase, type TestContext } from '../test-support/test-app.js'
import { openDatabase } from '../../platform/data/database.js'
import { inThreadSource } from './demo-lead-source.js'
import { seedDemoLeads } from './demo-leads.js'

// The seeder writes rows in bulk, builds search documents from what it generated and sets indexes and triggers
// aside while it loads; what it leaves behind must be what the API would have written lead by lead.

let ctx: TestContext

beforeEach(async () => {
  ctx = await createTestContext()
})
afterEach(async () => {
  await ctx.close()
})

async function countOf(db: Db, table: 'lead' | 'lead_search' | 'activity', organizationId: string) {
  const row = await db
    .selectFrom(table)
    .select((eb) => eb.fn.countAll().as('n'))
    .where('organization_id', '=', organizationId)
    .executeTakeFirstOrThrow()
  return Number(row.n)
}

/** The indexes, triggers and (Postgres) foreign keys of the tables a seed writes to, as created. */
async function schemaObjects(db: Db): Promise<string[]> {
  const tables = [
    'lead',
    'lead_address',
    'contact',
    'contact_email',
    'contact_phone',
    'custom_value',
    'opportunity',
    'activity',
  ]
  const query =
    ctx.database.dialect === 'sqlite'
      ? sql<{ name: string }>`select type || ' ' || name || ' ' || coalesce(sql, '') as name from sqlite_master
          where type in ('index', 'trigger') and tbl_name in (${sql.join([...tables, 'lead_search'])})`
      : sql<{ name: string }>`select 'index ' || indexname || ' ' || indexdef as name from pg_indexes
          where schemaname = current_schema() and tablename in (${sql.join([...tables, 'lead_search'])})
          union all
          select 'trigger ' || g.tgname || ' ' || pg_get_triggerdef(g.oid) from pg_trigger g
          join pg_class c on c.oid = g.tgrelid
          where c.relname in (${sql.join([...tables, 'lead_search'])}) and not g.tgisinternal
          union all
          select 'constraint ' || k.conname || ' ' || pg_get_constraintdef(k.oid) from pg_constraint k
          join pg_class c on c.oid = k.conrelid where c.relname in (${sql.join([...tables, 'lead_search'])})`
  return (await query.execute(db)).rows.map((r) => r.name).sort()
}

/** How many stored documents differ from what the write path builds from the stored rows. */
async function staleDocuments(db: Db, organizationId: string): Promise<number> {
  const leads = await db
    .selectFrom('lead')
    .select(['id', 'name', 'description', 'url', 'status_id'])
    .where('organization_id', '=', organizationId)
    .execute()
  return db.transaction().execute((tx) => refreshLeadSearchOf(tx, organizationId, leads))
}

/** An organization's search rows, but their SQLite rowids, by lead id. */
async function searchRows(db: Db, organizationId: string) {
  return db
    .selectFrom('lead_search')
    .select(['lead_id', 'organization_id', 'status_id', ...SEARCH_COLUMNS])
    .where('organization_id', '=', organizationId)
    .orderBy('lead_id')
    .execute()
}

/** SQLite: FTS5 compares its index with the search rows it indexes, and fails on any difference. */
async function checkTrigramIndex(db: Db): Promise<void> {
  if (ctx.database.dialect === 'sqlite')
    await sql`insert into lead_search_fts (lead_search_fts, rank) values ('integrity-check', 1)`.execute(db)
}

describe('seedDemoLeads', () => {
  it('writes the search rows the write path builds from its rows, indexed, with the rowids its leads record', async () => {
    const db = ctx.database.db
    await seedDemoLeads(db, ctx.clock, ctx.org.id, 60, { batchSize: 25, source: inThreadSource })
    const seeded = await searchRows(db, ctx.org.id)
    expect(seeded).toHaveLength(60)
    await checkTrigramIndex(db)
    if (ctx.database.dialect === 'sqlite') {
      const range = await leadSearchRowids(db, ctx.org.id)
      const rowids = await sql<{ rowid: number; search_rowid: number | null }>`select s.rowid, l.search_rowid
        from lead_search s join lead l on l.id = s.lead_id where s.organization_id = ${ctx.org.id}`.execute(db)
      for (const row of rowids.rows) {
        expect(row.search_rowid).toBe(row.rowid)
        expect(row.rowid).toBeGreaterThan(range?.first ?? Number.POSITIVE_INFINITY)
        expect(row.rowid).toBeLessThanOrEqual(range?.last ?? 0)
      }
      // The trigram index is left with its own setting for what it holds in memory (FTS5's default, 1 MiB).
      const hashsize = await sql<{ v: number }>`select v from lead_search_fts_config where k = 'hashsize'`.execute(db)
      expect(hashsize.rows.map((r) => r.v)).toEqual([1024 * 1024])
    }

    // The same leads' rows, as every lead write builds them from what is stored.
    const leads = await db
      .selectFrom('lead')
      .select(['id', 'name', 'description', 'url', 'status_id'])
      .where('organization_id', '=', ctx.org.id)
      .execute()
    await db.transaction().execute(async (tx) => {
      await tx.deleteFrom('lead_search').where('organization_id', '=', ctx.org.id).execute()
      expect(await refreshLeadSearchOf(tx, ctx.org.id, leads)).toBe(60)
    })
    expect(await searchRows(db, ctx.org.id)).toEqual(seeded)
    await checkTrigramIndex(db)
  })

  it('writes every lead with its contacts, values, activities and a current search document, a batch at a time', async () => {
    const db = ctx.database.db
    const reports: number[] = []
    await seedDemoLeads(db, ctx.clock, ctx.org.id, 250, {
      batchSize: 100,
      source: inThreadSource,
      onProgress: (done, total) => {
        expect(total).toBe(250)
        reports.push(done)
      },
    })
    expect(reports).toEqual([100, 200, 250])
    expect(await countOf(db, 'lead', ctx.org.id)).toBe(250)
    expect(await countOf(db, 'lead_search', ctx.org.id)).toBe(250)
    expect(await countOf(db, 'lead', ctx.other.id)).toBe(0)
    expect(await staleDocuments(db, ctx.org.id)).toBe(0)

    const perLead = await sql<{
      id: string
      status_id: string
      date_created: string
      date_updated: string
      addresses: number | string
      contacts: number | string
      emails: number | string
      phones: number | string
      created: number | string
      created_at: string
      last_activity: string
    }>`select l.id, l.status_id, l.date_created, l.date_updated,
        (select count(*) from lead_address a where a.lead_id = l.id) as addresses,
        (select count(*) from contact c where c.lead_id = l.id) as contacts,
        (select count(*) from contact_email e where e.lead_id = l.id) as emails,
        (select count(*) from contact_phone p where p.lead_id = l.id) as phones,
        (select count(*) from activity v where v.lead_id = l.id and v.type = 'Created') as created,
        (select min(v.date_created) from activity v where v.lead_id = l.id and v.type = 'Created') as created_at,
        (select max(v.date_created) from activity v
          where v.lead_id = l.id and v.type <> 'OpportunityStatusChange') as last_activity
      from lead l where l.organization_id = ${ctx.org.id}`.execute(db)
    for (const lead of perLead.rows) {
      expect(Number(lead.addresses), lead.id).toBe(1)
      expect(Number(lead.contacts), lead.id).toBeGreaterThanOrEqual(1)
      expect(Number(lead.contacts), lead.id).toBeLessThanOrEqual(3)
      expect(Number(lead.emails), lead.id).toBe(Number(lead.contacts))
      expect(Number(lead.phones), lead.id).toBe(Number(lead.contacts))
      expect(Number(lead.created), lead.id).toBe(1)
      expect(lead.created_at, lead.id).toBe(lead.date_created)
      // A lead was last updated by its latest activity but its opportunities' (the app does not date those).
      expect(lead.date_updated, lead.id).toBe(lead.last_activity)
    }

    // A lead's status is where its last status change took it; a lead that never changed has the first status.
    const changes = await db
      .selectFrom('activity')
      .select(['lead_id', 'data', 'date_created', 'id'])
      .where('organization_id', '=', ctx.org.id)
      .where('type', '=', 'LeadStatusChange')
      .orderBy('date_created')
      .orderBy('id')
      .execute()
    expect(changes.length).toBeGreaterThan(50)
    const lastChange = new Map<string, string>()
    for (const change of changes) lastChange.set(change.lead_id, String(JSON.parse(change.data).new_status_id))
    const firstStatus = await db
      .selectFrom('lead_status')
      .select('id')
      .where('organization_id', '=', ctx.org.id)
      .orderBy('position')
      .executeTakeFirstOrThrow()
    for (const lead of perLead.rows) {
      expect(lead.status_id, lead.id).toBe(lastChange.get(lead.id) ?? firstStatus.id)
    }
  })

  it('serves what it seeded through the API: lists, lead reads and free-text search', async () => {
    await seedDemoLeads(ctx.database.db, ctx.clock, ctx.org.id, 120, { batchSize: 50, source: inThreadSource })
    const page = await call(ctx.app, ctx.org.member.key, 'GET', '/lead/', { query: { _limit: '200' } })
    expect(page.statusCode, page.body).toBe(200)
    expect(page.json().total_results).toBe(120)
    const lead = page.json().data[0]
    const contact = lead.contacts[0]
    expect(contact.emails[0].email).toMatch(/@/)
    expect(contact.phones[0].phone).toMatch(/^\+1\d{10}$/)
    const byId = await call(ctx.app, ctx.org.member.key, 'GET', `/lead/${String(lead.id)}/`)
    expect(byId.statusCode, byId.body).toBe(200)
    expect(byId.json()).toMatchObject({ id: lead.id, name: lead.name, contacts: lead.contacts })
    for (const query of [
      `"${String(contact.name)}"`,
      String(contact.emails[0].email),
      String(lead.addresses[0].city),
    ]) {
      const found = await call(ctx.app, ctx.org.member.key, 'GET', '/lead/', { query: { query, _limit: '200' } })
      expect(found.statusCode, found.body).toBe(200)
      expect(
        found.json().data.map((l: { id: string }) => l.id),
        query,
      ).toContain(lead.id)
    }
  })

  it('builds the indexes and revision triggers it set aside again, and they work', async () => {
    const db = ctx.database.db
    const before = await schemaObjects(db)
    expect(before.some((name) => name.includes('_revision_'))).toBe(true)
    // Migration 0009's, for opportunities, among them.
    expect(before.filter((name) => name.startsWith('trigger opportunity_revision_')).length).toBeGreaterThan(0)
    const position = await leadChangePosition(db, ctx.database.dialect, ctx.org.id)
    await seedDemoLeads(db, ctx.clock, ctx.org.id, 30, { source: inThreadSource })
    expect(await schemaObjects(db)).toEqual(before)
    // The seeded leads are in the feed of changes (on SQLite, one tick of the clock after the load).
    const seededIds = await db.selectFrom('lead').select('id').where('organization_id', '=', ctx.org.id).execute()
    const fed = await leadChangesSince(db, ctx.org.id, position)
    expect(new Set(fed.changed)).toEqual(new Set(seededIds.map((l) => l.id)))
    // And those with a call, email, note or text in the feed of leads whose activities changed, as its triggers
    // (set aside too) would have marked them.
    const withMarked = await db
      .selectFrom('activity')
      .select('lead_id')
      .distinct()
      .where('organization_id', '=', ctx.org.id)
      .where('type', 'in', [...LAST_ACTIVITY_TYPES])
      .execute()
    expect(withMarked.length).toBeGreaterThan(0)
    expect(new Set(fed.active)).toEqual(new Set(withMarked.map((a) => a.lead_id)))
    const opportunity = await db
      .selectFrom('opportunity')
      .select(['id', 'lead_id'])
      .where('organization_id', '=', ctx.org.id)
      .executeTakeFirstOrThrow()
    const revisionOf = async (leadId: string) =>
      (await db.selectFrom('lead').select('revision').where('id', '=', leadId).executeTakeFirstOrThrow()).revision
    const seededWithOpportunity = await revisionOf(opportunity.lead_id)
    await db.updateTable('opportunity').set({ note: 'Signed today' }).where('id', '=', opportunity.id).execute()
    expect(await revisionOf(opportunity.lead_id)).toBe(seededWithOpportunity + 1)
    const contact = await db
      .selectFrom('contact')
      .select(['id', 'lead_id'])
      .where('organization_id', '=', ctx.org.id)
      .executeTakeFirstOrThrow()
    const revision = async () =>
      (await db.selectFrom('lead').select('revision').where('id', '=', contact.lead_id).executeTakeFirstOrThrow())
        .revision
    const seeded = await revision()
    await db.updateTable('contact').set({ title: 'Chief Tester' }).where('id', '=', contact.id).execute()
    expect(await revision()).toBe(seeded + 1)
  })

  it("adds the opportunity rollup up again after a load that set its triggers aside, beside another's", async () => {
    const db = ctx.database.db
    const before = await schemaObjects(db)
    await seedDemoLeads(db, ctx.clock, ctx.other.id, 20, { source: inThreadSource })
    await seedDemoLeads(db, ctx.clock, ctx.org.id, 60, { source: inThreadSource })
    expect(await schemaObjects(db)).toEqual(before)
    // What each opportunity adds to its row, summed here rather than by SQL (migration 0010's rules).
    const opportunities = await db
      .selectFrom('opportunity')
      .select(['organization_id', 'status_id', 'user_id', 'value_period', 'date_won', 'value', 'confidence'])
      .execute()
    expect(new Set(opportunities.map((o) => o.organization_id))).toEqual(new Set([ctx.org.id, ctx.other.id]))
    const expected = new Map<string, number[]>()
    for (const o of opportunities) {
      const value = Number(o.value ?? 0)
      const annualized = o.value_period === 'monthly' ? value * 12 : value
      const key = [o.organization_id, o.status_id, o.user_id ?? '', o.value_period, o.date_won ?? ''].join(' ')
      const sums = expected.get(key) ?? [0, 0, 0, 0, 0]
      const adds = [
        1,
        value,
        annualized,
        Math.round((value * o.confidence) / 100),
        Math.round((annualized * o.confidence) / 100),
      ]
      expected.set(
        key,
        sums.map((sum, at) => sum + (adds[at] ?? 0)),
      )
    }
    const rollup = await db.selectFrom('opportunity_rollup').selectAll().execute()
    const stored = new Map(
      rollup.map((r) => [
        [r.organization_id, r.status_id, r.user_id, r.value_period, r.date_won].join(' '),
        [r.opportunities, r.value, r.annualized, r.expected, r.annualized_expected].map(Number),
      ]),
    )
    expect(stored).toEqual(expected)
    // And its triggers are back: an opportunity deleted counts at once.
    const count = async () =>
      Number(
        (
          await db
            .selectFrom('opportunity_rollup')
            .select((eb) => eb.fn.sum<number | string>('opportunities').as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      )
    const total = await count()
    const one = await db.selectFrom('opportunity').select('id').limit(1).executeTakeFirstOrThrow()
    await db.deleteFrom('opportunity').where('id', '=', one.id).execute()
    expect(await count()).toBe(total - 1)
  })

  it("counts every organization's leads again after a load that set the counting triggers aside", async () => {
    const db = ctx.database.db
    await seedDemoLeads(db, ctx.clock, ctx.other.id, 10, { source: inThreadSource })
    await seedDemoLeads(db, ctx.clock, ctx.org.id, 40, { source: inThreadSource })
    const counts = await db
      .selectFrom('organization_lead_count')
      .select(['organization_id', 'leads'])
      .where('organization_id', 'in', [ctx.org.id, ctx.other.id])
      .execute()
    expect(Object.fromEntries(counts.map((c) => [c.organization_id, c.leads]))).toEqual({
      [ctx.org.id]: 40,
      [ctx.other.id]: 10,
    })
  })

  it('keeps the indexes in place when the database holds more leads than it adds', async () => {
    const db = ctx.database.db
    await seedDemoLeads(db, ctx.clock, ctx.org.id, 40, { source: inThreadSource })
    const before = await schemaObjects(db)
    let finished = false
    await seedDemoLeads(db, ctx.clock, ctx.other.id, 10, {
      source: inThreadSource,
      onFinishing: () => {
        finished = true
      },
    })
    expect(finished).toBe(true)
    expect(await schemaObjects(db)).toEqual(before)
    expect(await countOf(db, 'lead', ctx.org.id)).toBe(40)
    expect(await countOf(db, 'lead', ctx.other.id)).toBe(10)
    expect(await staleDocuments(db, ctx.other.id)).toBe(0)
  })

  it('fails, and leaves nothing behind, when a row it writes breaks a foreign key', async () => {
    const db = ctx.database.db
    const before = await schemaObjects(db)
    const orphaning: typeof inThreadSource = (setting) => {
      const real = inThreadSource(setting)
      return {
        next: async (size) => {
          const batch = await real.next(size)
          const contacts = batch.tables.find((t) => t.table === 'contact')?.rows
          const at = contacts?.columns.indexOf('lead_id') ?? -1
          if (contacts !== undefined && at >= 0) contacts.values[at] = 'lead_nowhere'
          return batch
        },
        close: () => real.close(),
      }
    }
    await expect(seedDemoLeads(db, ctx.clock, ctx.org.id, 30, { source: orphaning })).rejects.toThrow(/FOREIGN KEY/i)
    expect(await countOf(db, 'lead', ctx.org.id)).toBe(0)
    expect(await countOf(db, 'lead_search', ctx.org.id)).toBe(0)
    expect(await schemaObjects(db)).toEqual(before)
  })

  it('leaves nothing behind, and every index and trigger in place, when it fails half-way', async () => {
    const db = ctx.database.db
    const before = await schemaObjects(db)
    let batches = 0
    const failing: typeof inThreadSource = (setting) => {
      const real = inThreadSource(setting)
      return {
        next: (size) => (++batches === 3 ? Promise.reject(new Error('the generator broke')) : real.next(size)),
        close: () => real.close(),
      }
    }
    await expect(seedDemoLeads(db, ctx.clock, ctx.org.id, 100, { batchSize: 20, source: failing })).rejects.toThrow(
      'the generator broke',
    )
    expect(await countOf(db, 'lead', ctx.org.id)).toBe(0)
    expect(await countOf(db, 'activity', ctx.org.id)).toBe(0)
    const fields = await db.selectFrom('custom_field').select('id').where('organization_id', '=', ctx.org.id).execute()
    expect(fields).toEqual([])
    expect(await schemaObjects(db)).toEqual(before)
  })
})

describe('leadline seed demo, generating on a worker thread', () => {
  const cliPath = fileURLToPath(new URL('../../../dist/app/cli/cli.js', import.meta.url))

  it('writes the same kind of leads and opportunities, with current search documents, and progress only on stderr', async () => {
    if (!existsSync(cliPath)) throw new Error(`${cliPath} does not exist: build the api first`)
    const target = await createTestDatabase()
    try {
      const env = { ...process.env }
      delete env.DATABASE_URL
      const child = spawn(process.execPath, [cliPath, 'seed', 'demo', '--db', target.url, '--leads', '300', '--json'], {
        env,
      })
      let stdout = ''
      let stderr = ''
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()))
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
      const code = await new Promise<number | null>((resolve) => child.on('close', resolve))
      expect(code, stderr).toBe(0)
      const seeded = JSON.parse(stdout)
      expect(stderr).toContain('seeded 300/300 leads')
      const handle = openDatabase(target.url)
      try {
        expect(await countOf(handle.db, 'lead', seeded.organization_id)).toBe(300)
        expect(await countOf(handle.db, 'lead_search', seeded.organization_id)).toBe(300)
        expect(await staleDocuments(handle.db, seeded.organization_id)).toBe(0)
        const withOpportunities = await handle.db
          .selectFrom('opportunity')
          .select((eb) => eb.fn.count('lead_id').distinct().as('n'))
          .where('organization_id', '=', seeded.organization_id)
          .executeTakeFirstOrThrow()
        expect(Number(withOpportunities.n)).toBeGreaterThan(150)
        expect(Number(withOpportunities.n)).toBeLessThan(210)
      } finally {
        await handle.close()
      }
    } finally {
      await target.drop()
    }
  })
})
