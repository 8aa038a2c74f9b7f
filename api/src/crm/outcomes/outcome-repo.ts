import { OUTCOME_APPLIES_TO, type Outcome, type OutcomeAppliesTo } from '@leadline/shared/outcome-schema'
import { sql } from 'kysely'
import type { Db, Dialect, OutcomeTable } from '../../platform/data/database.js'
import type { EventAction, EventInput } from '../../integrations/events/event-repo.js'
import { isUniqueViolation } from '../../platform/data/db-errors.js'
import { ValidationError } from '../../platform/http/errors.js'
import { newId } from '../../platform/security/ids.js'
import { foldCase } from '../../platform/text/text.js'
import { findInOrganization } from '../../platform/data/find-or-404.js'
import { createdStamps } from '../../platform/data/stamps.js'
import { nextPosition } from '../ordered-lists.js'

/**
 * The organization's outcomes in its order, the order a picker shows them in; outcomes at one position (two admins
 * adding at once) by name ignoring case, the same in both dialects.
 */
export function outcomesQuery(db: Db, dialect: Dialect, organizationId: string) {
  const collate = dialect === 'postgres' ? sql` collate "C"` : sql``
  return db
    .selectFrom('outcome')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .orderBy('position')
    .orderBy(sql`name_key${collate}`)
}

/** One outcome of the organization, read by its primary key. */
export async function findOutcome(db: Db, organizationId: string, id: string) {
  return findInOrganization(db, 'outcome', organizationId, id)
}

export function outcomeView(row: OutcomeTable): Outcome {
  return {
    id: row.id,
    organization_id: row.organization_id,
    name: row.name,
    description: row.description,
    type: row.type,
    applies_to: appliesTo(row),
    position: row.position,
    created_by: row.created_by,
    updated_by: row.updated_by,
    date_created: row.date_created,
    date_updated: row.date_updated,
  }
}

function appliesTo(row: OutcomeTable): OutcomeAppliesTo[] {
  const stored: unknown = JSON.parse(row.applies_to)
  return OUTCOME_APPLIES_TO.filter((kind) => Array.isArray(stored) && stored.includes(kind))
}

/** Whether an outcome may be set on a call. */
export function appliesToCalls(row: OutcomeTable): boolean {
  return appliesTo(row).includes('calls')
}

/** An outcome's event: organization-wide, under no lead. */
export function outcomeEvent(view: Outcome, action: EventAction, previous?: Outcome): EventInput {
  return {
    objectType: 'outcome',
    objectId: view.id,
    action,
    leadId: null,
    data: view,
    ...(previous === undefined ? {} : { previous }),
  }
}

export interface OutcomeFields {
  name: string
  description: string | null
  type: OutcomeTable['type']
  applies_to: OutcomeAppliesTo[]
}

function columns(fields: OutcomeFields) {
  return {
    name: fields.name,
    name_key: foldCase(fields.name),
    description: fields.description,
    type: fields.type,
    applies_to: JSON.stringify(fields.applies_to),
  }
}

const OUTCOME_NAME_TAKEN = 'An outcome with this name already exists.'

// The (organization_id, name_key) unique constraint settles two writers racing for one name: a field error on `name`.
async function guardName<T>(write: Promise<T>): Promise<T> {
  try {
    return await write
  } catch (error) {
    if (isUniqueViolation(error)) throw ValidationError.field('name', OUTCOME_NAME_TAKEN)
    throw error
  }
}

export async function insertOutcome(
  db: Db,
  input: OutcomeFields & { organizationId: string; userId: string; now: string },
): Promise<OutcomeTable> {
  const position = await nextPosition(db, 'outcome', { organization_id: input.organizationId })
  const row: OutcomeTable = {
    id: newId('outcome'),
    organization_id: input.organizationId,
    ...columns(input),
    // A new outcome goes last.
    position,
    ...createdStamps(input.userId, input.now),
  }
  await guardName(db.insertInto('outcome').values(row).execute())
  return row
}

export async function updateOutcome(
  db: Db,
  row: OutcomeTable,
  fields: OutcomeFields,
  change: { userId: string; now: string },
): Promise<OutcomeTable> {
  const set = { ...columns(fields), updated_by: change.userId, date_updated: change.now }
  await guardName(
    db
      .updateTable('outcome')
      .set(set)
      .where('organization_id', '=', row.organization_id)
      .where('id', '=', row.id)
      .execute(),
  )
  return { ...row, ...set }
}

/**
 * Puts the organization's outcomes in the order of `ids` (every one of them, each once: the caller checked) and
 * returns the events of those that moved.
 */
export async function reorderOutcomes(
  db: Db,
  organizationId: string,
  ids: readonly string[],
  change: { userId: string; now: string },
): Promise<EventInput[]> {
  const rows = await db.selectFrom('outcome').selectAll().where('organization_id', '=', organizationId).execute()
  const byId = new Map(rows.map((row) => [row.id, row]))
  const events: EventInput[] = []
  for (const [position, id] of ids.entries()) {
    const row = byId.get(id)
    if (row === undefined || row.position === position) continue
    const set = { position, updated_by: change.userId, date_updated: change.now }
    await db
      .updateTable('outcome')
      .set(set)
      .where('organization_id', '=', organizationId)
      .where('id', '=', id)
      .execute()
    events.push(outcomeEvent(outcomeView({ ...row, ...set }), 'updated', outcomeView(row)))
  }
  return events
}

export async function deleteOutcome(db: Db, row: OutcomeTable): Promise<void> {
  await db.deleteFrom('outcome').where('organization_id', '=', row.organization_id).where('id', '=', row.id).execute()
}
