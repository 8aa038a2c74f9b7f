import type { CustomFieldTable, Db, Dialect, Tx } from '../../platform/data/database.js'
import { newId } from '../../platform/security/ids.js'
import type { CustomField, CustomFieldType, CustomObjectType } from '@leadline/shared/custom-field-schema'
import { toCustomFieldDef } from './custom-values.js'
import { createdStamps } from '../../platform/data/stamps.js'
import type { EventAction, EventInput } from '../../integrations/events/event-repo.js'
import { nameTaken, nextPosition } from '../ordered-lists.js'

type Queryable = Db | Tx

export function customFieldView(row: CustomFieldTable): CustomField {
  const def = toCustomFieldDef(row)
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    type: def.type,
    choices: def.choices,
    accepts_multiple_values: def.accepts_multiple_values,
    position: row.position,
    organization_id: row.organization_id,
    created_by: row.created_by,
    updated_by: row.updated_by,
    date_created: row.date_created,
    date_updated: row.date_updated,
  }
}

/**
 * Serializes the custom field writes of one organization, so two concurrent requests cannot both pass the name
 * uniqueness check. SQLite needs nothing: Kysely runs its transactions one at a time.
 */
export async function lockOrganizationCustomFields(tx: Tx, dialect: Dialect, organizationId: string): Promise<void> {
  if (dialect !== 'postgres') return
  await tx.selectFrom('organization').select('id').where('id', '=', organizationId).forUpdate().executeTakeFirst()
}

export function customFieldsQuery(db: Queryable, organizationId: string, objectType: CustomObjectType) {
  return db
    .selectFrom('custom_field')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('object_type', '=', objectType)
    .orderBy('position')
    .orderBy('date_created')
    .orderBy('id')
}

/** A field of the organization and object type: another object type's field is not found, like another org's. */
export async function findCustomField(db: Queryable, organizationId: string, objectType: CustomObjectType, id: string) {
  return customFieldsQuery(db, organizationId, objectType).where('id', '=', id).executeTakeFirst()
}

/** Whether another field of the organization and object type already has this name, ignoring case. */
export async function customFieldNameTaken(
  db: Queryable,
  organizationId: string,
  objectType: CustomObjectType,
  name: string,
  exceptId?: string,
): Promise<boolean> {
  const scope = { organization_id: organizationId, object_type: objectType }
  return nameTaken(db, 'custom_field', 'name', scope, name, exceptId)
}

/** How many values the field holds across the organization's objects: one count, however many there are. */
export async function countCustomFieldValues(db: Queryable, organizationId: string, fieldId: string): Promise<number> {
  const row = await db
    .selectFrom('custom_value')
    .select((eb) => eb.fn.countAll<string | number>().as('n'))
    .where('organization_id', '=', organizationId)
    .where('field_id', '=', fieldId)
    .executeTakeFirstOrThrow()
  return Number(row.n)
}

/** How many values the field holds, and the most any one object holds. */
export async function customFieldUsage(
  db: Queryable,
  organizationId: string,
  fieldId: string,
): Promise<{ values: number; mostPerObject: number }> {
  const rows = await db
    .selectFrom('custom_value')
    .select((eb) => ['object_id', eb.fn.countAll<string | number>().as('n')])
    .where('organization_id', '=', organizationId)
    .where('field_id', '=', fieldId)
    .groupBy('object_id')
    .execute()
  // One row per object that holds a value: a loop, since spreading a hundred thousand counts into Math.max overflows
  // the call stack.
  let values = 0
  let mostPerObject = 0
  for (const row of rows) {
    const n = Number(row.n)
    values += n
    if (n > mostPerObject) mostPerObject = n
  }
  return { values, mostPerObject }
}

export interface CustomFieldValues {
  name: string
  description: string | null
  type: CustomFieldType
  choices: string[] | null
  accepts_multiple_values: boolean
}

function columns(values: CustomFieldValues) {
  return {
    name: values.name,
    description: values.description,
    type: values.type,
    choices: values.choices === null ? null : JSON.stringify(values.choices),
    // better-sqlite3 cannot bind booleans; Postgres reads '0'/'1' as a boolean.
    accepts_multiple_values: values.accepts_multiple_values ? 1 : 0,
  }
}

/** A custom field's event (`custom_field.lead`, `custom_field.contact`, `custom_field.opportunity`), under no lead. */
export function customFieldEvent(objectType: CustomObjectType, view: { id: string }, action: EventAction): EventInput {
  return { objectType: `custom_field.${objectType}`, objectId: view.id, action, leadId: null, data: view }
}

export async function insertCustomField(
  db: Queryable,
  input: {
    organizationId: string
    objectType: CustomObjectType
    userId: string
    now: string
    values: CustomFieldValues
  },
): Promise<CustomFieldTable> {
  const position = await nextPosition(db, 'custom_field', {
    organization_id: input.organizationId,
    object_type: input.objectType,
  })
  const row: CustomFieldTable = {
    id: newId('customField'),
    organization_id: input.organizationId,
    object_type: input.objectType,
    ...columns(input.values),
    // A new field goes last.
    position,
    ...createdStamps(input.userId, input.now),
  }
  await db.insertInto('custom_field').values(row).execute()
  return row
}

export async function updateCustomField(
  db: Queryable,
  organizationId: string,
  id: string,
  input: { userId: string; now: string; values: CustomFieldValues },
): Promise<void> {
  await db
    .updateTable('custom_field')
    .set({ ...columns(input.values), updated_by: input.userId, date_updated: input.now })
    .where('organization_id', '=', organizationId)
    .where('id', '=', id)
    .execute()
}

/** Deletes a field; its values go with it (the foreign key cascades). */
export async function deleteCustomField(db: Queryable, organizationId: string, id: string): Promise<void> {
  await db.deleteFrom('custom_field').where('organization_id', '=', organizationId).where('id', '=', id).execute()
}
