import type { CompiledQuery } from 'kysely'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { readAppState, writeAppState } from '../../platform/data/app-state.js'
import { openDatabase } from '../../platform/data/database.js'
import { migrateToLatest } from '../../platform/data/migrate.js'
import { serve } from '../../app/main.js'
import {
  basicAuth,
  call,
  createTestContext,
  createTestDatabase,
  type TestContext,
} from '../../tooling/test-support/test-app.js'
import { ensureLeadSearchCurrent, rebuildLeadSearch, SEARCH_DOCUMENT_VERSION } from './lead-search-index.js'

// Search documents written before a format change stay stale until rebuilt: start-up (and `leadline migrate`)
// rebuilds them when the recorded format is older than the code's.

let ctx: TestContext

beforeEach(async () => {
  ctx = await createTestContext()
})
afterEach(async () => {
  await ctx.close()
})

async function createLead(key: string, body: Record<string, unknown>): Promise<string> {
  const res = await call(ctx.app, key, 'POST', '/lead/', { body })
  expect(res.statusCode, res.body).toBe(200)
  return String(res.json().id)
}

async function found(query: string): Promise<string[]> {
  const res = await call(ctx.app, ctx.org.member.key, 'GET', '/lead/', { query: { query } })
  expect(res.statusCode, res.body).toBe(200)
  return res.json().data.map((l: { id: string }) => l.id)
}

async function body(leadId: string): Promise<string> {
  const row = await ctx.database.db
    .selectFrom('lead_search')
    .select('body')
    .where('lead_id', '=', leadId)
    .executeTakeFirstOrThrow()
  return row.body
}

/** Rewrites a document as the first format did (no phone digits, no Unicode folding) and records that format. */
async function makeStale(leadId: string, oldBody: string): Promise<void> {
  await ctx.database.db.updateTable('lead_search').set({ body: oldBody }).where('lead_id', '=', leadId).execute()
  await writeAppState(ctx.database.db, 'lead_search_document_version', '1')
}

describe('the start-up check', () => {
  // The first format held phones as E.164 and international only, and lower-cased with toLowerCase (İ → i̇).
  // A US number typed with dashes still matched its E.164 digits; a national number with a trunk prefix did not.
  it('rebuilds documents in an older format, so national numbers and folded names find old leads again', async () => {
    const london = await createLead(ctx.org.admin.key, {
      name: 'İzmir Trading',
      contacts: [{ name: 'John Wehr', phones: [{ phone: '+44 20 7946 0958' }] }],
    })
    const globex = await createLead(ctx.other.admin.key, {
      name: 'Globex',
      contacts: [{ name: 'Hank', phones: [{ phone: '+44 20 7946 0958' }] }],
    })
    const fresh = await body(london)
    await makeStale(london, 'İzmir Trading\nJohn Wehr\n+442079460958\n+44 20 7946 0958'.toLowerCase())
    await ctx.database.db
      .updateTable('lead_search')
      .set({ body: 'globex\nhank\n+442079460958\n+44 20 7946 0958' })
      .where('lead_id', '=', globex)
      .execute()
    expect(await found('020 7946 0958')).toEqual([])
    expect(await found('izmir')).toEqual([])

    const server = await serve({ config: { ...ctx.config, logLevel: 'silent' }, port: 0, host: '127.0.0.1' })
    try {
      for (const query of ['020 7946 0958', '2079460958', 'izmir', '+44 20 7946 0958']) {
        const res = await fetch(`${server.url}/api/v1/lead/?query=${encodeURIComponent(query)}`, {
          headers: { authorization: basicAuth(ctx.org.member.key) },
        })
        expect(res.status).toBe(200)
        const page = (await res.json()) as { data: { id: string }[] }
        expect(
          page.data.map((l) => l.id),
          query,
        ).toEqual([london])
      }
    } finally {
      await server.close()
    }
    expect(await body(london)).toBe(fresh)
    const rebuilt = await ctx.database.db
      .selectFrom('lead_search')
      .select(['organization_id', 'body'])
      .where('lead_id', '=', globex)
      .executeTakeFirstOrThrow()
    expect(rebuilt.organization_id).toBe(ctx.other.id)
    expect(rebuilt.body).toContain('020 7946 0958')
    expect(await readAppState(ctx.database.db, 'lead_search_document_version')).toBe(String(SEARCH_DOCUMENT_VERSION))
  })

  it.each([
    ['current', SEARCH_DOCUMENT_VERSION],
    ['newer (a newer api wrote it)', SEARCH_DOCUMENT_VERSION + 1],
  ])('writes nothing when the recorded format is %s', async (_name, version) => {
    const lead = await createLead(ctx.org.admin.key, {
      name: 'Wehr Inc',
      contacts: [{ phones: [{ phone: '+14155550101' }] }],
    })
    await ctx.database.db.updateTable('lead_search').set({ body: 'wehr inc' }).where('lead_id', '=', lead).execute()
    await writeAppState(ctx.database.db, 'lead_search_document_version', String(version))
    const queries: CompiledQuery[] = []
    const logged = openDatabase(ctx.database.url, {
      log: (event) => {
        if (event.level === 'query') queries.push(event.query)
      },
    })
    try {
      expect(await ensureLeadSearchCurrent(logged.db)).toBeUndefined()
    } finally {
      await logged.close()
    }
    expect(queries.map((q) => q.sql)).toEqual([expect.stringMatching(/^select "value" from "app_state"/)])
    expect(await body(lead)).toBe('wehr inc')
  })

  it('on a database without leads only records the format', async () => {
    const testDb = await createTestDatabase()
    const database = openDatabase(testDb.url)
    try {
      await migrateToLatest(database.db)
      expect(await readAppState(database.db, 'lead_search_document_version')).toBeUndefined()
      expect(await ensureLeadSearchCurrent(database.db)).toBe(0)
      expect(await readAppState(database.db, 'lead_search_document_version')).toBe(String(SEARCH_DOCUMENT_VERSION))
      expect(await ensureLeadSearchCurrent(database.db)).toBeUndefined()
    } finally {
      await database.close()
      await testDb.drop()
    }
  })
})

describe('rebuildLeadSearch', () => {
  it('reads each batch of leads in a few bulk queries, never per lead, in every organization', async () => {
    const ids: string[] = []
    for (let i = 0; i < 7; i++) {
      ids.push(
        await createLead(ctx.org.admin.key, {
          name: `Lead ${String(i)}`,
          addresses: [{ city: 'Zürich' }],
          contacts: [
            { name: `First ${String(i)}`, phones: [{ phone: `+1415555010${String(i)}` }] },
            { name: `Second ${String(i)}`, emails: [{ email: `second${String(i)}@example.com` }] },
          ],
        }),
      )
    }
    for (let i = 0; i < 2; i++) ids.push(await createLead(ctx.other.admin.key, { name: `Other ${String(i)}` }))
    const expected = new Map(await Promise.all(ids.map(async (id) => [id, await body(id)] as const)))
    for (const id of ids) await makeStale(id, 'stale')

    const queries: CompiledQuery[] = []
    const logged = openDatabase(ctx.database.url, {
      log: (event) => {
        if (event.level === 'query') queries.push(event.query)
      },
    })
    const progress: [number, number][] = []
    try {
      const rebuilt = await rebuildLeadSearch(logged.db, {
        batchSize: 3,
        onProgress: (done, total) => progress.push([done, total]),
      })
      expect(rebuilt).toBe(9)
    } finally {
      await logged.close()
    }
    for (const id of ids) expect(await body(id)).toBe(expected.get(id))
    // 7 leads in batches of 3 (3, 3, 1) and 2 in the other organization (which comes first depends on the ids).
    expect(progress.at(-1)).toEqual([9, 9])
    expect(progress).toHaveLength(4)
    const reads = (table: string) => queries.filter((q) => new RegExp(`^select .* from "${table}" `).test(q.sql))
    expect(reads('contact_phone')).toHaveLength(4)
    for (const query of reads('contact_phone')) expect(query.sql).toMatch(/"organization_id" = .* and "lead_id" in \(/)
    // Every read of an organization's rows names the organization (only the list of organizations does not).
    const scoped = queries.filter((q) => q.sql.startsWith('select') && !/from "(organization|app_state)"/.test(q.sql))
    expect(scoped.length).toBeGreaterThan(0)
    for (const query of scoped) expect(query.sql).toMatch(/"organization_id" = /)
  })
})
