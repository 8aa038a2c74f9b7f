import { Ajv, type Options } from 'ajv'
import addFormatsModule from 'ajv-formats'
import { Type } from '@sinclair/typebox'
import type { FastifySchema, FastifySchemaCompiler } from 'fastify'

// ajv-formats is CommonJS; under NodeNext its default import is the module object.
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv

const common: Options = { removeAdditional: true, useDefaults: true, allErrors: true, strict: false }

/**
 * A body of raw bytes (a file uploaded, parsed as a Buffer by its route's own content-type parser): documented as
 * binary, checked by its handler, never by a JSON schema.
 */
export function rawBodySchema(description: string) {
  return Type.Unsafe<Buffer | undefined>({ type: 'string', format: 'binary', description })
}

function isRawBody(schema: unknown): boolean {
  return typeof schema === 'object' && schema !== null && 'format' in schema && schema.format === 'binary'
}

/**
 * Query strings and path parameters are text, so they are coerced to the schema's types (`_limit=10` → 10).
 * JSON bodies are typed already: `{"name": 42}` is an error, not the string "42".
 */
export function createValidatorCompiler(): FastifySchemaCompiler<FastifySchema> {
  const coercing = addFormats(new Ajv({ ...common, coerceTypes: 'array' }))
  const strictTypes = addFormats(new Ajv({ ...common, coerceTypes: false }))
  return ({ schema, httpPart }) => {
    if (httpPart === 'body' && isRawBody(schema)) return () => true
    const ajv = httpPart === 'body' ? strictTypes : coercing
    return lazily(() => ajv.compile(schema))
  }
}

/** What a Fastify schema compiler gives for a schema. */
type FastifyValidationResult = ReturnType<FastifySchemaCompiler<FastifySchema>>

/**
 * A validator compiled when a request first needs it: compiling every route's schemas at start held some megabytes
 * of generated code for routes a process may never serve (decision 0066). Fastify reads a failed call's `errors`
 * from the function it was given, so they are copied onto it.
 */
export function lazily(compile: () => FastifyValidationResult): FastifyValidationResult {
  let compiled: FastifyValidationResult | undefined
  const validate: FastifyValidationResult = (data: unknown) => {
    compiled ??= compile()
    const result = compiled(data)
    validate.errors = compiled.errors
    return result
  }
  return validate
}
