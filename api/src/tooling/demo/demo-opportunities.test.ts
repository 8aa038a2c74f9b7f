import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { formatOpportunityValue, type ValuePeriod } from '@leadline/shared/money'
import { formatTimestamp } from '../../platform/data/time.js'
import { call, createTestContext, type TestContext } from '../test-support/test-app.js'
import { inThreadSource } from './demo-lead-source.js'
import { seedDemoLeads } from './demo-leads.js'
import { seedDemoOrganization, type DemoOrganization } from './demo-seed.js'

// The opportunities the seed puts on the demo's leads: spread like real ones, consistent with their organization,
// lead and status history, and served by the API as it serves its own.

const DAY_MS = 86_400_000

let ctx: TestContext

beforeEach(async () => {
  ctx = await createTestContext()
})
afterEach(async () => {
  await ctx.close()
})

interface ChangeData {
  old_status_id: string | null
  new_status_id: string
  new_status_label: string
  new_status_type: string
  opportunity_value: number | null
  opportunity_value_period: ValuePeriod
  opportunity_value_currency: string
  opportunity_value_formatted: string | null
  opportunity_confidence: number
  opportunity_date_won: string | null
}

describe('demo opportunities', () => {
  const leads = 500
  let demo: DemoOrganization
  let now: Date

  beforeEach(async () => {
    demo = await seedDemoOrganization(ctx.database.db, ctx.clock)
    await seedDemoLeads(ctx.database.db, ctx.clock, demo.organization_id, leads, {
      batchSize: 200,
      source: inThreadSource,
    })
    now = ctx.clock.now()
  })

  async function opportunities() {
    const rows = await ctx.database.db
      .selectFrom('opportunity')
      .innerJoin('opportunity_status', 'opportunity_status.id', 'opportunity.status_id')
      .innerJoin('pipeline', 'pipeline.id', 'opportunity_status.pipeline_id')
      .leftJoin('contact', 'contact.id', 'opportunity.contact_id')
      .select([
        'opportunity.id',
        'opportunity.lead_id',
        'opportunity.contact_id',
        'opportunity.user_id',
        'opportunity.status_id',
        'opportunity.value',
        'opportunity.value_period',
        'opportunity.value_currency',
        'opportunity.confidence',
        'opportunity.date_won',
        'opportunity.date_lost',
        'opportunity.note',
        'opportunity.date_created',
        'opportunity.date_updated',
        'opportunity_status.organization_id as status_organization_id',
        'opportunity_status.label as status_label',
        'opportunity_status.type as status_type',
        'pipeline.name as pipeline_name',
        'contact.lead_id as contact_lead_id',
      ])
      .where('opportunity.organization_id', '=', demo.organization_id)
      .orderBy('opportunity.id')
      .execute()
    return rows.map((row) => ({ ...row, value: row.value === null ? null : Number(row.value) }))
  }

  it('sits on about 60 % of the leads, 1 to 3 each, spread over statuses, owners, values, periods and dates', async () => {
    const rows = await opportunities()
    const perLead = new Map<string, number>()
    for (const row of rows) perLead.set(row.lead_id, (perLead.get(row.lead_id) ?? 0) + 1)
    expect(perLead.size / leads).toBeGreaterThan(0.5)
    expect(perLead.size / leads).toBeLessThan(0.7)
    expect(Math.max(...perLead.values())).toBe(3)
    expect(Math.min(...perLead.values())).toBe(1)

    const distinct = <T>(pick: (row: (typeof rows)[number]) => T) => new Set(rows.map(pick))
    // Every status of both pipelines has some, and more are open than closed.
    expect(distinct((r) => `${r.pipeline_name}: ${r.status_label}`).size).toBe(10)
    const active = rows.filter((r) => r.status_type === 'active').length
    expect(active).toBeGreaterThan(rows.length / 2)
    expect(distinct((r) => r.user_id)).toEqual(new Set(demo.users.map((u) => u.user_id)))
    expect(distinct((r) => r.value_period)).toEqual(new Set(['one_time', 'monthly', 'annual']))
    expect(rows.filter((r) => r.value_period === 'one_time').length).toBeGreaterThan(rows.length / 2)
    expect(distinct((r) => r.value_currency)).toEqual(new Set(['USD']))
    expect(distinct((r) => r.value).size).toBeGreaterThan(50)
    expect(distinct((r) => r.note).size).toBeGreaterThan(3)
    expect(rows.some((r) => r.contact_id === null)).toBe(true)
    for (const row of rows) {
      if (row.value === null) continue
      // Whole dollars, two significant digits, between $50 a month and $250,000.
      expect(row.value % 100, row.id).toBe(0)
      expect(row.value, row.id).toBeGreaterThanOrEqual(5_000)
      expect(row.value, row.id).toBeLessThanOrEqual(25_000_000)
      expect(String(row.value / 100).replace(/0+$/, '').length, row.id).toBeLessThanOrEqual(2)
    }
    // Close dates over about two years: won ones in the past year, open ones expected in the months ahead.
    const today = formatTimestamp(now).slice(0, 10)
    const dates = rows.flatMap((r) => (r.date_won === null ? [] : [r.date_won])).sort()
    expect((dates[0] ?? '') < formatTimestamp(new Date(now.getTime() - 300 * DAY_MS)).slice(0, 10)).toBe(true)
    expect((dates.at(-1) ?? '') > formatTimestamp(new Date(now.getTime() + 200 * DAY_MS)).slice(0, 10)).toBe(true)
    expect(rows.some((r) => r.status_type === 'active' && (r.date_won ?? '') < today)).toBe(true)
  })

  it("belong to their organization's statuses, their lead's contacts and its members; closed ones are dated", async () => {
    const members = new Set(
      (
        await ctx.database.db
          .selectFrom('membership')
          .select('user_id')
          .where('organization_id', '=', demo.organization_id)
          .execute()
      ).map((m) => m.user_id),
    )
    const rows = await opportunities()
    expect(rows.length).toBeGreaterThan(leads / 2)
    const nowText = formatTimestamp(now)
    const today = nowText.slice(0, 10)
    for (const row of rows) {
      expect(row.status_organization_id, row.id).toBe(demo.organization_id)
      if (row.contact_id !== null) expect(row.contact_lead_id, row.id).toBe(row.lead_id)
      expect(members.has(row.user_id ?? ''), row.id).toBe(true)
      expect(row.date_created <= row.date_updated, row.id).toBe(true)
      expect(row.date_updated <= nowText, row.id).toBe(true)
      if (row.status_type === 'won') {
        expect(row.confidence, row.id).toBe(100)
        expect(row.date_won, row.id).toMatch(/^\d{4}-\d{2}-\d{2}$/)
        expect((row.date_won ?? '') <= today, row.id).toBe(true)
        expect(row.date_lost, row.id).toBeNull()
      } else if (row.status_type === 'lost') {
        expect(row.confidence, row.id).toBe(0)
        expect(row.date_lost ?? '', row.id).toMatch(/^\d{4}-\d{2}-\d{2}T/)
        expect((row.date_lost ?? '') <= nowText, row.id).toBe(true)
        expect(row.date_won, row.id).toBeNull()
      } else {
        expect(row.confidence, row.id).toBeGreaterThanOrEqual(10)
        expect(row.confidence, row.id).toBeLessThanOrEqual(90)
        expect(row.date_won, row.id).toMatch(/^\d{4}-\d{2}-\d{2}$/)
        expect(row.date_lost, row.id).toBeNull()
      }
    }
  })

  it('each have the status changes that brought them to their status, the latest first to last', async () => {
    const rows = await opportunities()
    const changes = await ctx.database.db
      .selectFrom('activity')
      .select(['id', 'lead_id', 'contact_id', 'opportunity_id', 'data', 'date_created', 'date_updated'])
      .where('organization_id', '=', demo.organization_id)
      .where('type', '=', 'OpportunityStatusChange')
      .orderBy('date_created')
      .orderBy('id')
      .execute()
    const nowText = formatTimestamp(now)
    const byOpportunity = new Map<string, { lead_id: string; contact_id: string | null; data: ChangeData }[]>()
    for (const change of changes) {
      expect(change.date_created <= nowText, change.id).toBe(true)
      expect(change.date_updated, change.id).toBe(change.date_created)
      const list = byOpportunity.get(change.opportunity_id ?? '') ?? []
      list.push({ lead_id: change.lead_id, contact_id: change.contact_id, data: JSON.parse(change.data) as ChangeData })
      byOpportunity.set(change.opportunity_id ?? '', list)
    }
    expect([...byOpportunity.keys()].sort()).toEqual(rows.map((r) => r.id))
    for (const row of rows) {
      const history = byOpportunity.get(row.id) ?? []
      const first = history[0]
      const last = history.at(-1)
      expect(first?.data.old_status_id, row.id).toBeNull()
      // Closed ones were opened in an active status, and moved into the one they are in.
      if (row.status_type !== 'active') {
        expect(history.length, row.id).toBe(2)
        expect(first?.data.new_status_type, row.id).toBe('active')
        expect(last?.data.old_status_id, row.id).toBe(first?.data.new_status_id)
      }
      expect(last, row.id).toMatchObject({
        lead_id: row.lead_id,
        contact_id: row.contact_id,
        data: {
          new_status_id: row.status_id,
          new_status_label: row.status_label,
          new_status_type: row.status_type,
          opportunity_value: row.value,
          opportunity_value_period: row.value_period,
          opportunity_value_currency: row.value_currency,
          opportunity_value_formatted: formatOpportunityValue(row.value, row.value_currency, row.value_period),
          opportunity_confidence: row.confidence,
          opportunity_date_won: row.date_won,
        },
      })
    }
  })

  it('are served by the API: one by id, in their lead, and their status changes', async () => {
    const admin = demo.users[0]?.api_key ?? ''
    const rows = await opportunities()
    const won = rows.find((r) => r.status_type === 'won' && r.contact_id !== null && r.value !== null)
    if (won === undefined) throw new Error('no won opportunity with a contact and a value')
    const one = await call(ctx.app, admin, 'GET', `/opportunity/${won.id}/`)
    expect(one.statusCode, one.body).toBe(200)
    expect(one.json()).toMatchObject({
      id: won.id,
      lead_id: won.lead_id,
      contact_id: won.contact_id,
      user_id: won.user_id,
      status_id: won.status_id,
      status_label: won.status_label,
      status_type: 'won',
      pipeline_name: won.pipeline_name,
      value: won.value,
      value_period: won.value_period,
      value_formatted: formatOpportunityValue(won.value, 'USD', won.value_period),
      confidence: 100,
      date_won: won.date_won,
    })
    const lead = await call(ctx.app, admin, 'GET', `/lead/${won.lead_id}/`)
    expect(lead.statusCode, lead.body).toBe(200)
    const inLead = rows.filter((r) => r.lead_id === won.lead_id).map((r) => r.id)
    expect(
      lead
        .json()
        .opportunities.map((o: { id: string }) => o.id)
        .sort(),
    ).toEqual(inLead)
    const changes = await call(ctx.app, admin, 'GET', '/activity/status_change/opportunity/', {
      query: { opportunity_id: won.id },
    })
    expect(changes.statusCode, changes.body).toBe(200)
    expect(changes.json().data.map((a: { new_status_type: string }) => a.new_status_type)).toEqual(['won', 'active'])

    const list = await call(ctx.app, admin, 'GET', '/opportunity/', { query: { status_type: 'won', _limit: '1' } })
    expect(list.statusCode, list.body).toBe(200)
    expect(list.json().total_results).toBe(rows.filter((r) => r.status_type === 'won').length)

    // The sums the rollup kept through the bulk load (migration 0010's triggers) equal those of the rows.
    const sums = async (query: Record<string, string>) => {
      const res = await call(ctx.app, admin, 'GET', '/opportunity/', { query: { ...query, _limit: '1' } })
      expect(res.statusCode, res.body).toBe(200)
      const { data: _, has_more: __, ...aggregates } = res.json<Record<string, unknown>>()
      return aggregates
    }
    expect(await sums({})).toEqual(await sums({ date_created__gt: '2000-01-01' }))
    expect((await sums({})).total_results).toBe(rows.length)
  })
})
