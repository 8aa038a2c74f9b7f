import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { LeadIds } from './lead-ids.js'

/** What the table replaced: the ids by ordinal ('' once gone) and a map of the live ones. */
class Model {
  readonly ids: string[] = []
  readonly ordinals = new Map<string, number>()
  add(id: string): number {
    this.ids.push(id)
    this.ordinals.set(id, this.ids.length - 1)
    return this.ids.length - 1
  }
  delete(ordinal: number): void {
    const id = this.ids[ordinal]
    if (id === undefined) return
    if (this.ordinals.get(id) === ordinal) this.ordinals.delete(id)
    this.ids[ordinal] = ''
  }
}

const leadId = fc.stringMatching(/^[0-9A-Za-z]{43}$/).map((s) => `lead_${s}`)
/** Ids of any length and characters: short, empty, past ASCII, past 0xff, a lead id's prefix. */
const anyId = fc.oneof(
  leadId,
  fc.string({ maxLength: 6 }),
  fc.string({ unit: 'binary', maxLength: 6 }),
  fc.constantFrom('', 'lead_', 'é', 'lead_ü', '\u0100', 'lead_\u{1f600}'),
)

describe('lead ids packed by ordinal', () => {
  it('answers as an array and a map of the ids would, through adds, finds and deletes past each growth', () => {
    const step = fc.oneof(
      { weight: 6, arbitrary: fc.record({ add: anyId }) },
      { weight: 2, arbitrary: fc.record({ remove: fc.nat() }) },
      { weight: 1, arbitrary: fc.record({ many: fc.integer({ min: 500, max: 3000 }) }) },
    )
    fc.assert(
      fc.property(fc.array(step, { maxLength: 40 }), fc.array(anyId, { maxLength: 10 }), (steps, asked) => {
        const table = new LeadIds()
        const model = new Model()
        let n = 0
        const add = (id: string) => {
          // The index adds only an id with no live ordinal.
          if (model.ordinals.has(id)) return
          expect(table.getOrAdd(id)).toBe(model.add(id))
        }
        for (const s of steps) {
          // The index's path: the live ordinal if there is one, else the next.
          if ('add' in s) expect(table.getOrAdd(s.add)).toBe(model.ordinals.get(s.add) ?? model.add(s.add))
          else if ('remove' in s) {
            const ordinal = model.ids.length === 0 ? 0 : s.remove % model.ids.length
            table.delete(ordinal)
            model.delete(ordinal)
          } else for (let i = 0; i < s.many; i++) add(`lead_${String(n++).padStart(43, 'x')}`)
        }
        expect(table.extent).toBe(model.ids.length)
        for (const id of [...asked, ...model.ordinals.keys(), ...model.ids]) {
          expect(table.get(id), JSON.stringify(id)).toBe(model.ordinals.get(id))
        }
        for (let ordinal = -1; ordinal <= model.ids.length; ordinal++) {
          expect(table.idOf(ordinal)).toBe(model.ids[ordinal] ?? '')
          expect(table.has(ordinal)).toBe(model.ordinals.get(model.ids[ordinal] ?? '') === ordinal)
        }
      }),
    )
  })

  it('compares two ordinals as their ids compare by code unit', () => {
    fc.assert(
      fc.property(
        fc.array(anyId, { minLength: 1, maxLength: 30 }),
        fc.array(fc.nat(), { maxLength: 5 }),
        (ids, gone) => {
          const table = new LeadIds()
          const model = new Model()
          for (const id of new Set(ids)) expect(table.getOrAdd(id)).toBe(model.add(id))
          for (const g of gone) {
            table.delete(g % model.ids.length)
            model.delete(g % model.ids.length)
          }
          const sign = (x: string, y: string) => (x === y ? 0 : x < y ? -1 : 1)
          for (let a = 0; a < model.ids.length; a++) {
            for (let b = 0; b < model.ids.length; b++) {
              expect(table.compare(a, b)).toBe(sign(model.ids[a] ?? '', model.ids[b] ?? ''))
            }
          }
        },
      ),
    )
  })

  it('puts ordinals in the order of their ids, whether they come in it or not', () => {
    fc.assert(
      fc.property(fc.uniqueArray(anyId, { minLength: 1, maxLength: 40 }), fc.boolean(), (ids, inOrder) => {
        const table = new LeadIds()
        for (const id of ids) table.getOrAdd(id)
        const byId = ids.map((_, ordinal) => ordinal).sort((a, b) => ((ids[a] ?? '') < (ids[b] ?? '') ? -1 : 1))
        const given = inOrder ? [...byId] : ids.map((_, ordinal) => ordinal).reverse()
        expect(table.sortedById(given)).toEqual(byId)
      }),
    )
  })

  it('holds a million lead ids: each found by its ordinal and its ordinal by it, a deleted one no more', () => {
    const table = new LeadIds()
    const ids: string[] = []
    for (let i = 0; i < 1_000_000; i++) ids.push(`lead_${i.toString(36).padStart(43, '0')}`)
    for (const id of ids) table.getOrAdd(id)
    for (let i = 0; i < ids.length; i += 997) {
      expect(table.get(ids[i] ?? '')).toBe(i)
      expect(table.idOf(i)).toBe(ids[i])
    }
    expect(table.get(`lead_${'z'.repeat(43)}`)).toBeUndefined()
    for (let i = 0; i < ids.length; i += 2) table.delete(i)
    expect(table.get(ids[2] ?? '')).toBeUndefined()
    expect(table.get(ids[3] ?? '')).toBe(3)
  })
})
