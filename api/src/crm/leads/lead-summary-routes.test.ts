import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CompiledQuery, sql } from 'kysely'
import { LEAD_SUMMARIES_MAX, type LeadSummary } from '@leadline/shared/lead-summary-schema'
import { call, createTestContext, type TestContext } from '../../tooling/test-support/test-app.js'
import { summariesQuery } from './lead-summary-repo.js'

let ctx: TestContext

beforeAll(async () => {
  ctx = await createTestContext()
})
afterAll(async () => {
  await ctx.close()
})

async function createLead(name: string, key = ctx.org.member.key): Promise<string> {
  const res = await call(ctx.app, key, 'POST', '/lead/', { body: { name } })
  expect(res.statusCode, res.body).toBe(200)
  return res.json<{ id: string }>().id
}

/** Logs an activity and answers when it was logged. */
async function log(path: string, body: Record<string, unknown>, key = ctx.org.member.key): Promise<string> {
  const res = await call(ctx.app, key, 'POST', path, { body })
  expect(res.statusCode, res.body).toBe(200)
  return res.json<{ date_created: string }>().date_created
}

async function summaries(ids: string[], key = ctx.org.member.key): Promise<LeadSummary[]> {
  const res = await call(ctx.app, key, 'GET', '/lead/summaries/', { query: { lead_id__in: ids.join(',') } })
  expect(res.statusCode, res.body).toBe(200)
  return res.json<{ data: LeadSummary[] }>().data
}

describe('GET /lead/summaries/', () => {
  it('answers each lead’s newest call, email, note or SMS, in the order asked; null for a lead with none', async () => {
    const quiet = await createLead('Quiet Co')
    const busy = await createLead('Busy Co')
    await log('/activity/note/', { lead_id: busy, note: 'First' })
    ctx.clock.advance(60_000)
    const called = await log('/activity/call/', { lead_id: busy, direction: 'outbound', duration: 30, note: 'Hi' })
    // Records about the lead, not something done with it, leave its last activity as it was.
    const statuses = (await call(ctx.app, ctx.org.admin.key, 'GET', '/status/lead/')).json<{ data: { id: string }[] }>()
    ctx.clock.advance(60_000)
    const changed = await call(ctx.app, ctx.org.member.key, 'PUT', `/lead/${busy}/`, {
      body: { status_id: statuses.data[1]?.id },
    })
    expect(changed.statusCode, changed.body).toBe(200)
    expect(await summaries([busy, quiet])).toEqual([
      { lead_id: busy, date_last_activity: called },
      { lead_id: quiet, date_last_activity: null },
    ])
    ctx.clock.advance(60_000)
    const noted = await log('/activity/note/', { lead_id: quiet, note: 'Later' })
    expect(await summaries([quiet, busy, quiet])).toEqual([
      { lead_id: quiet, date_last_activity: noted },
      { lead_id: busy, date_last_activity: called },
    ])
  })

  it('lets a member read an admin’s leads, as /lead/ does', async () => {
    const theirs = await createLead('Admin’s Co', ctx.org.admin.key)
    const noted = await log('/activity/note/', { lead_id: theirs, note: 'By the admin' }, ctx.org.admin.key)
    expect(await summaries([theirs])).toEqual([{ lead_id: theirs, date_last_activity: noted }])
  })

  it('leaves out another organization’s leads and ids of no lead, showing nothing of theirs', async () => {
    const mine = await createLead('Mine Co')
    const theirs = await createLead('Theirs Co', ctx.other.member.key)
    await log('/activity/note/', { lead_id: theirs, note: 'Secret' }, ctx.other.member.key)
    const res = await call(ctx.app, ctx.org.member.key, 'GET', '/lead/summaries/', {
      query: { lead_id__in: `${theirs},lead_none,${mine}` },
    })
    expect(res.statusCode, res.body).toBe(200)
    expect(res.json()).toEqual({ data: [{ lead_id: mine, date_last_activity: null }] })
    expect(res.body).not.toContain(theirs)
    expect(await summaries([theirs], ctx.other.member.key)).toEqual([
      { lead_id: theirs, date_last_activity: expect.any(String) as string },
    ])
  })

  it.each([
    ['no leads', undefined, 'lead_id__in'],
    ['an empty list', ' , ', 'lead_id__in'],
    [
      'too many leads',
      Array.from({ length: LEAD_SUMMARIES_MAX + 1 }, (_, i) => `lead_${String(i)}`).join(','),
      'lead_id__in',
    ],
    ['a list too long to be ids', 'x'.repeat(LEAD_SUMMARIES_MAX * 65 + 1), 'lead_id__in'],
  ])('refuses %s with a field error', async (_name, value, field) => {
    const res = await call(ctx.app, ctx.org.member.key, 'GET', '/lead/summaries/', {
      ...(value === undefined ? {} : { query: { lead_id__in: value } }),
    })
    expect(res.statusCode, res.body).toBe(400)
    expect(res.json()).toEqual({ errors: [], 'field-errors': { [field]: expect.any(String) as string } })
  })

  it('takes as many leads as allowed, repeated ids once', async () => {
    const id = await createLead('Counted Co')
    const ids = [id, ...Array.from({ length: LEAD_SUMMARIES_MAX - 1 }, (_, i) => `lead_${String(i)}`), id]
    expect(await summaries(ids)).toEqual([{ lead_id: id, date_last_activity: null }])
  })

  it('needs an API key', async () => {
    const res = await call(ctx.app, undefined, 'GET', '/lead/summaries/', { query: { lead_id__in: 'lead_x' } })
    expect(res.statusCode).toBe(401)
  })
})

describe('the summaries query', () => {
  /** The plan of the query, Postgres told to avoid sequential scans so that it shows which indexes can serve it. */
  async function plan(query: CompiledQuery): Promise<string> {
    const { db, dialect } = ctx.database
    if (dialect === 'sqlite') {
      const rows = await db.executeQuery<{ detail: string }>(
        CompiledQuery.raw(`explain query plan ${query.sql}`, [...query.parameters]),
      )
      return rows.rows.map((r) => r.detail).join('\n')
    }
    return db.connection().execute(async (connection) => {
      await sql`begin`.execute(connection)
      try {
        await sql`set local enable_seqscan = off`.execute(connection)
        const rows = await connection.executeQuery<{ 'QUERY PLAN': string }>(
          CompiledQuery.raw(`explain ${query.sql}`, [...query.parameters]),
        )
        return rows.rows.map((r) => r['QUERY PLAN']).join('\n')
      } finally {
        await sql`rollback`.execute(connection)
      }
    })
  }

  it('finds the leads by their key and each one’s newest activity from the end of its index, sorting nothing', async () => {
    const text = await plan(summariesQuery(ctx.database.db, ctx.org.id, ['lead_a', 'lead_b']).compile())
    if (ctx.database.dialect === 'sqlite') {
      expect(text).toMatch(/SEARCH lead USING (COVERING )?INDEX \S+ \([^)]*\bid=\?\)/)
      // The index of the four kinds alone (migration 0053): no activity row is read to learn its type.
      expect(text).toMatch(
        /SEARCH activity USING COVERING INDEX activity_last_idx \(organization_id=\? AND lead_id=\?\)/,
      )
      expect(text).not.toMatch(/SCAN (lead|activity)\b|TEMP B-TREE/)
    } else {
      expect(text).toMatch(/Index Only Scan Backward using activity_last_idx on activity/)
      expect(text).not.toMatch(/Seq Scan|\bSort\b/)
    }
  })
})
