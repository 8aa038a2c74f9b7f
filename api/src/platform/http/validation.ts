import type { FastifySchemaValidationError } from 'fastify'

/** `/contacts/0/emails/0/email` → `contacts.0.emails.0.email`. */
function dotted(instancePath: string): string {
  return instancePath.replace(/^\//, '').split('/').map(unescapePointer).join('.')
}

function unescapePointer(segment: string): string {
  return segment.replace(/~1/g, '/').replace(/~0/g, '~')
}

function join(base: string, field: string): string {
  return base === '' ? field : `${base}.${field}`
}

function param(error: FastifySchemaValidationError, name: string): unknown {
  return error.params[name]
}

function messageFor(error: FastifySchemaValidationError): string {
  switch (error.keyword) {
    case 'required':
      return 'This field is required.'
    case 'type': {
      const type = String(param(error, 'type'))
      if (type === 'integer') return 'A valid integer is required.'
      if (type === 'number') return 'A valid number is required.'
      if (type === 'boolean') return 'Must be true or false.'
      if (type === 'string') return 'Must be a string.'
      if (type === 'array') return 'Must be a list.'
      if (type === 'object') return 'Must be an object.'
      if (type === 'null') return 'Must be null.'
      return `Must be of type ${type}.`
    }
    case 'maximum':
      return `Ensure this value is less than or equal to ${String(param(error, 'limit'))}.`
    case 'minimum':
      return `Ensure this value is greater than or equal to ${String(param(error, 'limit'))}.`
    case 'maxLength':
      return `Ensure this field has no more than ${String(param(error, 'limit'))} characters.`
    case 'minLength':
      return param(error, 'limit') === 1
        ? 'This field may not be blank.'
        : `Ensure this field has at least ${String(param(error, 'limit'))} characters.`
    case 'enum':
    case 'const':
    case 'anyOf':
      return 'Not a valid choice.'
    case 'format':
      return `Enter a valid ${String(param(error, 'format'))}.`
    case 'pattern':
      return 'Enter a valid value.'
    case 'additionalProperties':
      return 'Unknown field.'
    case 'maxItems':
      return `Ensure this list has no more than ${String(param(error, 'limit'))} items.`
    case 'minItems':
      return `Ensure this list has at least ${String(param(error, 'limit'))} items.`
    default:
      return error.message ?? 'Invalid value.'
  }
}

/** Maps schema-validation failures to Close's `field-errors` dictionary (first message per field wins). */
export function toFieldErrors(errors: FastifySchemaValidationError[]): Record<string, string> {
  const fieldErrors: Record<string, string> = {}
  for (const error of errors) {
    let field = dotted(error.instancePath)
    if (error.keyword === 'required') field = join(field, String(param(error, 'missingProperty')))
    if (error.keyword === 'additionalProperties') field = join(field, String(param(error, 'additionalProperty')))
    if (field === '') field = '__all__'
    fieldErrors[field] ??= messageFor(error)
  }
  return fieldErrors
}
