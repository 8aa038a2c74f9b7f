import { expect, test } from 'vitest'
import { LEAD_VERSIONS } from '../../crm/leads/lead-routes.js'
import { META_VERSION } from '../../crm/organizations/organization-meta.js'
import { call } from '../../tooling/test-support/test-app.js'
import { KEYED_READ_BATCH, type KeyedRead } from './database.js'
import { keyedReadsFixture } from '../../tooling/test-support/keyed-reads-fixture.js'

// `HotReader.one` on the test database: on Postgres the reads asked for together go as one query (`many`), and each
// must still get exactly what a read of its own would have.

const fixture = keyedReadsFixture()
const { leads } = fixture
type Versions = { revision: number; meta_version: number }

/** What the read gives for `key` asked alone, through `all`. */
async function alone<Row>(read: KeyedRead, key: readonly string[]): Promise<Row | undefined> {
  return (await fixture.ctx.database.reader.all<Row>(read.one, key))[0]
}

test('reads asked for together each get what a read of their own gets, missing and repeated keys too', async () => {
  const { reader } = fixture.ctx.database
  const keys = [
    ...leads.map((id) => [fixture.ctx.org.id, id]),
    [fixture.ctx.org.id, leads[0] ?? ''],
    // Another organization's lead is not found under this one, nor an unknown id.
    [fixture.ctx.other.id, leads[1] ?? ''],
    [fixture.ctx.org.id, 'lead_missing'],
  ]
  const together = await Promise.all(keys.map((key) => reader.one<Versions>(LEAD_VERSIONS, key)))
  const apart = await Promise.all(keys.map((key) => alone<Versions>(LEAD_VERSIONS, key)))
  expect(together).toEqual(apart)
  expect(together.slice(0, 6).every((row) => typeof row?.revision === 'number')).toBe(true)
  expect(together.slice(6)).toEqual([undefined, undefined])
  const metas = await Promise.all(
    [fixture.ctx.org.id, fixture.ctx.other.id, fixture.ctx.org.id, 'orga_missing'].map((id) =>
      reader.one<{ meta_version: number }>(META_VERSION, [id]),
    ),
  )
  expect(metas).toEqual(
    await Promise.all(
      [fixture.ctx.org.id, fixture.ctx.other.id, fixture.ctx.org.id, 'orga_missing'].map((id) =>
        alone(META_VERSION, [id]),
      ),
    ),
  )
  expect(metas[3]).toBeUndefined()
})

test('a write committed before a read is asked for is seen by it, however many reads share its query', async () => {
  const { reader } = fixture.ctx.database
  const id = leads[2] ?? ''
  const before = await reader.one<Versions>(LEAD_VERSIONS, [fixture.ctx.org.id, id])
  const renamed = await call(fixture.ctx.app, fixture.ctx.org.admin.key, 'PUT', `/lead/${id}/`, {
    body: { name: 'Renamed' },
  })
  expect(renamed.statusCode).toBe(200)
  const [seen] = await Promise.all([
    reader.one<Versions>(LEAD_VERSIONS, [fixture.ctx.org.id, id]),
    ...leads.map((other) => reader.one<Versions>(LEAD_VERSIONS, [fixture.ctx.org.id, other])),
  ])
  expect(seen?.revision).toBeGreaterThan(before?.revision ?? Number.POSITIVE_INFINITY)
})

test('more reads at once than one query takes are all answered', async () => {
  const { reader } = fixture.ctx.database
  const count = KEYED_READ_BATCH * 2 + 7
  const rows = await Promise.all(
    Array.from({ length: count }, (_, i) =>
      reader.one<Versions>(LEAD_VERSIONS, [
        fixture.ctx.org.id,
        i % 3 === 0 ? `lead_none_${String(i)}` : (leads[i % 5] ?? ''),
      ]),
    ),
  )
  expect(rows.filter((row) => row === undefined)).toHaveLength(Math.ceil(count / 3))
  expect(rows.filter((row) => row !== undefined)).toHaveLength(count - Math.ceil(count / 3))
})

test('a read that fails fails every read of its query, and the next ones are answered', async () => {
  const { reader } = fixture.ctx.database
  const broken: KeyedRead = { one: 'SELECT no_such_column FROM lead WHERE id = ?', many: 'SELECT no_such_column' }
  const settled = await Promise.allSettled(leads.map((id) => reader.one(broken, [id])))
  expect(settled.map((outcome) => outcome.status)).toEqual(leads.map(() => 'rejected'))
  expect(await reader.one<Versions>(LEAD_VERSIONS, [fixture.ctx.org.id, leads[0] ?? ''])).toBeDefined()
})
