import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { sql } from 'kysely'
import { openDatabase, type DatabaseHandle } from '../../platform/data/database.js'
import { call, createTestContext, type TestContext } from '../../tooling/test-support/test-app.js'
import { leadChangePosition, leadChangesSince, pruneLeadTombstones, type ChangePosition } from './lead-changes.js'
import { OrganizationLeadIndex } from './lead-index.js'
import { LAST_ACTIVITY_TYPES } from '@leadline/shared/lead-summary-schema'
import { MARKED_TYPES } from '../../platform/data/migrations/0048-lead-activity-changes.js'

// The feed of lead changes (migration 0045) read through a second connection, as another api process reads it:
// every kind of write to a lead or to a row its view is built from lists the lead once the writer has committed,
// a deletion lists it as gone, and a position taken after them lists nothing.
let ctx: TestContext
let other: DatabaseHandle
beforeAll(async () => {
  ctx = await createTestContext()
  other = openDatabase(ctx.config.databaseUrl)
})
afterAll(async () => {
  await other.close()
  await ctx.close()
})

async function ok(key: string, method: 'POST' | 'PUT' | 'DELETE', path: string, body?: object) {
  const res = await call(ctx.app, key, method, path, body === undefined ? {} : { body })
  expect(res.statusCode, res.body).toBe(200)
  return res.json()
}

describe('the lead change feed', () => {
  it('lists each write to a lead or its rows, and deletions, once committed, per organization', async () => {
    const org = await ctx.createOrg('Feed Co')
    const elsewhere = await ctx.createOrg('Elsewhere Co')
    const key = org.admin.key
    const read = (since: ChangePosition) => leadChangesSince(other.db, org.id, since)
    let position = await leadChangePosition(other.db, ctx.database.dialect, org.id)
    const next = async () => {
      const changes = await read(position)
      position = changes.position
      return { changed: [...new Set(changes.changed)].sort(), gone: [...new Set(changes.gone)].sort() }
    }
    expect(await next()).toEqual({ changed: [], gone: [] })

    const a = (await ok(key, 'POST', '/lead/', { name: 'A' })).id as string
    const b = (await ok(key, 'POST', '/lead/', { name: 'B' })).id as string
    await ok(elsewhere.admin.key, 'POST', '/lead/', { name: 'Theirs' })
    expect(await next()).toEqual({ changed: [a, b].sort(), gone: [] })
    expect(await next()).toEqual({ changed: [], gone: [] })

    await ok(key, 'PUT', `/lead/${a}/`, { name: 'A renamed' })
    expect(await next()).toEqual({ changed: [a], gone: [] })

    const contact = (
      await ok(key, 'POST', '/contact/', { lead_id: b, name: 'Cy', emails: [{ email: 'cy@example.com' }] })
    ).id as string
    expect(await next()).toEqual({ changed: [b], gone: [] })
    await ok(key, 'PUT', `/contact/${contact}/`, { phones: [{ phone: '+14155550101' }] })
    expect(await next()).toEqual({ changed: [b], gone: [] })

    await ok(key, 'POST', '/task/', { lead_id: a, text: 'Call back' })
    expect(await next()).toEqual({ changed: [a], gone: [] })
    await ok(key, 'POST', '/opportunity/', { lead_id: b, value: 1000 })
    expect(await next()).toEqual({ changed: [b], gone: [] })

    await ok(key, 'DELETE', `/lead/${a}/`)
    expect(await next()).toEqual({ changed: [], gone: [a] })
    const c = (await ok(key, 'POST', '/lead/', { name: 'C' })).id as string
    await ok(key, 'POST', '/lead/merge/', { source: b, destination: c })
    const merged = await next()
    expect(merged.gone).toEqual([b])
    expect(merged.changed).toContain(c)
    expect(await next()).toEqual({ changed: [], gone: [] })
  })

  it("lists the leads whose activities were added, deleted or moved, apart from the leads' own changes", async () => {
    const org = await ctx.createOrg('Activity Feed Co')
    const key = org.admin.key
    const a = (await ok(key, 'POST', '/lead/', { name: 'A' })).id as string
    const b = (await ok(key, 'POST', '/lead/', { name: 'B' })).id as string
    let position = await leadChangePosition(other.db, ctx.database.dialect, org.id)
    const next = async () => {
      const changes = await leadChangesSince(other.db, org.id, position)
      position = changes.position
      return { changed: [...new Set(changes.changed)].sort(), active: [...new Set(changes.active)].sort() }
    }
    const note = (await ok(key, 'POST', '/activity/note/', { lead_id: a, note: 'Called' })).id as string
    expect(await next()).toEqual({ changed: [], active: [a] })
    // A status change is recorded as an activity, of a kind no last activity is made of: the lead alone is listed.
    await ok(key, 'PUT', `/lead/${a}/`, { status: 'Qualified' })
    expect(await next()).toEqual({ changed: [a], active: [] })
    expect(await next()).toEqual({ changed: [], active: [] })
    await ok(key, 'DELETE', `/activity/note/${note}/`)
    expect(await next()).toEqual({ changed: [], active: [a] })
    // A merge moves the source's activities to the destination: both are listed.
    await ok(key, 'POST', '/activity/note/', { lead_id: a, note: 'Again' })
    await next()
    await ok(key, 'POST', '/lead/merge/', { source: a, destination: b })
    const merged = await next()
    expect(merged.active).toEqual([a, b].sort())
    // Gone leads' marks are pruned, but for the organization's newest (SQLite's clock reads it).
    const c = (await ok(key, 'POST', '/lead/', { name: 'C' })).id as string
    await ok(key, 'POST', '/activity/note/', { lead_id: c, note: 'Newest' })
    await ok(key, 'DELETE', `/lead/${c}/`)
    const marks = async () =>
      (
        await sql<{ lead_id: string }>`select lead_id from lead_activity_change
          where organization_id = ${org.id}`.execute(other.db)
      ).rows
        .map((r) => r.lead_id)
        .sort()
    expect(await marks()).toEqual([a, b, c].sort())
    await pruneLeadTombstones(ctx.database.db, ctx.database.dialect, new Date(), 1)
    expect(await marks()).toEqual([b, c].sort())
    await next()
    await ok(key, 'POST', '/activity/note/', { lead_id: b, note: 'After' })
    expect(await next()).toEqual({ changed: [], active: [b] })
  })

  it('marks the kinds of activity a last activity is made of, and only those', () => {
    expect([...MARKED_TYPES]).toEqual([...LAST_ACTIVITY_TYPES])
  })

  it('a position taken while a write is still open lists the write once it commits (Postgres: commit order)', async () => {
    const org = await ctx.createOrg('Order Co')
    const key = org.admin.key
    const first = (await ok(key, 'POST', '/lead/', { name: 'First' })).id as string
    const second = (await ok(key, 'POST', '/lead/', { name: 'Second' })).id as string
    let position = await leadChangePosition(other.db, ctx.database.dialect, org.id)
    if (ctx.database.dialect === 'postgres') {
      // A transaction writes the first lead and stays open while another writes the second and commits.
      let release: () => void = () => undefined
      const held = new Promise<void>((resolve) => (release = resolve))
      let wrote: () => void = () => undefined
      const written = new Promise<void>((resolve) => (wrote = resolve))
      const slow = ctx.database.db.transaction().execute(async (tx) => {
        await sql`update lead set name = 'First, slowly' where id = ${first}`.execute(tx)
        wrote()
        await held
      })
      await written
      await other.db.updateTable('lead').set({ name: 'Second, quickly' }).where('id', '=', second).execute()
      const meanwhile = await leadChangesSince(other.db, org.id, position)
      expect(meanwhile.changed).toEqual([second])
      position = meanwhile.position
      release()
      await slow
      const after = await leadChangesSince(other.db, org.id, position)
      expect(after.changed).toEqual([first])
      expect((await leadChangesSince(other.db, org.id, after.position)).changed).toEqual([])
    } else {
      // One writer at a time: a write committed after the position is above it.
      await other.db.updateTable('lead').set({ name: 'Second, quickly' }).where('id', '=', second).execute()
      const after = await leadChangesSince(ctx.database.db, org.id, position)
      expect(after.changed).toEqual([second])
    }
  })

  it('a deleted lead that held the newest change leaves a tombstone above it (SQLite: the clock never goes back)', async () => {
    const org = await ctx.createOrg('Clock Co')
    const key = org.admin.key
    const a = (await ok(key, 'POST', '/lead/', { name: 'A' })).id as string
    const b = (await ok(key, 'POST', '/lead/', { name: 'B' })).id as string
    await ok(key, 'PUT', `/lead/${b}/`, { name: 'B, newest' })
    const position = await leadChangePosition(other.db, ctx.database.dialect, org.id)
    await ok(key, 'DELETE', `/lead/${b}/`)
    await ok(key, 'PUT', `/lead/${a}/`, { name: 'A again' })
    const changes = await leadChangesSince(other.db, org.id, position)
    expect({ changed: changes.changed, gone: changes.gone }).toEqual({ changed: [a], gone: [b] })
  })

  it("prunes old tombstones but each organization's newest, and tells a reader from before them to read anew", async () => {
    const org = await ctx.createOrg('Pruned Co')
    const elsewhere = await ctx.createOrg('Pruned Elsewhere Co')
    const key = org.admin.key
    const dialect = ctx.database.dialect
    const [a, b, c] = await Promise.all(
      ['A', 'B', 'C'].map(async (name) => (await ok(key, 'POST', '/lead/', { name })).id as string),
    )
    const theirs = (await ok(elsewhere.admin.key, 'POST', '/lead/', { name: 'Theirs' })).id as string
    const before = await leadChangePosition(other.db, dialect, org.id)
    const index = new OrganizationLeadIndex(org.id, dialect)
    await index.build(other.db)
    await ok(key, 'DELETE', `/lead/${a ?? ''}/`)
    await ok(key, 'DELETE', `/lead/${b ?? ''}/`)
    await ok(elsewhere.admin.key, 'DELETE', `/lead/${theirs}/`)
    const between = await leadChangePosition(other.db, dialect, org.id)
    const tombstones = async (organizationId: string) =>
      (
        await sql<{ lead_id: string }>`select lead_id from lead_tombstone
          where organization_id = ${organizationId}`.execute(other.db)
      ).rows.map((r) => r.lead_id)

    // Not yet a day old: nothing goes.
    await pruneLeadTombstones(ctx.database.db, dialect, new Date(), 1)
    expect((await tombstones(org.id)).sort()).toEqual([a, b].sort())
    expect((await leadChangesSince(other.db, org.id, before)).complete).toBe(true)

    const pruned = await pruneLeadTombstones(ctx.database.db, dialect, new Date(Date.now() + 2 * 86_400_000), 1)
    expect(pruned).toBeGreaterThanOrEqual(1)
    expect(await tombstones(org.id)).toEqual([b])
    expect(await tombstones(elsewhere.id)).toEqual([theirs])
    // A reader from before the pruned deletion cannot tell what went: it reads the organization anew.
    const stale = await leadChangesSince(other.db, org.id, before)
    expect(stale.complete).toBe(false)
    expect(await index.catchUp(other.db)).toBe(false)
    // One from after it goes on as before, and the clock did not go back.
    const d = (await ok(key, 'POST', '/lead/', { name: 'D' })).id as string
    const fresh = await leadChangesSince(other.db, org.id, between)
    expect({ changed: fresh.changed, gone: fresh.gone, complete: fresh.complete }).toEqual({
      changed: [d],
      gone: [],
      complete: true,
    })
    const rebuilt = new OrganizationLeadIndex(org.id, dialect)
    await rebuilt.build(other.db)
    expect(rebuilt.size).toBe(2)
    expect(c).toBeDefined()
  })
})
