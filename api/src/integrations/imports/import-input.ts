import { Type, type Static } from '@sinclair/typebox'
import {
  duplicateRuleSchema,
  IMPORT_LIMITS,
  IMPORT_TARGETS,
  NEW_CUSTOM_FIELD,
  type FixedImportTarget,
} from '@leadline/shared/import-schema'
import type { CustomObjectType } from '../../platform/data/database.js'
import type { CustomFieldDef } from '../../crm/custom-fields/custom-values.js'
import { ValidationError } from '../../platform/http/errors.js'

const FILENAME_MAX = 255

export const uploadQuery = Type.Object({
  filename: Type.String({ minLength: 1, maxLength: FILENAME_MAX, description: 'The file’s name, URL-encoded.' }),
})

export const importUpdateBody = Type.Object(
  {
    mapping: Type.Optional(
      Type.Record(Type.String({ maxLength: IMPORT_LIMITS.headerChars }), Type.String({ maxLength: 200 }), {
        maxProperties: IMPORT_LIMITS.columns,
        description:
          'Column → target: a fixed target (`lead.name`, `contact.email`, …, each at most once), ' +
          '`custom.<custom field id>` of a lead, contact or opportunity field, or `new_custom_field`. Columns left ' +
          'out are not imported.',
      }),
    ),
    duplicate_rule: Type.Optional(duplicateRuleSchema),
  },
  { additionalProperties: false },
)
export type ImportUpdateBody = Static<typeof importUpdateBody>

const FIXED = new Set<string>(IMPORT_TARGETS.map((t) => t.target))

export function isFixedTarget(target: string): target is FixedImportTarget {
  return FIXED.has(target)
}

/** The organization's custom fields by id, each with the object it belongs to. */
export type FieldsById = Map<string, { def: CustomFieldDef; object: CustomObjectType }>

export function fieldsById(fields: Record<CustomObjectType, CustomFieldDef[]>): FieldsById {
  const byId: FieldsById = new Map()
  for (const object of ['lead', 'contact', 'opportunity'] as const) {
    for (const def of fields[object]) byId.set(def.id, { def, object })
  }
  return byId
}

/**
 * Checks a mapping against the file's columns and the organization's fields: a field error per column, named
 * `mapping.<column>`.
 */
export function checkMapping(mapping: Record<string, string>, columns: readonly string[], fields: FieldsById): void {
  const errors: Record<string, string> = {}
  const known = new Set(columns)
  const taken = new Map<string, string>()
  for (const [column, target] of Object.entries(mapping)) {
    const at = `mapping.${column}`
    if (!known.has(column)) errors[at] = `The file has no column ${JSON.stringify(column)}.`
    else if (isFixedTarget(target)) {
      const first = taken.get(target)
      if (first !== undefined) errors[at] = `${target} is mapped from ${JSON.stringify(first)} already.`
      else taken.set(target, column)
    } else if (target.startsWith('custom.')) {
      if (!fields.has(target.slice('custom.'.length))) {
        errors[at] = `No custom field ${JSON.stringify(target.slice('custom.'.length))} in this organization.`
      }
    } else if (target !== NEW_CUSTOM_FIELD) {
      errors[at] =
        `Not a target: ${JSON.stringify(target)}. Map to a fixed target, custom.<field id> or ${NEW_CUSTOM_FIELD}.`
    }
  }
  if (Object.keys(errors).length > 0) throw new ValidationError(errors)
}
