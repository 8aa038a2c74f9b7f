import { Liquid, LiquidError, type Template } from 'liquidjs'
import { ValidationError } from '../platform/errors.js'

// Email templates are Liquid (liquidjs; docs/decisions/0030-email-templates.md). Two engines with one set of tags
// and filters: the body's escapes every value it outputs (escaping is fixed when a template is parsed), the
// subject's does not. Rendering touches nothing but the values it is given:
// - no tag reads another template (`include`, `render`, `layout` are gone, and the engines look templates up in an
//   empty in-memory map, never on disk);
// - no loops (`for`, `tablerow`: there is nothing to loop over), so each part of a template renders at most once;
// - `raw` is gone, so no value escapes the body's escaping; unknown filters are syntax errors, found on save;
// - only a value's own properties are read (no `constructor`, no prototype);
// - limits on the text parsed, the time and memory a render may take, and the length of what it makes.

/** A body is at most 1 MB; the engine refuses to parse more than this in one go. */
const PARSE_LIMIT = 2_000_000
const RENDER_LIMITS = { renderLimit: 1_000, memoryLimit: 10_000_000, templateLimit: 100_000 }
/** The longest text a render may make. */
export const RENDERED_MAX = 4_000_000

function engine(escaped: boolean): Liquid {
  const liquid = new Liquid({
    ...(escaped ? { outputEscape: 'escape' as const } : {}),
    templates: {},
    strictFilters: true,
    strictVariables: false,
    ownPropertyOnly: true,
    timezoneOffset: 0,
    parseLimit: PARSE_LIMIT,
  })
  delete liquid.tags.include
  delete liquid.tags.render
  delete liquid.tags.layout
  delete liquid.tags.for
  delete liquid.tags.tablerow
  delete liquid.tags.cycle
  delete liquid.tags.break
  delete liquid.tags.continue
  liquid.unregisterFilter('raw')
  return liquid
}

const ENGINES = { subject: engine(false), body: engine(true) }
export type TemplatePart = keyof typeof ENGINES

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
  const { globals } = ENGINES[part].analyzeSync(templates, { partials: false })
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

/** Parses a subject or body; throws a LiquidError naming the problem and where it is. */
export function parsePart(part: TemplatePart, source: string): ParsedPart {
  const templates = ENGINES[part].parse(source)
  return { templates, placeholders: placeholdersOf(part, templates) }
}

/** What is wrong with a subject or body as a template, if anything. */
export function templateProblem(part: TemplatePart, source: string): string | undefined {
  try {
    parsePart(part, source)
    return undefined
  } catch (error) {
    if (error instanceof LiquidError) return `Not a valid template: ${error.message}.`
    throw error
  }
}

/** Renders a parsed part; a template that fails as it renders (a filter's error, a limit) is a 400. */
export function renderPart(part: TemplatePart, parsed: ParsedPart, context: object): string {
  let text: unknown
  try {
    text = ENGINES[part].renderSync(parsed.templates, context, RENDER_LIMITS)
  } catch (error) {
    if (error instanceof LiquidError)
      throw new ValidationError({}, [`The ${part} could not be rendered: ${error.message}.`])
    throw error
  }
  const rendered = String(text)
  if (rendered.length > RENDERED_MAX)
    throw new ValidationError({}, [
      `The ${part} could not be rendered: it makes more than ${String(RENDERED_MAX)} characters.`,
    ])
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
