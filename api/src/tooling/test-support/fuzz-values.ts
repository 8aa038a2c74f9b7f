import fc from 'fast-check'
import { acceptedTypes, nonNull, type SchemaNode } from './openapi-walk.js'

/**
 * The hostile values the fuzz suite gives every parameter and body field (decision 0041), by class. A value is
 * raw JSON text for a body (so it can carry `-0`, `1e400` and integers past 2^53 as a client would send them), or
 * already percent-encoded text for a path or query string (so it can carry bytes that are not UTF-8).
 */

/** What fast-check draws: small enough to print when a case fails; the big values are built from it. */
export interface FuzzDraw {
  target: string
  cls: string
  /** A variant of the class, or a short string drawn by fast-check. */
  pick: number
  text: string
}

/** How big the large values are: 1 MB of plain text, 200 KB of pathological markup, 10,000 levels of nesting. */
export const SIZES = { megabyte: 1_000_000, markup: 200_000, depth: 10_000 }

const WRONG_TYPES: [string, string][] = [
  ['object', '{"a":1}'],
  ['array', '[1,"x"]'],
  ['string', '"x"'],
  ['integer', '7'],
  ['number', '0.5'],
  ['boolean', 'true'],
  ['null', 'null'],
]
const NUMBERS = [
  '1e308',
  '-1e308',
  '1e400',
  '-1e400',
  '-0',
  '123456789012345678901234567890',
  '-9007199254740993',
  '5e-324',
]
const NON_FINITE = ['NaN', 'Infinity', '-Infinity', '1e400', '-0']
const CRLF = ['x@example.com\r\nBcc: injected@evil.test', 'a\rb', 'a\nb', 'Hi\r\nX-Injected: 1', '\r\n\r\n']
const HTML = ["<a '", '<a <a ', '<!--<a ', '<p>On x wrote:<br>']
const LIQUID = [
  '{% increment x %}',
  '{{ contact.first_name }}',
  '{% assign a = 1 %}',
  '{% capture c %}x{% endcapture %}',
]

function variant<T>(list: T[], pick: number): T {
  const value = list[pick % list.length]
  if (value === undefined) throw new Error('empty list')
  return value
}

/** `unit` repeated to about `size` characters, within the field's `maxLength` so it reaches the handler. */
function filled(unit: string, size: number, schema: SchemaNode | undefined): string {
  const limit = schema === undefined ? undefined : nonNull(schema).maxLength
  const length = Math.min(size, limit ?? size)
  return unit.repeat(Math.max(1, Math.floor(length / unit.length)))
}

function deep(pick: number): string {
  const depth = SIZES.depth * (1 + (pick % 2) * 9)
  return pick % 4 < 2 ? '['.repeat(depth) + ']'.repeat(depth) : '{"a":'.repeat(depth) + '1' + '}'.repeat(depth)
}

/** The classes a body field (or the body itself) gets, with what fast-check draws for each. */
export function bodyClasses(): Record<string, fc.Arbitrary<{ pick: number; text: string }>> {
  const picks = fc.nat({ max: 1000 }).map((pick) => ({ pick, text: '' }))
  const short = fc.string({ maxLength: 12, unit: 'grapheme' })
  return {
    'wrong type': picks,
    'huge number': picks,
    'non-finite string': picks,
    NUL: fc.tuple(short, short).map(([a, b]) => ({ pick: 0, text: `${a}\u0000${b}` })),
    'lone surrogate': fc
      .tuple(short, fc.integer({ min: 0xd800, max: 0xdfff }))
      .map(([a, code]) => ({ pick: 0, text: `${a}${String.fromCharCode(code)}` })),
    'CR/LF': picks,
    '1 MB string': picks,
    'deep JSON': picks,
    'pathological HTML': picks,
    'pathological Liquid': picks,
  }
}

/** The raw JSON text of a drawn body value. */
export function bodyValue(draw: FuzzDraw, schema: SchemaNode | undefined): string {
  const { pick } = draw
  switch (draw.cls) {
    case 'wrong type': {
      const accepted = schema === undefined ? new Set(['object']) : acceptedTypes(schema)
      const wrong = WRONG_TYPES.filter(
        ([type]) => !accepted.has(type) && !(type === 'integer' && accepted.has('number')) && !accepted.has('any'),
      )
      return variant(wrong.length > 0 ? wrong : WRONG_TYPES, pick)[1]
    }
    case 'huge number':
      return variant(NUMBERS, pick)
    case 'non-finite string':
      return JSON.stringify(variant(NON_FINITE, pick))
    case 'NUL':
    case 'lone surrogate':
      return JSON.stringify(draw.text)
    case 'CR/LF':
      return JSON.stringify(variant(CRLF, pick))
    case '1 MB string':
      return JSON.stringify('a'.repeat(SIZES.megabyte))
    case 'deep JSON':
      return deep(pick)
    case 'pathological HTML':
      return JSON.stringify(filled(variant(HTML, pick), SIZES.markup, schema))
    case 'pathological Liquid':
      return JSON.stringify(filled(variant(LIQUID, pick), SIZES.markup, schema))
    default:
      throw new Error(`no class ${draw.cls}`)
  }
}

/** The classes a path or query-string parameter gets. */
export function paramClasses(): Record<string, fc.Arbitrary<{ pick: number; text: string }>> {
  const classes = bodyClasses()
  delete classes['wrong type']
  return { 'not a value of its type': fc.nat({ max: 1000 }).map((pick) => ({ pick, text: '' })), ...classes }
}

const NOT_VALUES = ['abc', '-1', '1.5', '[]', '{}', 'true', '', '%', '%zz', '%25', '..', 'a,b,,c', ' ']

/** The percent-encoded text of a drawn parameter value. */
export function paramValue(draw: FuzzDraw, schema: SchemaNode | undefined): string {
  const { pick } = draw
  switch (draw.cls) {
    case 'not a value of its type':
      return variant(NOT_VALUES, pick)
    case 'huge number':
      return encodeURIComponent(variant(NUMBERS, pick))
    case 'non-finite string':
      return variant(NON_FINITE, pick)
    case 'NUL':
      return `${encodeURIComponent(draw.text.replace('\u0000', ''))}%00`
    case 'lone surrogate':
      // A lone surrogate has no UTF-8 form: its would-be bytes, which no decoder accepts.
      return `${encodeURIComponent(draw.text.slice(0, -1))}${variant(['%ED%A0%80', '%ED%BF%BF', '%C0%AF', '%FF'], pick)}`
    case 'CR/LF':
      return encodeURIComponent(variant(CRLF, pick))
    case '1 MB string':
      return 'a'.repeat(SIZES.megabyte)
    case 'deep JSON':
      return encodeURIComponent(deep(pick))
    case 'pathological HTML':
      return encodeURIComponent(filled(variant(HTML, pick), SIZES.markup, schema))
    case 'pathological Liquid':
      return encodeURIComponent(filled(variant(LIQUID, pick), SIZES.markup, schema))
    default:
      throw new Error(`no class ${draw.cls}`)
  }
}
