import { ValidationError } from '../http/errors.js'

// Foreign keys of the request-facing tables: the field a client names the referenced object by.
const REFERENCE_FIELDS: [column: string, field: (value: string) => string][] = [
  ['status_id', () => 'status'],
  ['field_id', (id) => `custom.${id}`],
  ['lead_id', () => 'lead_id'],
]

/**
 * A foreign-key violation as a 400, never a 500: a write named an object a concurrent request deleted after it was
 * checked (Postgres, read committed), or deleted one that something still refers to. Postgres says which key
 * (`Key (status_id)=(stat_…) is not present…`); SQLite does not, so its answer names no field.
 */
export function foreignKeyError(error: unknown): ValidationError | undefined {
  if (typeof error !== 'object' || error === null || !('code' in error)) return undefined
  if (error.code !== '23503' && error.code !== 'SQLITE_CONSTRAINT_FOREIGNKEY') return undefined
  const detail = 'detail' in error && typeof error.detail === 'string' ? error.detail : ''
  const key = /^Key \((\w+)\)=\((.*)\) is not present/.exec(detail)
  const reference = key === null ? undefined : REFERENCE_FIELDS.find(([column]) => column === key[1])
  if (key !== null && reference !== undefined) {
    return ValidationError.field(reference[1](key[2] ?? ''), 'The object this refers to no longer exists.')
  }
  return new ValidationError({}, ['The change refers to objects that changed meanwhile; reload them and try again.'])
}

/**
 * Whether a write failed on a unique constraint or primary key (the constraint, not a read before it, settles races).
 * Postgres reports both as 23505; SQLite names them apart.
 */
export function isUniqueViolation(error: unknown): boolean {
  if (typeof error !== 'object' || error === null || !('code' in error)) return false
  return ['23505', 'SQLITE_CONSTRAINT_UNIQUE', 'SQLITE_CONSTRAINT_PRIMARYKEY'].includes(String(error.code))
}
