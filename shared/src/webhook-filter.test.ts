import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  describeWebhookFilterProblem,
  isWebhookFilter,
  jsonEqual,
  webhookFilterMatches,
  webhookFilterProblem,
  WEBHOOK_FILTER_MAX_DEPTH,
  WEBHOOK_FILTER_MAX_PARTS,
  WEBHOOK_FILTER_TYPES,
  type JsonValue,
  type WebhookFilter,
} from './webhook-filter.js'

const event = {
  id: 'ev_1',
  object_type: 'opportunity',
  action: 'updated',
  user_id: 'user_ada',
  lead_id: 'lead_1',
  data: {
    id: 'oppo_1',
    status_label: 'Won',
    note: 'Renewal for the West region',
    tags: ['big', 'renewal'],
    contacts: [
      { name: 'Ada', emails: [{ email: 'ada@example.com', type: 'office' }] },
      { name: 'Bob', emails: [] },
    ],
    value: 150000,
    contact_id: null,
  },
  previous_data: { status_label: 'Demo' },
  changed_fields: ['status_id', 'status_label'],
}

const field = (name: string, filter: WebhookFilter): WebhookFilter => ({ type: 'field_accessor', field: name, filter })
const equals = (value: JsonValue): WebhookFilter => ({ type: 'equals', value })
const not = (filter: WebhookFilter): WebhookFilter => ({ type: 'not', filter })
const matches = (filter: WebhookFilter, on: unknown = event) => webhookFilterMatches(filter, on)

describe('webhookFilterMatches', () => {
  it('compares a field with equals and not_equals', () => {
    expect(matches(field('user_id', equals('user_ada')))).toBe(true)
    expect(matches(field('user_id', equals('user_bob')))).toBe(false)
    expect(matches(field('user_id', { type: 'not_equals', value: 'user_bob' }))).toBe(true)
    expect(matches(field('data', field('value', equals(150000))))).toBe(true)
    expect(matches(field('data', field('value', equals('150000'))))).toBe(false)
  })

  it('compares lists in order and objects whatever their key order', () => {
    expect(matches(field('changed_fields', equals(['status_id', 'status_label'])))).toBe(true)
    expect(matches(field('changed_fields', equals(['status_label', 'status_id'])))).toBe(false)
    expect(matches(field('changed_fields', equals(['status_id'])))).toBe(false)
    expect(matches(field('previous_data', equals({ status_label: 'Demo' })))).toBe(true)
    expect(matches(field('previous_data', equals({ status_label: 'Demo', x: null })))).toBe(false)
    expect(matches(field('previous_data', equals({})))).toBe(false)
    expect(jsonEqual({ a: 1, b: [1, { c: 2 }] }, { b: [1, { c: 2 }], a: 1 })).toBe(true)
    expect(jsonEqual([1, 2], { 0: 1, 1: 2 })).toBe(false)
    expect(jsonEqual({ 0: 1, 1: 2 }, [1, 2])).toBe(false)
    expect(jsonEqual(null, {})).toBe(false)
  })

  it('treats a missing field, and any field of a non-object, as null', () => {
    expect(matches(field('nope', { type: 'is_null' }))).toBe(true)
    expect(matches(field('nope', equals(null)))).toBe(true)
    expect(matches(field('data', field('contact_id', { type: 'is_null' })))).toBe(true)
    expect(matches(field('data', field('note', { type: 'non_null' })))).toBe(true)
    expect(matches(field('user_id', field('length', { type: 'is_null' })))).toBe(true)
    expect(matches(field('changed_fields', field('0', { type: 'is_null' })))).toBe(true)
    // Only the object's own members: nothing inherited from its prototype.
    expect(matches(field('constructor', { type: 'is_null' }))).toBe(true)
    expect(matches(field('__proto__', { type: 'is_null' }))).toBe(true)
    expect(matches(field('__proto__', equals(1)), JSON.parse('{"__proto__": 1}'))).toBe(true)
  })

  it('finds an item in a list, or a part of a string, with contains', () => {
    expect(matches(field('changed_fields', { type: 'contains', value: 'status_label' }))).toBe(true)
    expect(matches(field('changed_fields', { type: 'contains', value: 'status' }))).toBe(false)
    expect(matches(field('data', field('note', { type: 'contains', value: 'West' })))).toBe(true)
    expect(matches(field('data', field('note', { type: 'contains', value: 'west' })))).toBe(false)
    expect(matches(field('data', field('value', { type: 'contains', value: 1500 })))).toBe(false)
    expect(matches(field('data', field('contacts', { type: 'contains', value: { name: 'Bob', emails: [] } })))).toBe(
      true,
    )
    expect(matches(field('nope', { type: 'contains', value: null }))).toBe(false)
  })

  it('matches any item of a list with any_array_value, and never anything else', () => {
    const withEmail = (email: string) =>
      field(
        'data',
        field('contacts', {
          type: 'any_array_value',
          filter: field('emails', { type: 'any_array_value', filter: field('email', equals(email)) }),
        }),
      )
    expect(matches(withEmail('ada@example.com'))).toBe(true)
    expect(matches(withEmail('bob@example.com'))).toBe(false)
    expect(matches(field('user_id', { type: 'any_array_value', filter: { type: 'non_null' } }))).toBe(false)
    expect(matches(field('data', { type: 'any_array_value', filter: { type: 'non_null' } }))).toBe(false)
    expect(matches(field('tags', { type: 'any_array_value', filter: { type: 'non_null' } }), { tags: [] })).toBe(false)
  })

  it('combines with and, or and not', () => {
    const won = field('data', field('status_label', equals('Won')))
    const mine = field('user_id', equals('user_ada'))
    const bobs = field('user_id', equals('user_bob'))
    expect(matches({ type: 'and', filters: [won, mine] })).toBe(true)
    expect(matches({ type: 'and', filters: [won, bobs] })).toBe(false)
    expect(matches({ type: 'or', filters: [bobs, won] })).toBe(true)
    expect(matches({ type: 'or', filters: [bobs, not(won)] })).toBe(false)
    expect(matches({ type: 'and', filters: [] })).toBe(true)
    expect(matches({ type: 'or', filters: [] })).toBe(false)
  })

  it("runs Close's documented example: status changed away from Demo", () => {
    const filter: WebhookFilter = {
      type: 'and',
      filters: [
        field('changed_fields', { type: 'contains', value: 'status_label' }),
        field('previous_data', field('status_label', equals('Demo'))),
      ],
    }
    expect(matches(filter)).toBe(true)
    expect(matches(filter, { ...event, previous_data: { status_label: 'Lost' } })).toBe(false)
    expect(matches(filter, { ...event, previous_data: {}, changed_fields: [] })).toBe(false)
  })

  it('applies to the whole event when used without a field', () => {
    expect(matches({ type: 'non_null' }, null)).toBe(false)
    expect(webhookFilterMatches({ type: 'is_null' }, undefined)).toBe(true)
    expect(matches(equals([1, 2]), [1, 2])).toBe(true)
  })
})

describe('webhookFilterProblem', () => {
  const problemOf = (input: unknown) => {
    const problem = webhookFilterProblem(input)
    return problem === undefined ? undefined : describeWebhookFilterProblem(problem)
  }

  it('accepts every type with its members', () => {
    const all: WebhookFilter[] = [
      equals({ a: [1, 'x', null, true] }),
      { type: 'not_equals', value: null },
      { type: 'is_null' },
      { type: 'non_null' },
      { type: 'contains', value: 'x' },
      { type: 'and', filters: [] },
      { type: 'or', filters: [{ type: 'is_null' }] },
      not({ type: 'is_null' }),
      field('data', { type: 'is_null' }),
      { type: 'any_array_value', filter: { type: 'is_null' } },
    ]
    expect(all.map((f) => f.type).sort()).toEqual([...WEBHOOK_FILTER_TYPES].sort())
    for (const filter of all) expect(problemOf(filter)).toBeUndefined()
    expect(isWebhookFilter(all[0])).toBe(true)
    expect(isWebhookFilter({ type: 'nope' })).toBe(false)
  })

  it('names the path of an unknown type', () => {
    expect(
      problemOf({ type: 'or', filters: [{ type: 'is_null' }, { type: 'not', filter: { type: 'equal', value: 1 } }] }),
    ).toBe(
      `extra_filter.filters[1].filter.type: unknown filter type "equal" (one of ${WEBHOOK_FILTER_TYPES.join(', ')})`,
    )
    expect(webhookFilterProblem({ type: 'and', filters: [{ type: 'nope' }] })?.path).toEqual(['filters', 0, 'type'])
  })

  it('names a missing member', () => {
    expect(problemOf({ type: 'equals' })).toBe('extra_filter.value: an "equals" filter needs "value"')
    expect(problemOf({ type: 'and' })).toBe('extra_filter.filters: an "and" filter needs "filters"')
    expect(problemOf({ type: 'not' })).toBe('extra_filter.filter: a "not" filter needs "filter"')
    expect(problemOf({ type: 'field_accessor', filter: { type: 'is_null' } })).toBe(
      'extra_filter.field: a "field_accessor" filter needs "field"',
    )
    expect(problemOf({ value: 1 })).toBe('extra_filter.type: missing "type"')
  })

  it('refuses members of the wrong type, and members a type does not take', () => {
    expect(problemOf({ type: 7 })).toBe('extra_filter.type: "type" must be a string')
    expect(problemOf({ type: 'and', filters: { type: 'is_null' } })).toBe(
      'extra_filter.filters: "filters" must be a list of filters',
    )
    expect(problemOf({ type: 'not', filter: [] })).toBe(
      'extra_filter.filter: must be a filter object such as {"type": "is_null"}',
    )
    expect(problemOf({ type: 'field_accessor', field: 3, filter: { type: 'is_null' } })).toBe(
      'extra_filter.field: "field" must be a non-empty string',
    )
    expect(problemOf({ type: 'field_accessor', field: '', filter: { type: 'is_null' } })).toBe(
      'extra_filter.field: "field" must be a non-empty string',
    )
    expect(problemOf({ type: 'is_null', value: null })).toBe(
      'extra_filter.value: unknown member "value" of an "is_null" filter',
    )
    expect(problemOf({ type: 'equals', value: 1, values: [1] })).toBe(
      'extra_filter.values: unknown member "values" of an "equals" filter',
    )
    expect(problemOf('equals')).toBe('extra_filter: must be a filter object such as {"type": "is_null"}')
    expect(problemOf(null)).toBe('extra_filter: must be a filter object such as {"type": "is_null"}')
    expect(problemOf(JSON.parse('{"type": "is_null", "__proto__": {"type": "x"}}'))).toBe(
      'extra_filter.__proto__: unknown member "__proto__" of an "is_null" filter',
    )
    expect(problemOf({ type: 'toString' })).toMatch(/^extra_filter\.type: unknown filter type "toString"/)
  })

  it('refuses values that are not JSON (from code; a request body is always JSON)', () => {
    expect(problemOf(equals(Number.NaN))).toBe('extra_filter.value: not a JSON value')
    expect(problemOf({ type: 'equals', value: { at: new Date(0) } })).toBe('extra_filter.value.at: not a JSON value')
    expect(problemOf({ type: 'equals', value: [undefined] })).toBe('extra_filter.value[0]: not a JSON value')
  })

  it('limits depth, counting the values inside filters', () => {
    let filter: WebhookFilter = { type: 'is_null' }
    for (let i = 1; i < WEBHOOK_FILTER_MAX_DEPTH; i++) filter = not(filter)
    expect(problemOf(filter)).toBeUndefined()
    expect(problemOf(not(filter))).toMatch(/nest deeper than 32 levels$/)
    // The filter is level 1, its value level 2: a scalar in 30 lists is at level 32, in 31 one too deep.
    let value: JsonValue = 1
    for (let i = 2; i < WEBHOOK_FILTER_MAX_DEPTH; i++) value = [value]
    expect(problemOf(equals(value))).toBeUndefined()
    expect(problemOf(equals([value]))).toMatch(/^extra_filter\.value(\[0\]){31}: filters and values nest deeper/)
    // A cycle (possible only from code) ends at the depth limit instead of recursing forever.
    const cyclic: Record<string, unknown> = { type: 'not' }
    cyclic.filter = cyclic
    expect(problemOf(cyclic)).toMatch(/nest deeper than 32 levels$/)
  })

  it('limits size', () => {
    const wide = (n: number): WebhookFilter => ({
      type: 'or',
      filters: Array.from({ length: n }, () => ({ type: 'is_null' })),
    })
    expect(problemOf(wide(WEBHOOK_FILTER_MAX_PARTS - 1))).toBeUndefined()
    expect(problemOf(wide(WEBHOOK_FILTER_MAX_PARTS))).toBe(
      `extra_filter: the filter has more than ${WEBHOOK_FILTER_MAX_PARTS} parts`,
    )
    expect(problemOf(equals(Array.from({ length: WEBHOOK_FILTER_MAX_PARTS }, (_, i) => i)))).toBe(
      `extra_filter: the filter has more than ${WEBHOOK_FILTER_MAX_PARTS} parts`,
    )
  })

  it('can describe a path under another root', () => {
    const problem = webhookFilterProblem({ type: 'and', filters: [{}] })
    expect(problem && describeWebhookFilterProblem(problem, 'events[0].extra_filter')).toBe(
      'events[0].extra_filter.filters[0].type: missing "type"',
    )
  })
})

/** fast-check's JSON type allows members that are undefined; it never makes them, and JSON has none. */
function fromFastCheck(v: fc.JsonValue): JsonValue {
  if (Array.isArray(v)) return v.map(fromFastCheck)
  if (v === null || typeof v !== 'object') return v
  return Object.fromEntries(
    Object.entries(v).flatMap(([key, x]) => (x === undefined ? [] : [[key, fromFastCheck(x)] as const])),
  )
}

// Properties over generated filters and events. Field names and values come from small pools so that generated
// filters often match generated events.
const FIELDS = ['user_id', 'data', 'status', 'tags', 'x']
const scalar = fc.constantFrom<JsonValue>('a', 'b', 'ab', 1, 2, true, false, null)
const value: fc.Arbitrary<JsonValue> = fc.oneof(
  { weight: 4, arbitrary: scalar },
  { weight: 1, arbitrary: fc.array(scalar, { maxLength: 3 }) },
  { weight: 1, arbitrary: fc.dictionary(fc.constantFrom(...FIELDS), scalar, { maxKeys: 2 }) },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }).map(fromFastCheck) },
)

const filterOf: fc.Memo<WebhookFilter> = fc.memo((n) => {
  const leaf = fc.oneof(
    fc.record({ type: fc.constant('equals' as const), value }),
    fc.record({ type: fc.constant('not_equals' as const), value }),
    fc.record({ type: fc.constant('is_null' as const) }),
    fc.record({ type: fc.constant('non_null' as const) }),
    fc.record({ type: fc.constant('contains' as const), value }),
  )
  if (n <= 1) return leaf
  const inner = filterOf(n - 1)
  return fc.oneof(
    { weight: 2, arbitrary: leaf },
    {
      weight: 1,
      arbitrary: fc.record({ type: fc.constant('and' as const), filters: fc.array(inner, { maxLength: 3 }) }),
    },
    {
      weight: 1,
      arbitrary: fc.record({ type: fc.constant('or' as const), filters: fc.array(inner, { maxLength: 3 }) }),
    },
    { weight: 1, arbitrary: fc.record({ type: fc.constant('not' as const), filter: inner }) },
    {
      weight: 3,
      arbitrary: fc.record({
        type: fc.constant('field_accessor' as const),
        field: fc.constantFrom(...FIELDS),
        filter: inner,
      }),
    },
    { weight: 1, arbitrary: fc.record({ type: fc.constant('any_array_value' as const), filter: inner }) },
  )
})
const filter = filterOf(5)

const eventValue: fc.Arbitrary<JsonValue> = fc.letrec<{ node: JsonValue }>((tie) => ({
  node: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    scalar,
    fc.array(tie('node'), { maxLength: 3 }),
    fc.dictionary(fc.constantFrom(...FIELDS), tie('node'), { maxKeys: 4 }),
  ),
})).node
const anyEvent = fc.oneof(eventValue, fc.jsonValue().map(fromFastCheck))

describe('webhook filter properties', () => {
  it('accepts every well-formed filter, also after a JSON round trip', () => {
    fc.assert(
      fc.property(filter, (f) => {
        expect(webhookFilterProblem(f)).toBeUndefined()
        expect(webhookFilterProblem(JSON.parse(JSON.stringify(f)))).toBeUndefined()
      }),
    )
  })

  it('evaluates every filter on every JSON event without throwing', () => {
    fc.assert(fc.property(filter, anyEvent, (f, e) => typeof webhookFilterMatches(f, e) === 'boolean'))
  })

  it('validates any input without throwing', () => {
    fc.assert(
      fc.property(fc.anything(), (input) => {
        expect(() => webhookFilterProblem(input)).not.toThrow()
      }),
    )
    fc.assert(
      fc.property(fc.jsonValue(), (input) => {
        const problem = webhookFilterProblem(input)
        expect(problem === undefined).toBe(isWebhookFilter(input))
      }),
    )
  })

  it('negates with not', () => {
    fc.assert(fc.property(filter, anyEvent, (f, e) => matches(not(f), e) === !matches(f, e)))
  })

  it('matches and([]) always and or([]) never', () => {
    fc.assert(
      fc.property(anyEvent, (e) => {
        expect(matches({ type: 'and', filters: [] }, e)).toBe(true)
        expect(matches({ type: 'or', filters: [] }, e)).toBe(false)
      }),
    )
  })

  it('agrees with every and some of the members of and and or', () => {
    fc.assert(
      fc.property(fc.array(filter, { maxLength: 4 }), anyEvent, (filters, e) => {
        expect(matches({ type: 'and', filters }, e)).toBe(filters.every((f) => matches(f, e)))
        expect(matches({ type: 'or', filters }, e)).toBe(filters.some((f) => matches(f, e)))
      }),
    )
  })

  it('sees null through field_accessor on a missing field or a non-object', () => {
    fc.assert(
      fc.property(fc.constantFrom(...FIELDS), filter, anyEvent, (name, f, e) => {
        const without =
          typeof e === 'object' && e !== null && !Array.isArray(e)
            ? Object.fromEntries(Object.entries(e).filter(([key]) => key !== name))
            : e
        expect(matches(field(name, f), without)).toBe(matches(f, null))
      }),
    )
  })

  it('makes equals and not_equals complements', () => {
    fc.assert(
      fc.property(value, anyEvent, (v, e) => matches(equals(v), e) !== matches({ type: 'not_equals', value: v }, e)),
    )
  })

  it('finds an equal value equal, whatever the order of its keys', () => {
    fc.assert(
      fc.property(fc.jsonValue().map(fromFastCheck), (v) => {
        const reordered: unknown = JSON.parse(JSON.stringify(v, (_key, x: unknown) => reverseKeys(x)))
        expect(matches(equals(v), reordered)).toBe(true)
      }),
    )
  })
})

function reverseKeys(x: unknown): unknown {
  if (typeof x !== 'object' || x === null || Array.isArray(x)) return x
  return Object.fromEntries(Object.entries(x).reverse())
}
