import { Ajv, type Options } from 'ajv'
import addFormatsModule from 'ajv-formats'
import type { FastifySchema, FastifySchemaCompiler } from 'fastify'

// ajv-formats is CommonJS; under NodeNext its default import is the module object.
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv

const common: Options = { removeAdditional: true, useDefaults: true, allErrors: true, strict: false }

/**
 * Query strings and path parameters are text, so they are coerced to the schema's types (`_limit=10` → 10).
 * JSON bodies are typed already: `{"name": 42}` is an error, not the string "42".
 */
export function createValidatorCompiler(): FastifySchemaCompiler<FastifySchema> {
  const coercing = addFormats(new Ajv({ ...common, coerceTypes: 'array' }))
  const strictTypes = addFormats(new Ajv({ ...common, coerceTypes: false }))
  return ({ schema, httpPart }) => {
    const ajv = httpPart === 'body' ? strictTypes : coercing
    return ajv.compile(schema)
  }
}
