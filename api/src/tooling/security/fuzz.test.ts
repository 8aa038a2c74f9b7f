import { performance } from 'node:perf_hooks'
import process from 'node:process'
import fc from 'fast-check'
import type { LightMyRequestResponse } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createEveryObject, type EveryObject } from '../test-support/every-object.js'
import { bodyClasses, bodyValue, paramClasses, paramValue, type FuzzDraw } from '../test-support/fuzz-values.js'
import {
  acceptedTypes,
  bodyFields,
  collectionOf,
  documentedOperations,
  withField,
  type Operation,
  type SchemaNode,
} from '../test-support/openapi-walk.js'
import { bodyHints, validRequest } from '../test-support/request-refs.js'
import { basicAuth, createTestContext } from '../test-support/test-app.js'

// The fuzz suite (decision 0041): every parameter and body field of every documented route, generated from the
// API's OpenAPI document, gets each class of hostile value (wrong types, huge and non-finite numbers, NUL, lone
// surrogates, CR/LF, 1 MB strings, deep JSON, pathological HTML and Liquid) in an otherwise valid request, then
// fast-check draws more from a fixed seed. No answer may be a 5xx, every error has the documented shape, and no
// request takes over a second of CPU (what a backtracking pattern or an unbounded loop spends) nor ten of waiting.

const SEED = 270041
/** Draws per route beyond one of every class for every target. */
const EXTRA_RUNS = 6
/**
 * The request runs in this process, so the process's CPU time over it is the work it caused: unlike the wall clock,
 * it does not grow when a busy machine (CI runs the suites side by side) leaves the process waiting for a core.
 */
const SLOW_CPU_MS = 1000
/** Waiting that long without working is a hang (a lock, a timer), whatever the machine's load. */
const HANG_MS = 10_000

/** Who sends the requests: an admin, who passes every role check, except where an admin's request never ends. */
const MEMBER_ROUTES: Record<string, string> = {
  'GET /event/stream/': 'an admin’s stream stays open; a member’s request is answered at once',
}

const PLACEHOLDER = '"@@fuzzed value@@"'

const ctx = await createTestContext({ env: { LEADLINE_RATE_LIMIT: '100000000' } })
const operations = await documentedOperations(ctx.app)
let own: EveryObject

beforeAll(async () => {
  own = await createEveryObject(ctx.app, ctx.org, 1)
}, 120_000)
afterAll(async () => {
  await ctx.close()
})

interface Target {
  name: string
  where: 'path' | 'query' | 'body'
  path: (string | number)[]
  schema: SchemaNode | undefined
}

function targetsOf(op: Operation): Target[] {
  const targets: Target[] = op.parameters
    .filter((p) => p.in === 'path' || p.in === 'query')
    .map((p) => ({ name: `${p.in} ${p.name}`, where: p.in as 'path' | 'query', path: [p.name], schema: p.schema }))
  if (op.body !== undefined || op.rawBody) targets.push({ name: 'body', where: 'body', path: [], schema: op.body })
  if (op.body !== undefined) {
    for (const field of bodyFields(op.body)) {
      targets.push({ name: `body ${field.name}`, where: 'body', path: field.path, schema: field.schema })
    }
  }
  return targets
}

// A field that takes no string gets the classes that are not text (any text is one wrong type to it).
const NOT_TEXT = new Set(['wrong type', 'huge number', 'non-finite string', 'deep JSON'])

function classesOf(target: Target) {
  if (target.where !== 'body') return paramClasses()
  const classes = bodyClasses()
  const types = target.schema === undefined ? new Set(['object']) : acceptedTypes(target.schema)
  if (types.has('string') || types.has('any')) return classes
  return Object.fromEntries(Object.entries(classes).filter(([cls]) => NOT_TEXT.has(cls)))
}

/** The request with the organization's own objects everywhere but the target, which gets the drawn value. */
async function request(op: Operation, target: Target, draw: FuzzDraw) {
  const hints = bodyHints(op, own)
  const valid = await validRequest(ctx.app, op, own)
  const query = new URLSearchParams(valid.query)
  let url = op.path.replace(/\{([^}]+)\}/g, (_m, name: string) =>
    target.where === 'path' && target.path[0] === name
      ? paramValue(draw, target.schema)
      : (own.byPathParam[name] ?? own.byCollection[collectionOf(op.path) ?? ''] ?? ''),
  )
  if (target.where === 'query') {
    query.delete(String(target.path[0]))
    url += `?${String(target.path[0])}=${paramValue(draw, target.schema)}&${query.toString()}`
  } else if (query.size > 0) url += `?${query.toString()}`
  let payload: string | undefined
  if (op.rawBody) payload = target.where === 'body' ? bodyValue(draw, undefined) : 'file'
  else if (op.body !== undefined) {
    const body = valid.body
    if (target.where !== 'body') payload = JSON.stringify(body)
    else if (target.path.length === 0) payload = bodyValue(draw, op.body)
    else {
      const text = JSON.stringify(withField(body, op.body, target.path, JSON.parse(PLACEHOLDER), hints))
      payload = text.replace(PLACEHOLDER, () => bodyValue(draw, target.schema))
    }
  }
  const key = MEMBER_ROUTES[op.key] === undefined ? ctx.org.admin.key : ctx.org.member.key
  const headers: Record<string, string> = { authorization: basicAuth(key) }
  if (payload !== undefined) headers['content-type'] = op.rawBody ? 'application/octet-stream' : 'application/json'
  return { method: op.method as 'GET', url: `/api/v1${url}`, headers, ...(payload === undefined ? {} : { payload }) }
}

/** What is wrong with an answer: a 5xx, an error not in the documented shape, or too slow. */
function problemsOf(res: LightMyRequestResponse, spent: { cpuMs: number; wallMs: number }): string[] {
  const problems: string[] = []
  if (spent.cpuMs > SLOW_CPU_MS) problems.push(`took ${Math.round(spent.cpuMs)} ms of CPU`)
  if (spent.wallMs > HANG_MS) problems.push(`took ${Math.round(spent.wallMs)} ms`)
  if (res.statusCode >= 500) problems.push(`answered ${res.statusCode}: ${res.body.slice(0, 300)}`)
  else if (res.statusCode >= 400 && res.statusCode !== 429) {
    let body: unknown
    try {
      body = res.json()
    } catch {
      return [...problems, `answered ${res.statusCode} with a body that is not JSON: ${res.body.slice(0, 200)}`]
    }
    if (!documentedError(res.statusCode, body)) {
      problems.push(`answered ${res.statusCode} in no documented shape: ${res.body.slice(0, 300)}`)
    }
  }
  return problems
}

/** 400 `{"errors": [...], "field-errors": {...}}`, or `{"error": "..."}` for any client error. */
function documentedError(status: number, body: unknown): boolean {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return false
  const entries = Object.entries(body)
  const keys = entries.map(([k]) => k).sort()
  if (keys.length === 1 && keys[0] === 'error') return typeof entries[0]?.[1] === 'string'
  if (status !== 400 || keys.join() !== 'errors,field-errors') return false
  const { errors, 'field-errors': fieldErrors } = body as { errors: unknown; 'field-errors': unknown }
  return (
    Array.isArray(errors) &&
    errors.every((e) => typeof e === 'string') &&
    typeof fieldErrors === 'object' &&
    fieldErrors !== null &&
    Object.values(fieldErrors).every((m) => typeof m === 'string')
  )
}

const cases = operations.map((op) => {
  const targets = targetsOf(op)
  const pairs = targets.flatMap((t) => Object.keys(classesOf(t)).map((cls) => [t, cls] as const))
  return { op, targets, pairs }
})

async function problemsFor(op: Operation, target: Target | undefined, draw: FuzzDraw): Promise<string[]> {
  const sent =
    target === undefined
      ? {
          method: op.method as 'GET',
          url: `/api/v1${op.path}`,
          headers: { authorization: basicAuth(ctx.org.admin.key) },
        }
      : await request(op, target, draw)
  const started = performance.now()
  const cpu = process.cpuUsage()
  const res = await ctx.app.inject(sent)
  const used = process.cpuUsage(cpu)
  const spent = { cpuMs: (used.user + used.system) / 1000, wallMs: performance.now() - started }
  return problemsOf(res, spent).map((p) => `${draw.target} ${draw.cls} #${draw.pick}: ${p}`)
}

describe('hostile values in every parameter and body field: no 5xx, documented errors, none over 1 s of CPU', () => {
  it.each(cases.map((c) => [`${c.op.key} (${Math.max(1, c.pairs.length + EXTRA_RUNS)} requests)`, c] as const))(
    '%s',
    async (_name, { op, targets, pairs }) => {
      if (targets.length === 0) {
        expect(await problemsFor(op, undefined, { target: '', cls: 'plain', pick: 0, text: '' })).toEqual([])
        return
      }
      const byName = new Map(targets.map((t) => [t.name, t]))
      // One of every class for every target, each drawn by fast-check from the seed; every failure is listed.
      const problems: string[] = []
      for (const [i, [target, cls]] of pairs.entries()) {
        const [drawn] = fc.sample(classesOf(target)[cls] ?? fc.constant({ pick: 0, text: '' }), {
          seed: SEED + i,
          numRuns: 1,
        })
        problems.push(...(await problemsFor(op, target, { target: target.name, cls, pick: 0, text: '', ...drawn })))
      }
      expect(problems, problems.join('\n')).toEqual([])
      // Then more draws of any target and class, which fast-check reports by seed and path when one fails.
      const draws = fc.constantFrom(...targets).chain((target) =>
        fc.constantFrom(...Object.keys(classesOf(target))).chain((cls) =>
          (classesOf(target)[cls] ?? fc.constant({ pick: 0, text: '' })).map((drawn): FuzzDraw => ({
            target: target.name,
            cls,
            ...drawn,
          })),
        ),
      )
      await fc.assert(
        fc.asyncProperty(draws, async (draw) => {
          const found = await problemsFor(op, byName.get(draw.target), draw)
          if (found.length > 0) throw new Error(found.join('; '))
        }),
        { seed: SEED, numRuns: EXTRA_RUNS, endOnFailure: true },
      )
    },
    600_000,
  )
})
