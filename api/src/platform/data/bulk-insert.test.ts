import fc from 'fast-check'
import { sql } from 'kysely'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { createTestDatabase, testDatabaseKind, type TestDatabase } from '../../tooling/test-support/test-app.js'
import { flattenRows, insertRows, insertRowsInOneStatement } from './bulk-insert.js'
import { openDatabase, type DatabaseHandle, type Tables } from './database.js'
import { copyText } from './postgres-copy.js'

// The bulk writers' inserts (the demo seed, the CSV import, events in batches): what goes in comes back exactly, on
// SQLite through multi-row VALUES lists and on Postgres through COPY, whose text format escapes its separators.

/** A table of this test's own, outside the schema's types. */
const PROBE = 'bulk_probe' as keyof Tables

let testDb: TestDatabase
let handle: DatabaseHandle

beforeAll(async () => {
  testDb = await createTestDatabase()
  handle = openDatabase(testDb.url)
  const big = testDatabaseKind === 'postgres' ? sql`bigint` : sql`integer`
  await sql`create table bulk_probe (id integer primary key, t text not null, v varchar(64), n integer,
    f double precision, big ${big})`.execute(handle.db)
})
afterAll(async () => {
  await handle.close()
  await testDb.drop()
})
beforeEach(async () => {
  await sql`delete from bulk_probe`.execute(handle.db)
})

interface Probe {
  id: number
  t: string
  v: string | null
  n: number | null
  f: number | null
  big: number | null
}

/** The rows, by id; Postgres gives a bigint back as text. */
const read = async () =>
  (
    await sql<Omit<Probe, 'big'> & { big: number | string | null }>`select id, t, v, n, f, big from bulk_probe
      order by id`.execute(handle.db)
  ).rows.map((r) => ({ ...r, big: r.big === null ? null : Number(r.big) }))

/** Any text of whole code points up to `maxLength` of them, but NUL. */
const text = (maxLength: number) => fc.string({ unit: 'binary', maxLength }).map((s) => s.replaceAll('\0', ''))

/** Text with separators, escapes, JSON's own characters and other scripts, nulls and numbers at their edges. */
const TRICKY: Probe[] = [
  { id: 1, t: 'tab\there', v: 'line\nbreak', n: 0, f: 1.5, big: 2 ** 40 },
  { id: 2, t: 'back\\slash, "quotes" and \\N', v: null, n: -7, f: -0.25, big: null },
  { id: 3, t: 'carriage\r\nreturn', v: '', n: null, f: null, big: 0 },
  { id: 4, t: '\\', v: '\\t not a tab', n: 2_147_483_647, f: 1e-9, big: -1 },
  { id: 5, t: 'École 🚀 東京 \u202e', v: 'end\\', n: 1, f: 123456.789, big: 9_007_199_254_740_991 },
  { id: 6, t: '', v: '\t[1, {"a": 2}]', n: 2, f: 0, big: 3 },
]

for (const [name, write] of [
  ['insertRows', insertRows],
  ['insertRowsInOneStatement', insertRowsInOneStatement],
] as const) {
  it(`${name} gives back any text it was given (but NUL, which Postgres text cannot hold)`, async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(text(40), text(10)), { minLength: 1, maxLength: 20 }), async (texts) => {
        await sql`delete from bulk_probe`.execute(handle.db)
        const rows = texts.map(([t, v], id) => ({ id, t, v, n: null, f: null, big: null }))
        await write(handle.db, PROBE, flattenRows(rows))
        expect(await read()).toEqual(rows)
      }),
      { numRuns: 60 },
    )
  })
}

describe('insertRows', () => {
  it('writes text with separators, escapes and other scripts, nulls and numbers as they were', async () => {
    await insertRows(handle.db, PROBE, flattenRows(TRICKY))
    expect(await read()).toEqual(TRICKY)
  })

  it('writes many rows in one call, past a chunk of the stream', async () => {
    const rows = Array.from({ length: 5_000 }, (_, i) => ({
      id: i,
      t: `row ${String(i)}\t${'x'.repeat(i % 50)}`,
      v: i % 3 === 0 ? null : `v\n${String(i)}`,
      n: i,
      f: i / 8,
      big: i * 1_000_000,
    }))
    await insertRows(handle.db, PROBE, flattenRows(rows))
    expect(await read()).toEqual(rows)
  })

  it('fails whole on a row that breaks a constraint, leaves nothing in the transaction, and the database goes on', async () => {
    await insertRows(handle.db, PROBE, flattenRows([{ id: 1, t: 'kept', v: null, n: null, f: null, big: null }]))
    const rows = [2, 3, 1, 4].map((id) => ({ id, t: `new ${String(id)}`, v: null, n: null, f: null, big: null }))
    await expect(
      handle.db.transaction().execute(async (tx) => {
        await insertRows(tx, PROBE, flattenRows([{ id: 10, t: 'before', v: null, n: null, f: null, big: null }]))
        await insertRows(tx, PROBE, flattenRows(rows))
      }),
    ).rejects.toThrow(/unique|UNIQUE|duplicate/)
    expect((await read()).map((r) => r.t)).toEqual(['kept'])
    // The pool's connections still work, the one that failed included.
    await Promise.all(
      [20, 21, 22].map((id) =>
        insertRows(handle.db, PROBE, flattenRows([{ id, t: 'after', v: null, n: null, f: null, big: null }])),
      ),
    )
    expect((await read()).map((r) => r.id)).toEqual([1, 20, 21, 22])
  })

  it('refuses a value it has no text form for, writing nothing', async () => {
    const rows = [
      { id: 1, t: 'a', v: null, n: null, f: null, big: null },
      { id: 2, t: { nested: true }, v: null, n: null, f: null, big: null },
    ]
    await expect(insertRows(handle.db, PROBE, flattenRows(rows))).rejects.toThrow(TypeError)
    expect(await read()).toEqual([])
    await insertRows(handle.db, PROBE, flattenRows(rows.slice(0, 1)))
    expect((await read()).map((r) => r.t)).toEqual(['a'])
  })
})

describe('insertRowsInOneStatement', () => {
  it('writes text, nulls and numbers as they were, in one statement however many rows', async () => {
    const many = Array.from({ length: 1_500 }, (_, i) => ({
      id: 100 + i,
      t: `row ${String(i)}`,
      v: null,
      n: i,
      f: i / 8,
      big: i,
    }))
    const changed = await handle.db.transaction().execute(async (tx) => {
      await insertRowsInOneStatement(tx, PROBE, flattenRows([...TRICKY, ...many]))
      // SQLite: the rows the last statement wrote, all of them (insertRows' last list would hold 2^k rows).
      return testDatabaseKind === 'sqlite'
        ? (await sql<{ n: number }>`select changes() as n`.execute(tx)).rows[0]?.n
        : 0
    })
    expect(await read()).toEqual([...TRICKY, ...many])
    if (testDatabaseKind === 'sqlite') expect(changed).toBe(TRICKY.length + many.length)
  })

  it('stores the same bytes a bound string is stored as, lone surrogates and NUL included (SQLite)', async () => {
    const odd = ['a\uD800b', '\uDC00', 'x\u0000y', '\uD83D\uDE80\uD83D', '\u2028\u2029\u007f']
    const stored = async () =>
      (await sql<{ h: string }>`select hex(t) as h from bulk_probe order by id`.execute(handle.db)).rows.map((r) => r.h)
    const probes = odd.map((t, id) => ({ id, t, v: null, n: null, f: null, big: null }))
    if (testDatabaseKind === 'postgres') {
      // Postgres text holds neither; what goes is insertRows' COPY, tested above.
      await expect(insertRowsInOneStatement(handle.db, PROBE, flattenRows(probes))).rejects.toThrow()
      return
    }
    await insertRows(handle.db, PROBE, flattenRows(probes))
    const bound = await stored()
    await sql`delete from bulk_probe`.execute(handle.db)
    await insertRowsInOneStatement(handle.db, PROBE, flattenRows(probes))
    expect(await stored()).toEqual(bound)
  })

  it('refuses a value that is not text, a number or null, writing nothing', async () => {
    const given = [
      { id: 1, t: 'a', v: null, n: null, f: null, big: null },
      { id: 2, t: 'b', v: null, n: true, f: null, big: null },
    ]
    await expect(insertRowsInOneStatement(handle.db, PROBE, flattenRows(given))).rejects.toThrow()
    expect(await read()).toEqual([])
  })
})

describe("COPY's text form of a value", () => {
  it('writes null as \\N, escapes the separators and the backslash, and leaves other text alone', () => {
    expect(copyText(null)).toBe('\\N')
    expect(copyText(undefined)).toBe('\\N')
    expect(copyText('\\N')).toBe('\\\\N')
    expect(copyText('a\tb\nc\rd\\e')).toBe('a\\tb\\nc\\rd\\\\e')
    expect(copyText('plain, "quoted"; 東京')).toBe('plain, "quoted"; 東京')
  })

  it('writes numbers, flags and instants as Postgres reads them, and refuses anything else', () => {
    expect(copyText(-1.5)).toBe('-1.5')
    expect(copyText(12n)).toBe('12')
    expect(copyText(true)).toBe('t')
    expect(copyText(false)).toBe('f')
    expect(copyText(new Date(Date.UTC(2026, 11, 5, 8, 30)))).toBe('2026-12-05T08:30:00.000Z')
    expect(() => copyText({ a: 1 })).toThrow(TypeError)
    expect(() => copyText([1])).toThrow(TypeError)
  })
})
