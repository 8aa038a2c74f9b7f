import fc from 'fast-check'
import peggy from 'peggy'
import { describe, expect, it } from 'vitest'
import { leadSearchGrammar } from '../../tooling/test-support/search-grammars.js'
import { SearchQueryError as LeadQueryError } from '../../platform/text/search-parse.js'
import type { Comparator } from '../../platform/text/search-tree.js'
import { normalizeLeadQuery, parseLeadQuery, printLeadQuery, type Expr, type LeadQuery } from './lead-search-parse.js'

const text = (value: string): Expr => ({ kind: 'text', value })
const field = (name: string, op: Comparator, value: string, offset: number): Expr => ({
  kind: 'field',
  field: name,
  op,
  value,
  offset,
})
const and = (...items: Expr[]): Expr => ({ kind: 'and', items })
const or = (...items: Expr[]): Expr => ({ kind: 'or', items })
const not = (expr: Expr): Expr => ({ kind: 'not', expr })

function where(query: string): Expr | null {
  return parseLeadQuery(query).where
}

/** The error a query is refused with, by parsing then normalizing. */
function refusal(query: string): LeadQueryError {
  try {
    normalizeLeadQuery(parseLeadQuery(query))
  } catch (error) {
    if (error instanceof LeadQueryError) return error
    throw error
  }
  throw new Error(`expected ${JSON.stringify(query)} to be refused`)
}

describe('parseLeadQuery: queries real clients send', () => {
  it('parses a quoted value', () => {
    expect(parseLeadQuery('name:"John Wehr"')).toEqual({ where: field('name', ':', 'John Wehr', 0), sort: [] })
  })

  it('ANDs an unquoted second word, trailing space and all', () => {
    expect(where('name:John Wehr ')).toEqual(and(field('name', ':', 'John', 0), text('Wehr')))
  })

  it('reads a quoted custom field name and keeps its case', () => {
    expect(where('"custom.Lead initials":JW ')).toEqual(field('custom.Lead initials', ':', 'JW', 0))
  })

  it('ORs with a lower-case keyword', () => {
    expect(where('status:qualified or status:customer')).toEqual(
      or(field('status', ':', 'qualified', 0), field('status', ':', 'customer', 20)),
    )
  })

  it('keeps an email address whole', () => {
    expect(where('email_address:bruce@wayneenterprises.com')).toEqual(
      field('email_address', ':', 'bruce@wayneenterprises.com', 0),
    )
  })

  it('takes sort out of the filter', () => {
    expect(parseLeadQuery('custom.my_field:"some value" status:"Potential" sort:updated')).toEqual({
      where: and(field('custom.my_field', ':', 'some value', 0), field('status', ':', 'Potential', 29)),
      sort: [{ field: 'updated', direction: 'asc', offset: 53 }],
    })
  })

  it('reads a comparison with a quoted timestamp', () => {
    expect(parseLeadQuery('date_updated>="2017-09-29T10:40" sort:date_updated')).toEqual({
      where: field('date_updated', '>=', '2017-09-29T10:40', 0),
      sort: [{ field: 'date_updated', direction: 'asc', offset: 38 }],
    })
  })
})

describe('parseLeadQuery: syntax', () => {
  it('returns no filter for an empty or blank query', () => {
    expect(parseLeadQuery('')).toEqual({ where: null, sort: [] })
    expect(parseLeadQuery(' \t\n ')).toEqual({ where: null, sort: [] })
  })

  it('binds OR looser than AND, implicit or explicit', () => {
    expect(where('a b OR c')).toEqual(or(and(text('a'), text('b')), text('c')))
    expect(where('a OR b c')).toEqual(or(text('a'), and(text('b'), text('c'))))
    expect(where('a AND b or c And d')).toEqual(or(and(text('a'), text('b')), and(text('c'), text('d'))))
  })

  it('flattens runs of the same operator, parenthesised or not', () => {
    expect(where('a b (c d) e')).toEqual(and(text('a'), text('b'), text('c'), text('d'), text('e')))
    expect(where('a OR (b OR c) OR d')).toEqual(or(text('a'), text('b'), text('c'), text('d')))
    expect(where('(a OR b) (c OR d)')).toEqual(and(or(text('a'), text('b')), or(text('c'), text('d'))))
  })

  it('groups with parentheses, with or without spaces around them', () => {
    expect(where('a (b OR c)')).toEqual(and(text('a'), or(text('b'), text('c'))))
    expect(where('( a OR b )c')).toEqual(and(or(text('a'), text('b')), text('c')))
    expect(where('((a))')).toEqual(text('a'))
  })

  it('negates with NOT or a leading minus', () => {
    expect(where('-status:lost')).toEqual(not(field('status', ':', 'lost', 1)))
    expect(where('-"foo bar"')).toEqual(not(text('foo bar')))
    expect(where('NOT a b')).toEqual(and(not(text('a')), text('b')))
    expect(where('not (a OR b)')).toEqual(not(or(text('a'), text('b'))))
    expect(where('a AND NOT -b')).toEqual(and(text('a'), not(not(text('b')))))
  })

  it('reads keywords without an operand as words', () => {
    expect(where('or')).toEqual(text('or'))
    expect(where('NOT')).toEqual(text('NOT'))
    expect(where('a or')).toEqual(and(text('a'), text('or')))
    expect(where('and a')).toEqual(and(text('and'), text('a')))
    expect(where('a AND ')).toEqual(and(text('a'), text('AND')))
    expect(where('(or)')).toEqual(text('or'))
    expect(where('orange android notes')).toEqual(and(text('orange'), text('android'), text('notes')))
    expect(where('or:x')).toEqual(field('or', ':', 'x', 0))
  })

  it('reads every comparator written without spaces', () => {
    for (const op of [':', '>', '>=', '<', '<='] as const) {
      expect(where(`contacts${op}3`)).toEqual(field('contacts', op, '3', 0))
    }
  })

  it('reads comparators with spaces around them', () => {
    expect(where('created > "last week"')).toEqual(field('created', '>', 'last week', 0))
    expect(where('custom.Employees >= 100')).toEqual(field('custom.Employees', '>=', '100', 0))
    expect(where('contacts >= 2')).toEqual(field('contacts', '>=', '2', 0))
    expect(where('created< 2026-01-01')).toEqual(field('created', '<', '2026-01-01', 0))
    expect(where('"custom.Lead initials"\t:\tJW')).toEqual(field('custom.Lead initials', ':', 'JW', 0))
    expect(where('a name : "b c" d')).toEqual(and(text('a'), field('name', ':', 'b c', 2), text('d')))
    expect(parseLeadQuery('sort : -name')).toEqual({
      where: null,
      sort: [{ field: 'name', direction: 'desc', offset: 8 }],
    })
  })

  it('still reads a word followed by a quoted phrase as two terms', () => {
    expect(where('acme "main st"')).toEqual(and(text('acme'), text('main st')))
    expect(where('"main st" acme')).toEqual(and(text('main st'), text('acme')))
    expect(where('a OR "b c"')).toEqual(or(text('a'), text('b c')))
    expect(where('name:x "y z"')).toEqual(and(field('name', ':', 'x', 0), text('y z')))
    expect(where('contacts>2 "x" -y')).toEqual(and(field('contacts', '>', '2', 0), text('x'), not(text('y'))))
  })

  it('lower-cases field names except after custom.', () => {
    expect(where('Status:Lost')).toEqual(field('status', ':', 'Lost', 0))
    expect(where('CUSTOM.MyField:X')).toEqual(field('custom.MyField', ':', 'X', 0))
  })

  it('keeps urls, times and signs in values, and needs quotes for spaces', () => {
    expect(where('url:https://example.com/a?b=c')).toEqual(field('url', ':', 'https://example.com/a?b=c', 0))
    expect(where('created>2017-09-29T10:40')).toEqual(field('created', '>', '2017-09-29T10:40', 0))
    expect(where('phone:"+1 415"')).toEqual(field('phone', ':', '+1 415', 0))
    expect(where('phone:+1 415')).toEqual(and(field('phone', ':', '+1', 0), text('415')))
  })

  it('unescapes \\" and \\\\ in quotes and keeps any other backslash', () => {
    expect(where(String.raw`"say \"hi\" \\ C:\temp"`)).toEqual(text(String.raw`say "hi" \ C:\temp`))
    expect(where(String.raw`name:"a\"b"`)).toEqual(field('name', ':', 'a"b', 0))
  })

  it('reads has: as a has term', () => {
    expect(where('has:contacts -has:email')).toEqual(
      and({ kind: 'has', what: 'contacts', offset: 0 }, not({ kind: 'has', what: 'email', offset: 14 })),
    )
  })

  it('collects several sort clauses anywhere outside parentheses', () => {
    expect(parseLeadQuery('sort:-created a OR b sort:name')).toEqual({
      where: or(text('a'), text('b')),
      sort: [
        { field: 'created', direction: 'desc', offset: 6 },
        { field: 'name', direction: 'asc', offset: 26 },
      ],
    })
    expect(parseLeadQuery('sort:name')).toEqual({ where: null, sort: [{ field: 'name', direction: 'asc', offset: 5 }] })
  })

  it('accepts any whitespace between terms', () => {
    expect(where('\ta\n\nOR\u00a0b  ')).toEqual(or(text('a'), text('b')))
  })
})

describe('parseLeadQuery: errors say where and why', () => {
  it.each([
    ['name:', 5, 'Unexpected end of query at column 6: expected a value'],
    ['name: ', 6, 'Unexpected end of query at column 7: expected a value'],
    ['name : )', 7, 'Unexpected ")" at column 8: expected a value'],
    ['name:)', 5, 'Unexpected ")" at column 6: expected a value'],
    ['(a', 2, 'Unexpected end of query at column 3: expected ")"'],
    ['((a) b', 6, 'Unexpected end of query at column 7: expected ")"'],
    ['a)', 1, 'Unexpected ")" at column 2: there is no "(" for it to close'],
    ['()', 1, 'Unexpected ")" at column 2: expected a search term'],
    ['a OR (', 6, 'Unexpected end of query at column 7: expected a search term'],
    [':John', 0, 'Unexpected ":" at column 1: a comparison needs a field name before it, like created>2017-09-29'],
    ['a (>= 2)', 3, 'Unexpected ">" at column 4: a comparison needs a field name before it, like created>2017-09-29'],
    ['ab\u0000c', 2, 'Unexpected NUL character at column 3: remove it'],
    ['name:"\u0000"', 6, 'Unexpected NUL character at column 7: remove it'],
    ['name:"John', 5, 'Unterminated quoted string at column 6: it needs a closing "'],
    [String.raw`a "b\"`, 2, 'Unterminated quoted string at column 3: it needs a closing "'],
    ['(sort:name)', 1, 'Misplaced sort at column 2: sort:field cannot be inside parentheses or negated'],
    ['-sort:name', 1, 'Misplaced sort at column 2: sort:field cannot be inside parentheses or negated'],
    ['sort>name', 0, 'Unexpected ">" after sort at column 1: write sort:field'],
    ['sort:-', 6, 'Missing sort field at column 7: write sort:field or sort:-field'],
    ['has>1', 0, 'Unexpected ">" after has at column 1: write has:contacts'],
  ])('%j', (query, offset, message) => {
    const error = (() => {
      try {
        parseLeadQuery(query)
      } catch (caught) {
        return caught
      }
      return undefined
    })()
    expect(error).toBeInstanceOf(LeadQueryError)
    expect(error).toMatchObject({ message, offset })
  })

  it('refuses more than 200 terms, pointing at the first one too many', () => {
    const words = (count: number) => Array.from({ length: count }, (_, i) => `w${String(i % 10)}`).join(' ')
    expect(parseLeadQuery(`${words(200)} sort:name`).where).toMatchObject({ kind: 'and' })
    expect(() => parseLeadQuery(words(201))).toThrow(
      new LeadQueryError('Too many search terms at column 601: use at most 200', 600),
    )
    const fields = Array.from({ length: 201 }, (_, i) => `(name:x${String(i)} OR -has:email)`).join(' ')
    expect(() => parseLeadQuery(fields)).toThrow('Too many search terms at column 2492: use at most 200')
  })

  it('refuses nesting past 32 levels, and stack-deep nesting, as a query error', () => {
    expect(where(`${'('.repeat(32)}a${')'.repeat(32)}`)).toEqual(text('a'))
    expect(() => parseLeadQuery(`${'('.repeat(33)}a${')'.repeat(33)}`)).toThrow(
      'Query nested too deeply at column 33: use at most 32 levels',
    )
    expect(() => parseLeadQuery(`${'-'.repeat(40)}a`)).toThrow(LeadQueryError)
    expect(() => parseLeadQuery('('.repeat(100_000))).toThrow(LeadQueryError)
  })

  it('parses and refuses nested groups in linear time', () => {
    const nested = (depth: number) => `${'(a OR '.repeat(depth)}b${')'.repeat(depth)}`
    const startedAt = performance.now()
    expect(() => parseLeadQuery(nested(30))).not.toThrow()
    expect(() => parseLeadQuery(nested(30).slice(0, -1))).toThrow('expected ")"')
    expect(() => parseLeadQuery(`${'(a AND '.repeat(30)}b`)).toThrow('expected ")"')
    expect(performance.now() - startedAt).toBeLessThan(1000)
  })
})

describe('normalizeLeadQuery', () => {
  it('resolves aliases and lower-cases has: targets and sort fields', () => {
    expect(
      normalizeLeadQuery(parseLeadQuery('email:a@b.c created<today HAS:Phone sort:-Updated sort:created')),
    ).toEqual({
      where: and(field('email_address', ':', 'a@b.c', 0), field('date_created', '<', 'today', 12), {
        kind: 'has',
        what: 'phone',
        offset: 26,
      }),
      sort: [
        { field: 'date_updated', direction: 'desc', offset: 42 },
        { field: 'date_created', direction: 'asc', offset: 55 },
      ],
    })
  })

  it('sorts by the list columns: status, primary contact, email and phone, url, description, the summaries, custom fields', () => {
    const query = normalizeLeadQuery(
      parseLeadQuery(
        'sort:Status sort:-status_label sort:contact_name sort:primary_contact sort:email sort:PHONE sort:url ' +
          'sort:description sort:-last_activity sort:opportunity_value sort:next_task sort:"-Custom.Deal Size"',
      ),
    )
    expect(query.sort.map((s) => `${s.direction === 'desc' ? '-' : ''}${s.field}`)).toEqual([
      'status',
      '-status',
      'contact_name',
      'contact_name',
      'email_address',
      'phone',
      'url',
      'description',
      '-last_activity',
      'opportunity_value',
      'next_task',
      '-custom.Deal Size',
    ])
  })

  it('accepts comparisons on dates, counts and custom fields', () => {
    const query = parseLeadQuery(
      'date_updated>="2017-09-29T10:40" date_updated<"3 days ago" contacts>=2 tasks:0 custom.score>7 -opportunities<1',
    )
    expect(normalizeLeadQuery(query)).toEqual(query)
  })

  it('accepts every known field and has: target', () => {
    const fields = [
      'name status status_id status_label description url contact_name email_address phone city state country',
      'zipcode address id lead_id',
    ].join(' ')
    const query = parseLeadQuery(
      `${fields
        .split(' ')
        .map((name) => `${name}:x`)
        .join(' ')} has:contacts has:email has:phone ` +
        'has:opportunities has:tasks has:address has:url sort:name sort:date_created sort:date_updated',
    )
    expect(normalizeLeadQuery(query)).toEqual(query)
  })

  it.each([
    ['foo:bar', 0, 'Unknown field "foo" at column 1: search name, status,'],
    ['a "Foo Bar":x', 2, 'Unknown field "foo bar" at column 3'],
    ['name>x', 0, 'Unexpected ">" after name at column 1: only date, count and custom fields can be compared'],
    ['a OR -email<=x', 6, 'Unexpected "<=" after email at column 7'],
    ['contacts>abc', 0, 'Invalid count "abc" for contacts at column 1: expected a whole number like contacts>2'],
    ['tasks:-1', 0, 'Invalid count "-1" for tasks at column 1'],
    [
      'sort:color',
      5,
      'Unknown sort field "color" at column 6: sort by name, created, updated, status, contact_name, email, phone,',
    ],
    ['a sort:-city', 8, 'Unknown sort field "city" at column 9'],
    ['sort:constructor', 5, 'Unknown sort field "constructor" at column 6'],
    ['sort:custom.', 5, 'Missing custom field name at column 6: write sort:custom.<field>'],
    ['has:color', 0, 'Unknown has:color at column 1: use has: with contacts, email, phone, opportunities, tasks'],
    ['created:soon', 0, 'Unrecognised date "soon" at column 1: use YYYY-MM-DD,'],
    ['x updated>2017-02-30', 2, 'Invalid date "2017-02-30" at column 3: there is no such day'],
    ['"custom.":x', 0, 'Missing custom field name at column 1: write custom.<field name or id>'],
    ['addresses>many', 0, 'Invalid count "many" for addresses at column 1: expected a whole number like addresses>2'],
    ['company>x', 0, 'Unexpected ">" after company at column 1: only date, count and custom fields can be compared'],
  ])('refuses %j', (query, offset, message) => {
    const error = refusal(query)
    expect(error.offset).toBe(offset)
    expect(error.message.startsWith(message)).toBe(true)
  })
})

describe('the wildcard', () => {
  const present = (name: string, offset: number): Expr => ({ kind: 'present', field: name, offset })
  const all: Expr = { kind: 'all' }

  it('reads a bare * as every lead and field:* as "has a value", by any field name', () => {
    expect(where('*')).toEqual(all)
    expect(parseLeadQuery('* sort:created')).toEqual({
      where: all,
      sort: [{ field: 'created', direction: 'asc', offset: 7 }],
    })
    expect(where('-*')).toEqual(not(all))
    expect(where('"custom.Source CRM":*')).toEqual(present('custom.Source CRM', 0))
    expect(where('Name:* OR NOT url : *')).toEqual(or(present('name', 0), not(present('url', 14))))
    expect(where('*(a)')).toEqual(and(all, text('a')))
    // Quoted, inside a word or a value, or before a comparator, * is text.
    expect(where('"*"')).toEqual(text('*'))
    expect(where('a* *b')).toEqual(and(text('a*'), text('*b')))
    expect(where('name:"*"')).toEqual(field('name', ':', '*', 0))
    expect(where('name:*x')).toEqual(field('name', ':', '*x', 0))
    expect(where('*:x')).toEqual(field('*', ':', 'x', 0))
    expect(where('created>*')).toEqual(field('created', '>', '*', 0))
  })

  it('normalizes * away in an AND, an OR with it to *, and field:* to the field’s own name', () => {
    const normalized = (query: string) => normalizeLeadQuery(parseLeadQuery(query)).where
    expect(normalized('* sort:name')).toEqual(all)
    expect(normalized('* a (* b)')).toEqual(and(text('a'), text('b')))
    expect(normalized('(* *) *')).toEqual(all)
    expect(normalized('a OR (b *) OR -*')).toEqual(or(text('a'), text('b'), not(all)))
    expect(normalized('a OR *')).toEqual(all)
    for (const [query, offset, message] of [
      ['a foo:*', 2, 'Unknown field "foo" at column 3: search name, status,'],
      ['"custom.":*', 0, 'Missing custom field name at column 1'],
      ['has:*', 0, 'Unknown has:* at column 1'],
      ['sort:*', 5, 'Unknown sort field "*" at column 6'],
    ] as const) {
      const error = refusal(query)
      expect(error.offset, query).toBe(offset)
      expect(error.message.startsWith(message), error.message).toBe(true)
    }
    expect(normalized('company:* email:* phone_numbers:* EMAIL_ADDRESSES:* custom.X:*')).toEqual(
      and(
        present('name', 0),
        present('email_address', 10),
        present('phones', 18),
        present('emails', 34),
        present('custom.X', 52),
      ),
    )
  })

  it('prints * bare and a literal * quoted', () => {
    expect(printLeadQuery(parseLeadQuery('* "*" name:* name:"*" "custom.A b":* sort:-created'))).toBe(
      '* "*" name:* name:"*" "custom.A b":* sort:-created',
    )
  })
})

describe('counted fields and sorts', () => {
  it('resolves company, email_addresses and phone_numbers, and sorts by every count', () => {
    expect(
      normalizeLeadQuery(
        parseLeadQuery(
          'company:acme addresses>1 email_addresses>=2 phone_numbers:0 activities<3 sort:-activities sort:emails',
        ),
      ),
    ).toEqual({
      where: and(
        field('name', ':', 'acme', 0),
        field('addresses', '>', '1', 13),
        field('emails', '>=', '2', 25),
        field('phones', ':', '0', 44),
        field('activities', '<', '3', 60),
      ),
      sort: [
        { field: 'activities', direction: 'desc', offset: 79 },
        { field: 'emails', direction: 'asc', offset: 95 },
      ],
    })
    for (const sort of ['contacts', 'opportunities', 'tasks', 'addresses', 'emails', 'phones', 'activities']) {
      expect(normalizeLeadQuery(parseLeadQuery(`sort:${sort}`)).sort).toEqual([
        { field: sort, direction: 'asc', offset: 5 },
      ])
    }
  })
})

describe('printLeadQuery', () => {
  it('prints the minimal parentheses and quotes', () => {
    const query = parseLeadQuery(
      '(a b) OR (c (d OR e)) -(f OR g) -"h i" "or" "-j" "custom.Lead initials":"J W" has:url sort:-created',
    )
    expect(printLeadQuery(query)).toBe(
      'a b OR c (d OR e) -(f OR g) -"h i" "or" "-j" "custom.Lead initials":"J W" has:url sort:-created',
    )
  })

  it('escapes quotes and backslashes', () => {
    expect(printLeadQuery({ where: text('a"b\\c'), sort: [] })).toBe(String.raw`"a\"b\\c"`)
  })
})

describe('properties', () => {
  function withoutOffsets(query: LeadQuery): unknown {
    return JSON.parse(JSON.stringify(query, (key, value: unknown) => (key === 'offset' ? undefined : value)))
  }

  // Strings from the language's own characters reach far more of the grammar than arbitrary ones.
  const token = fc.constantFrom(...['a', 'b', ' ', '\t', ':', '<', '>', '=', '(', ')', '"', '\\', '-', '.', '@'])
  const keyword = fc.constantFrom('OR', 'and', 'Not', 'sort', 'has', 'custom.', 'created', 'contacts', '*')
  const queryish = fc.array(fc.oneof(token, keyword), { maxLength: 24 }).map((parts) => parts.join(''))

  /** Parses, or returns the LeadQueryError the input is refused with; any other error fails the test. */
  function parseOrRefusal(input: string): LeadQuery | LeadQueryError {
    try {
      return parseLeadQuery(input)
    } catch (error) {
      if (error instanceof LeadQueryError) return error
      throw error
    }
  }

  it('parses or refuses any string, refusing only with LeadQueryError at a column inside the query', () => {
    const outcomes = { parsed: 0, refused: 0 }
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.string({ unit: 'binary' }), queryish), (input) => {
        const result = parseOrRefusal(input)
        if (result instanceof LeadQueryError) {
          outcomes.refused++
          expect(result.offset).toBeGreaterThanOrEqual(0)
          expect(result.offset).toBeLessThanOrEqual(input.length)
          expect(result.message).toContain(`column ${result.offset + 1}`)
        } else {
          outcomes.parsed++
          expect(Object.keys(result).sort()).toEqual(['sort', 'where'])
          if (input.trim() === '') expect(result).toEqual({ where: null, sort: [] })
        }
      }),
      { numRuns: 2000 },
    )
    // Both branches must have run often, or the property says little.
    expect(outcomes.parsed).toBeGreaterThan(200)
    expect(outcomes.refused).toBeGreaterThan(200)
  })

  it('prints what it parsed so that it parses the same', () => {
    let parsed = 0
    fc.assert(
      fc.property(fc.oneof(fc.string(), queryish), (input) => {
        const query = parseOrRefusal(input)
        if (query instanceof LeadQueryError) return
        parsed++
        expect(withoutOffsets(parseLeadQuery(printLeadQuery(query)))).toEqual(withoutOffsets(query))
      }),
      { numRuns: 2000 },
    )
    expect(parsed).toBeGreaterThan(500)
  })

  it('reads every query that parsed with comparators written tight as it did before spaces were allowed', () => {
    const tight = 'name:FieldName op:Comparator value:Value'
    const spaced = 'name:FieldName _ op:Comparator _ value:Value'
    expect(leadSearchGrammar).toContain(spaced)
    const before = peggy.generate(leadSearchGrammar.replace(spaced, tight), { cache: true })
    const now = peggy.generate(leadSearchGrammar, { cache: true })
    let compared = 0
    fc.assert(
      fc.property(fc.oneof(fc.string(), queryish), (input) => {
        let old: unknown
        try {
          old = before.parse(input)
        } catch (error) {
          if (error instanceof before.SyntaxError) return
          throw error
        }
        compared++
        expect(now.parse(input)).toEqual(old)
      }),
      { numRuns: 3000 },
    )
    expect(compared).toBeGreaterThan(500)
  })

  it('round-trips generated queries through print and parse', () => {
    const anyText = fc.oneof(
      fc.string(),
      fc.string({ unit: 'grapheme' }),
      fc.constantFrom('or', 'AND', 'Not', '-x', 'a:b', '"', '\\', '', ' ', 'sort:name', '(x)'),
    )
    const plainName = fc
      .oneof(fc.constantFrom('name', 'status', 'date_created', 'contacts', 'or', 'not'), fc.string())
      .filter((name) => name === name.toLowerCase() && !/^custom\./.test(name) && name !== 'has' && name !== 'sort')
    const fieldName = fc.oneof(
      plainName,
      anyText.map((name) => `custom.${name}`),
    )
    const comparator = fc.constantFrom<Comparator>(':', '>', '>=', '<', '<=')
    const leaf = fc.oneof(
      anyText.map(text),
      fc.tuple(fieldName, comparator, anyText).map(([name, op, value]) => field(name, op, value, 0)),
      anyText.map((what): Expr => ({ kind: 'has', what, offset: 0 })),
      fc.constant<Expr>({ kind: 'all' }),
      fieldName.map((name): Expr => ({ kind: 'present', field: name, offset: 0 })),
    )
    const { expr } = fc.letrec<{ expr: Expr }>((tie) => ({
      expr: fc.oneof(
        { depthSize: 'small', withCrossShrink: true },
        leaf,
        tie('expr').map(not),
        fc
          .array(tie('expr'), { minLength: 2, maxLength: 4 })
          .map((items) => and(...items.flatMap((item) => (item.kind === 'and' ? item.items : [item])))),
        fc
          .array(tie('expr'), { minLength: 2, maxLength: 4 })
          .map((items) => or(...items.flatMap((item) => (item.kind === 'or' ? item.items : [item])))),
      ),
    }))
    const sort = fc.array(
      fc.record({
        field: fc.constantFrom('name', 'date_created', 'date_updated', 'activities', 'custom field', '*'),
        direction: fc.constantFrom<'asc' | 'desc'>('asc', 'desc'),
        offset: fc.constant(0),
      }),
      { maxLength: 3 },
    )
    fc.assert(
      fc.property(fc.option(expr, { nil: null }), sort, (whereExpr, sortEntries) => {
        const query: LeadQuery = { where: whereExpr, sort: sortEntries }
        expect(withoutOffsets(parseLeadQuery(printLeadQuery(query)))).toEqual(withoutOffsets(query))
      }),
      { numRuns: 1000 },
    )
  })
})
