import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { TASK_TYPES } from '@leadline/shared/task-schema'
import { call, createTestContext, type TestContext } from '../../tooling/test-support/test-app.js'
import { formatTimestamp } from '../../platform/data/time.js'
import { insertTask } from './task-repo.js'

let ctx: TestContext
beforeAll(async () => {
  ctx = await createTestContext()
})
afterAll(async () => {
  await ctx.close()
})

/** Calendar dates (`YYYY-MM-DD`) from `min` to `max`. */
const daysBetween = (min: string, max: string) =>
  fc
    .date({ min: new Date(`${min}T00:00:00Z`), max: new Date(`${max}T00:00:00Z`), noInvalidDate: true })
    .map((d) => d.toISOString().slice(0, 10))
/** Timestamps on the minute from `min` to `max`, some right at a day's edge somewhere in the world. */
const instantsBetween = (min: string, max: string) =>
  fc
    .integer({ min: Date.parse(`${min}T00:00:00Z`) / 60_000, max: Date.parse(`${max}T00:00:00Z`) / 60_000 })
    .map((minutes) => new Date(minutes * 60_000).toISOString())
const day = daysBetween('2026-02-25', '2026-03-05')
const instant = instantsBetween('2026-02-26', '2026-03-04')
const task = fc.record({
  type: fc.constantFrom(...TASK_TYPES),
  date: fc.oneof(day, instant, fc.constant(null)),
  complete: fc.boolean(),
})
// Every real offset from −12 to +14, in quarter hours.
const offset = fc.integer({ min: -48, max: 56 }).map((quarters) => quarters / 4)
const now = fc.integer({ min: Date.parse('2026-02-28T00:00:00Z'), max: Date.parse('2026-03-03T00:00:00Z') })

describe('inbox, future and archive', () => {
  it('split the organization’s tasks exactly, and each task’s view names the list it is in', async () => {
    let run = 0
    await fc.assert(
      fc.asyncProperty(
        fc.array(task, { minLength: 1, maxLength: 12 }),
        fc.array(offset, { minLength: 1, maxLength: 3 }),
        now,
        async (tasks, offsets, at) => {
          run += 1
          const org = await ctx.createOrg(`Views property ${String(run)}`)
          const lead = (await call(ctx.app, org.member.key, 'POST', '/lead/', { body: { name: 'Prop Co' } })).json()
          ctx.clock.set(new Date('2026-02-27T12:00:00Z'))
          const stamp = formatTimestamp(ctx.clock.now())
          const ids: string[] = []
          for (const t of tasks) {
            ids.push(
              await insertTask(ctx.database.db, {
                organizationId: org.id,
                leadId: lead.id,
                type: t.type,
                assignedTo: org.member.id,
                contactId: null,
                date: t.date === null ? null : t.date.includes('T') ? formatTimestamp(new Date(t.date)) : t.date,
                today: stamp.slice(0, 10),
                isComplete: t.complete,
                userId: null,
                now: stamp,
              }),
            )
          }
          ctx.clock.set(new Date(at))
          for (const hours of offsets) {
            const headers = { 'x-tz-offset': String(hours) }
            const lists = new Map<string, { id: string; view: string }[]>()
            for (const view of ['inbox', 'future', 'archive']) {
              const res = await call(ctx.app, org.member.key, 'GET', '/task/', {
                query: { view, _type: 'all', _limit: '1000' },
                headers,
              })
              expect(res.statusCode, res.body).toBe(200)
              lists.set(view, res.json().data)
            }
            const seen = [...lists.values()].flat().map((t) => t.id)
            // Every task in exactly one list.
            expect(seen.length).toBe(new Set(seen).size)
            expect(new Set(seen)).toEqual(new Set(ids))
            for (const [view, listed] of lists) {
              for (const t of listed) expect(t.view, `${t.id} at ${String(hours)}`).toBe(view)
            }
            expect(lists.get('archive')?.length).toBe(tasks.filter((t) => t.complete).length)
          }
        },
      ),
      { numRuns: 12 },
    )
  })
})

describe('a page of tasks in date order', () => {
  // Over six days: a page's last task and the tasks beyond it a day or two apart, where the caller's zone can
  // put a task stored on a later day before one stored on an earlier day.
  const spreadDay = daysBetween('2026-02-25', '2026-03-02')
  const spreadInstant = instantsBetween('2026-02-25', '2026-03-03')

  it('is the same slice of the whole list, in either direction, at every offset, skip and size', async () => {
    let run = 0
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.oneof(spreadDay, spreadInstant, fc.constant(null)), { minLength: 1, maxLength: 30 }),
        fc.array(
          fc.record({
            hours: offset,
            descending: fc.boolean(),
            skip: fc.integer({ min: 0, max: 12 }),
            limit: fc.integer({ min: 0, max: 8 }),
          }),
          { minLength: 1, maxLength: 4 },
        ),
        async (dates, pages) => {
          run += 1
          const org = await ctx.createOrg(`Date order property ${String(run)}`)
          const lead = (await call(ctx.app, org.member.key, 'POST', '/lead/', { body: { name: 'Order Co' } })).json()
          ctx.clock.set(new Date('2026-02-27T12:00:00Z'))
          const stamp = formatTimestamp(ctx.clock.now())
          for (const date of dates) {
            await insertTask(ctx.database.db, {
              organizationId: org.id,
              leadId: lead.id,
              type: 'lead',
              assignedTo: org.member.id,
              contactId: null,
              date: date === null ? null : date.includes('T') ? formatTimestamp(new Date(date)) : date,
              today: stamp.slice(0, 10),
              isComplete: false,
              userId: null,
              now: stamp,
            })
          }
          for (const { hours, descending, skip, limit } of pages) {
            const list = (query: Record<string, string>) =>
              call(ctx.app, org.member.key, 'GET', '/task/', {
                query: { assigned_to: org.member.id, _order_by: descending ? '-date' : 'date', ...query },
                headers: { 'x-tz-offset': String(hours) },
              })
            const whole = await list({ _limit: '1000' })
            expect(whole.statusCode, whole.body).toBe(200)
            const all = (whole.json().data as { id: string }[]).map((t) => t.id)
            expect(all).toHaveLength(dates.length)
            const page = await list({ _skip: String(skip), _limit: String(limit) })
            expect(page.statusCode, page.body).toBe(200)
            const body = page.json<{ has_more: boolean; data: { id: string }[] }>()
            const where = `${descending ? 'descending' : 'ascending'} at ${String(hours)}, ${String(skip)}+${String(limit)}`
            expect(
              body.data.map((t) => t.id),
              where,
            ).toEqual(all.slice(skip, skip + limit))
            expect(body.has_more, where).toBe(all.length > skip + limit)
          }
        },
      ),
      {
        numRuns: 40,
        examples: [
          // At UTC+14 the task of Feb 27 starts on Feb 26 at 10:00, before the two timed ones of that evening.
          [
            ['2026-02-26T20:00:00.000Z', '2026-02-26T23:00:00.000Z', '2026-02-27'],
            [{ hours: 14, descending: false, skip: 0, limit: 1 }],
          ],
          // At UTC−12 the task of Feb 26 starts on Feb 26 at 12:00, after the two timed ones of that morning.
          [
            ['2026-02-26T11:00:00.000Z', '2026-02-26T09:00:00.000Z', '2026-02-26'],
            [{ hours: -12, descending: true, skip: 0, limit: 1 }],
          ],
        ],
      },
    )
  })
})
