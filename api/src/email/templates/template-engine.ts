import { createRequire } from 'node:module'
import type * as LiquidJs from 'liquidjs'
import type { FilterImplOptions, Liquid, Template, Token } from 'liquidjs'
import { ValidationError } from '../../platform/http/errors.js'

// Email templates are Liquid (liquidjs; docs/decisions/0030-email-templates.md). Two engines with one set of tags
// and filters: the body's escapes every value it outputs (escaping is fixed when a template is parsed), the
// subject's does not. Rendering touches nothing but the values it is given:
// - no tag reads another template (`include`, `render`, `layout` are gone, and the engines look templates up in an
//   empty in-memory map, never on disk);
// - no loops (`for`, `tablerow`: there is nothing to loop over), so each part of a template renders at most once;
// - `raw` is gone, so no value escapes the body's escaping; unknown filters are syntax errors, found on save;
// - only a value's own properties are read (no `constructor`, no prototype);
// - limits on the number of tags and outputs, their length and nesting, checked before liquidjs parses (its parser
//   costs the square of the number of tags past about 16,000), the time and memory a render may take, and the length
//   of what it makes; so no template holds the event loop for more than some tens of milliseconds
//   (docs/decisions/0036-html-parsing-and-template-limits.md).

/** What the engine parses in one go at most: well above a body's limit, a last stop should one be missed. */
const PARSE_LIMIT = 2_000_000
/** Tags and outputs (`{% … %}`, `{{ … }}`, each line of a `{% liquid %}`) in one subject or body. */
export const TAGS_MAX = 300
/** The longest tag or output, delimiters included. */
export const TAG_CHARS_MAX = 2_000
/** Blocks (`if`, `unless`, `case`, `capture`, `comment`) inside one another. */
export const NESTING_MAX = 50
/** A render stops after this many milliseconds. */
const RENDER_MS = 250
const RENDER_LIMITS = { renderLimit: RENDER_MS, memoryLimit: 10_000_000, templateLimit: 100_000 }
/** The longest text a render may make. */
export const RENDERED_MAX = 4_000_000
const BLOCKS = new Set(['if', 'unless', 'case', 'capture', 'comment'])

// liquidjs finds a token's line and column by counting from the start of the template, once per variable in a
// static analysis: the square of the template's length. The same answer, from an index of line starts made once.
let indexed: { input: string; lineStarts: number[] } | undefined
function getPosition(this: Token): [number, number] {
  if (indexed?.input !== this.input) {
    const lineStarts = [0]
    for (let i = this.input.indexOf('\n'); i >= 0; i = this.input.indexOf('\n', i + 1)) lineStarts.push(i + 1)
    indexed = { input: this.input, lineStarts }
  }
  const { lineStarts } = indexed
  let low = 0
  let high = lineStarts.length - 1
  while (low < high) {
    const middle = (low + high + 1) >> 1
    if ((lineStarts[middle] ?? 0) <= this.begin) low = middle
    else high = middle - 1
  }
  return [low + 1, this.begin - (lineStarts[low] ?? 0) + 1]
}

/** A key of the render context, out of a template's reach, holding the user's `X-TZ-Offset` in hours. */
export const TZ_OFFSET_HOURS = Symbol('tzOffsetHours')

type FilterHandler = Extract<FilterImplOptions, (...args: never[]) => unknown>

/** Liquid's `date`, in the user's time zone (minutes west of UTC, as liquidjs counts) unless the template names one. */
function dateInUserZone(
  this: ThisParameterType<FilterHandler>,
  value: unknown,
  format?: unknown,
  zone?: unknown,
): unknown {
  const environments: object = this.context.environments
  const hours: unknown = Reflect.get(environments, TZ_OFFSET_HOURS)
  const offset = zone ?? (typeof hours === 'number' ? Math.round(-hours * 60) : undefined)
  return liquid().liquidDate.call(this, value, format, offset)
}

function engine(liquidjs: typeof LiquidJs, escaped: boolean): Liquid {
  const made = new liquidjs.Liquid({
    ...(escaped ? { outputEscape: 'escape' as const } : {}),
    templates: {},
    strictFilters: true,
    strictVariables: false,
    ownPropertyOnly: true,
    timezoneOffset: 0,
    parseLimit: PARSE_LIMIT,
  })
  delete made.tags.include
  delete made.tags.render
  delete made.tags.layout
  delete made.tags.for
  delete made.tags.tablerow
  delete made.tags.cycle
  delete made.tags.break
  delete made.tags.continue
  made.unregisterFilter('raw')
  made.registerFilter('date', dateInUserZone)
  return made
}

export type TemplatePart = 'subject' | 'body'

interface Loaded {
  liquidjs: typeof LiquidJs
  liquidDate: FilterHandler
  engines: Record<TemplatePart, Liquid>
}

const require = createRequire(import.meta.url)
let loaded: Loaded | undefined

/**
 * liquidjs and the two engines, loaded the first time a template is checked or rendered: an api that never sees
 * one does not hold the module (its source alone some 360 KB of heap). Its main entry is CommonJS, so the require is
 * synchronous, as parsing and rendering are, and the same module an `import` of it gets.
 */
function liquid(): Loaded {
  if (loaded !== undefined) return loaded
  const liquidjs = require('liquidjs') as typeof LiquidJs
  liquidjs.Token.prototype.getPosition = getPosition
  const builtinDate = liquidjs.filters.date
  if (typeof builtinDate !== 'function') throw new Error('liquidjs has no date filter')
  loaded = {
    liquidjs,
    liquidDate: builtinDate,
    engines: { subject: engine(liquidjs, false), body: engine(liquidjs, true) },
  }
  return loaded
}

/** Whether `error` is liquidjs's (none can be before it is loaded). */
export function isLiquidError(error: unknown): error is LiquidJs.LiquidError {
  return loaded !== undefined && error instanceof loaded.liquidjs.LiquidError
}

/** A variable the template reads from its context: its name as written and its path up to any computed segment. */
export interface Placeholder {
  text: string
  path: (string | number)[]
}

export interface ParsedPart {
  templates: Template[]
  placeholders: Placeholder[]
}

function placeholdersOf(part: TemplatePart, templates: Template[]): Placeholder[] {
  const { globals } = liquid().engines[part].analyzeSync(templates, { partials: false })
  const found = new Map<string, Placeholder>()
  // The analysis groups variables by name; a template's author reads them in the order they are written.
  const inOrder = Object.values(globals)
    .flat()
    .sort((a, b) => a.location.row - b.location.row || a.location.col - b.location.col)
  for (const variable of inOrder) {
    const text = variable.toString()
    if (found.has(text)) continue
    const path: (string | number)[] = []
    for (const segment of variable.segments) {
      if (typeof segment !== 'string' && typeof segment !== 'number') break
      path.push(segment)
    }
    found.set(text, { text, path })
  }
  return [...found.values()]
}

/** Thrown for a template too large or too complex to parse or render. */
export class TemplateLimitError extends Error {}

/**
 * Counts tags and outputs, and checks their length and nesting, by liquidjs's own tokenizer (linear in the source)
 * before its parser runs; throws a TemplateLimitError, or a LiquidError for a source that does not tokenize.
 */
function checkSize(part: TemplatePart, source: string): void {
  const { liquidjs, engines } = liquid()
  const { options } = engines[part]
  const { Tokenizer, TypeGuards } = liquidjs
  const tokens = new Tokenizer(source, options.operators).readTopLevelTokens(options)
  let tags = 0
  let depth = 0
  for (const token of tokens) {
    if (!TypeGuards.isTagToken(token) && !TypeGuards.isOutputToken(token)) continue
    if (token.end - token.begin > TAG_CHARS_MAX)
      throw new TemplateLimitError(
        `a tag or output is longer than ${String(TAG_CHARS_MAX)} characters (line ${String(token.getPosition()[0])})`,
      )
    if (TypeGuards.isTagToken(token)) {
      if (token.name === 'liquid') tags += token.args.split('\n').length - 1
      if (BLOCKS.has(token.name)) depth++
      else if (token.name.startsWith('end')) depth--
      if (depth > NESTING_MAX) throw new TemplateLimitError(`blocks nest more than ${String(NESTING_MAX)} deep`)
    }
    if (++tags > TAGS_MAX) throw new TemplateLimitError(`it has more than ${String(TAGS_MAX)} tags and outputs`)
  }
}

/** Parses a subject or body; throws a LiquidError naming the problem and where it is, or a TemplateLimitError. */
export function parsePart(part: TemplatePart, source: string): ParsedPart {
  checkSize(part, source)
  const templates = liquid().engines[part].parse(source)
  return { templates, placeholders: placeholdersOf(part, templates) }
}

/** What is wrong with a subject or body as a template, if anything. */
export function templateProblem(part: TemplatePart, source: string): string | undefined {
  try {
    parsePart(part, source)
    return undefined
  } catch (error) {
    if (isLiquidError(error)) return `Not a valid template: ${error.message}.`
    if (error instanceof TemplateLimitError) return `Too large or too complex a template: ${error.message}.`
    throw error
  }
}

/**
 * Renders a parsed part; a template that fails as it renders (a filter's error, a limit) is a 400 naming `field`.
 * `context` may carry the user's offset under TZ_OFFSET_HOURS, which `date` uses.
 */
export function renderPart(part: TemplatePart, parsed: ParsedPart, context: object, field: string = part): string {
  let text: unknown
  try {
    text = liquid().engines[part].renderSync(parsed.templates, context, RENDER_LIMITS)
  } catch (error) {
    // A RangeError: a string or a stack beyond what the engine can hold.
    if (isLiquidError(error) || error instanceof RangeError)
      throw new ValidationError({ [field]: `The template could not be rendered: ${error.message}.` })
    throw error
  }
  const rendered = String(text)
  if (rendered.length > RENDERED_MAX)
    throw new ValidationError({
      [field]: `The template could not be rendered: it makes more than ${String(RENDERED_MAX)} characters.`,
    })
  return rendered
}

const LEAF_PROPERTIES = new Set(['size', 'first', 'last'])

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null
}

/** Whether a path names something in the context: each object step an own key, then only `size`/`first`/`last`. */
function exists(context: object, path: readonly (string | number)[]): boolean {
  let value: unknown = context
  for (const segment of path) {
    if (!isRecord(value)) return typeof segment === 'number' || LEAF_PROPERTIES.has(segment)
    if (!Object.hasOwn(value, segment)) return false
    value = value[segment]
  }
  return true
}

/** The placeholders, in order and without repeats, that name nothing in the context (each renders empty). */
export function unknownPlaceholders(placeholders: readonly Placeholder[], context: object): string[] {
  const unknown = placeholders.filter((p) => !exists(context, p.path)).map((p) => p.text)
  return [...new Set(unknown)].map((text) => `Unknown placeholder {{ ${text} }}: rendered empty.`)
}
