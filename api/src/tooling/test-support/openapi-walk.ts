import type { FastifyInstance } from 'fastify'
import { API_PREFIX } from '../../platform/http/platform.js'

/**
 * Walks the API's own OpenAPI document (`/openapi.json`, generated from the route schemas) so the security suites
 * cover every documented route and field without a test written per route: operations, their parameters, their
 * body fields, and a smallest body each schema accepts.
 */

/** A JSON Schema node as the document has it (TypeBox output, inline, no `$ref`). */
export interface SchemaNode {
  type?: string | string[]
  anyOf?: SchemaNode[]
  properties?: Record<string, SchemaNode>
  required?: string[]
  items?: SchemaNode
  additionalProperties?: boolean | SchemaNode
  enum?: unknown[]
  const?: unknown
  minimum?: number
  maximum?: number
  minLength?: number
  maxLength?: number
  minItems?: number
  maxItems?: number
  pattern?: string
  format?: string
  default?: unknown
  description?: string
}

export interface Parameter {
  name: string
  in: 'path' | 'query' | 'header'
  required: boolean
  schema: SchemaNode
  description?: string
}

export interface Operation {
  /** `GET /lead/{id}/`: method and path below the API prefix, as the document names it. */
  key: string
  method: string
  path: string
  parameters: Parameter[]
  /** The JSON body's schema; undefined without a JSON body. */
  body: SchemaNode | undefined
  /** A body that is not JSON (a file's bytes). */
  rawBody: boolean
  summary: string
}

interface DocumentOperation {
  summary?: string
  parameters?: (Omit<Parameter, 'required'> & { required?: boolean })[]
  requestBody?: { content?: Record<string, { schema?: SchemaNode }> }
}

/** Every documented operation of the app, in the document's order. */
export async function documentedOperations(app: FastifyInstance): Promise<Operation[]> {
  const res = await app.inject({ method: 'GET', url: `${API_PREFIX}/openapi.json` })
  if (res.statusCode !== 200) throw new Error(`GET /openapi.json answered ${res.statusCode}`)
  const document = res.json<{ paths: Record<string, Record<string, DocumentOperation>> }>()
  const operations: Operation[] = []
  for (const [fullPath, methods] of Object.entries(document.paths)) {
    const path = fullPath.slice(API_PREFIX.length)
    for (const [method, operation] of Object.entries(methods)) {
      const upper = method.toUpperCase()
      const content = operation.requestBody?.content ?? {}
      const json = content['application/json']?.schema
      operations.push({
        key: `${upper} ${path}`,
        method: upper,
        path,
        parameters: (operation.parameters ?? []).map((p) => ({ ...p, required: p.required ?? false })),
        body: json,
        rawBody: json === undefined && Object.keys(content).length > 0,
        summary: operation.summary ?? '',
      })
    }
  }
  return operations
}

/** `/status/lead/{id}/deliveries/` → `/status/lead/`: the collection whose object a path's `{id}` names. */
export function collectionOf(path: string): string | undefined {
  const at = path.indexOf('{')
  return at === -1 ? undefined : path.slice(0, at)
}

/** The path with each `{name}` replaced. */
export function fillPath(path: string, values: Record<string, string>): string {
  return path.replace(/\{([^}]+)\}/g, (_match, name: string) => encodeURIComponent(values[name] ?? ''))
}

/** A field inside a body: its path (`['attachments', 0, 'url']`) and schema (the non-null branch of a nullable). */
export interface BodyField {
  path: (string | number)[]
  /** `attachments.0.url`, as field errors name it. */
  name: string
  schema: SchemaNode
}

/** The schema with a nullable's `null` branch removed (`anyOf: [X, {type: null}]` → X). */
export function nonNull(schema: SchemaNode): SchemaNode {
  if (schema.anyOf === undefined) return schema
  const branches = schema.anyOf.filter((b) => b.type !== 'null')
  if (branches.length === 1 && branches[0] !== undefined) return { ...nonNull(branches[0]), ...describe(schema) }
  return schema
}

function describe(schema: SchemaNode): Pick<SchemaNode, 'description'> {
  return schema.description === undefined ? {} : { description: schema.description }
}

/** Every field of a body schema, objects and lists included (a list's items as index 0), depth first. */
export function bodyFields(schema: SchemaNode, path: (string | number)[] = []): BodyField[] {
  const node = nonNull(schema)
  const here: BodyField[] = path.length === 0 ? [] : [{ path, name: path.join('.'), schema: node }]
  if (node.properties !== undefined) {
    return here.concat(...Object.entries(node.properties).map(([name, child]) => bodyFields(child, [...path, name])))
  }
  if (node.items !== undefined) return here.concat(bodyFields(node.items, [...path, 0]))
  return here
}

/** Values that fields of no checkable format still need to be accepted, by field name. */
export type Hints = (name: string, schema: SchemaNode, path: (string | number)[]) => unknown

/** The smallest value `schema` accepts: required properties only, lists empty unless they need items. */
export function smallestValue(schema: SchemaNode, hints: Hints, path: (string | number)[] = []): unknown {
  const name = String(path.at(-1) ?? '')
  const hinted = path.length === 0 ? undefined : hints(name, schema, path)
  if (hinted !== undefined) return hinted
  const node = nonNull(schema)
  if (node.default !== undefined) return node.default
  if (node.const !== undefined) return node.const
  if (node.enum !== undefined) return node.enum[0]
  if (node.anyOf !== undefined) {
    const first = node.anyOf.find((b) => b.type !== 'null') ?? node.anyOf[0]
    return first === undefined ? null : smallestValue(first, hints, path)
  }
  const type = Array.isArray(node.type) ? node.type[0] : node.type
  switch (type) {
    case 'object': {
      const value: Record<string, unknown> = {}
      for (const key of node.required ?? []) {
        const child = node.properties?.[key]
        if (child !== undefined) value[key] = smallestValue(child, hints, [...path, key])
      }
      return value
    }
    case 'array': {
      const count = node.minItems ?? 0
      return Array.from({ length: count }, (_, i) => (node.items ? smallestValue(node.items, hints, [...path, i]) : 0))
    }
    case 'string':
      return 'x'.repeat(Math.max(1, node.minLength ?? 1))
    case 'integer':
    case 'number':
      return node.minimum ?? 0
    case 'boolean':
      return false
    case 'null':
      return null
    default:
      return 'x'
  }
}

/**
 * `base` with the field at `path` set to `value`: containers on the way are made (an object with its required
 * fields, a list with one such item) so the body stays valid but for the field set.
 */
export function withField(
  base: unknown,
  schema: SchemaNode,
  path: (string | number)[],
  value: unknown,
  hints: Hints,
): unknown {
  if (path.length === 0) return value
  const [head, ...rest] = path
  const node = nonNull(schema)
  if (typeof head === 'number') {
    const items = node.items ?? {}
    const list = Array.isArray(base) ? [...(base as unknown[])] : []
    const current = list[head] ?? smallestValue(items, hints, [head])
    list[head] = withField(current, items, rest, value, hints)
    return list
  }
  const child = node.properties?.[head ?? ''] ?? {}
  const object: Record<string, unknown> =
    typeof base === 'object' && base !== null && !Array.isArray(base) ? { ...(base as Record<string, unknown>) } : {}
  const current = object[head ?? ''] ?? (rest.length === 0 ? undefined : smallestValue(child, hints, [head ?? '']))
  object[head ?? ''] = withField(current, child, rest, value, hints)
  return object
}

/** A JSON type the schema accepts at the top (`string`, `integer`, `object`, …), for picking a wrong one. */
export function acceptedTypes(schema: SchemaNode): Set<string> {
  const node = nonNull(schema)
  if (node.anyOf !== undefined) return new Set(node.anyOf.flatMap((b) => [...acceptedTypes(b)]))
  if (node.type === undefined) return new Set(['any'])
  return new Set(Array.isArray(node.type) ? node.type : [node.type])
}
