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
    return ajv.compile(schema)
  }
}
