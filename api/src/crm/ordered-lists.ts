import type { Kysely } from 'kysely'
import type { Db, Tx } from '../platform/data/database.js'
import { sameLabel } from './statuses/status-input.js'

// The lists an admin orders by hand: lead statuses, pipelines, a pipeline's statuses, call outcomes and one object
// type's custom fields. Each row has an `id`, an `organization_id` and a `position`; a new row goes last, names are
// unique ignoring case within the list, and a reorder gives each row its index.

/** The most rows one reorder lists: far more than an organization's statuses, outcomes or fields; a bound on its work. */
export const REORDER_MAX = 1000

/** The tables of hand-ordered lists. */
export type OrderedTable = 'lead_status' | 'opportunity_status' | 'pipeline' | 'outcome' | 'custom_field'

/** Which rows form one list: the organization's (`organization_id`), or a narrower one. */
export interface ListScope {
  organization_id?: string
  pipeline_id?: string
  object_type?: string
}

/** The columns these helpers touch, common to every ordered table. */
interface OrderedRow {
  id: string
  organization_id: string
  pipeline_id: string
  object_type: string
  position: number
  label: string
  name: string
}

type Queryable = Db | Tx

/** The database as seen through the columns the ordered tables share (each helper names only those). */
function ordered(db: Queryable): Kysely<Record<OrderedTable, OrderedRow>> {
  return db as unknown as Kysely<Record<OrderedTable, OrderedRow>>
}

function scoped<Q extends { where: (column: keyof ListScope, op: '=', value: string) => Q }>(
  query: Q,
  scope: ListScope,
): Q {
  let q = query
  for (const [column, value] of Object.entries(scope) as [keyof ListScope, string | undefined][]) {
    if (value !== undefined) q = q.where(column, '=', value)
  }
  return q
}

/** The position after the list's last row: 0 for an empty list. */
export async function nextPosition(db: Queryable, table: OrderedTable, scope: ListScope): Promise<number> {
  const query = ordered(db)
    .selectFrom(table)
    .select((eb) => eb.fn.max<number | null>('position').as('position'))
  const last = await scoped(query, scope).executeTakeFirstOrThrow()
  return last.position === null ? 0 : last.position + 1
}

/**
 * Whether another row of the list already has this name (`label` or `name`), ignoring case. Compared here rather
 * than with SQL lower(), which folds only ASCII on SQLite.
 */
export async function nameTaken(
  db: Queryable,
  table: OrderedTable,
  column: 'label' | 'name',
  scope: ListScope,
  name: string,
  exceptId?: string,
): Promise<boolean> {
  const rows = await scoped(ordered(db).selectFrom(table).select(['id', column]), scope).execute()
  return rows.some((row) => row.id !== exceptId && sameLabel(row[column], name))
}

/** How many rows the organization's list has. */
export async function countInList(db: Queryable, table: OrderedTable, organizationId: string): Promise<number> {
  const row = await ordered(db)
    .selectFrom(table)
    .select((eb) => eb.fn.countAll<string | number>().as('count'))
    .where('organization_id', '=', organizationId)
    .executeTakeFirstOrThrow()
  return Number(row.count)
}

/** Puts one row at `position`; its `date_updated` stays (a reorder is not a change to the row). */
export async function setPosition(
  db: Queryable,
  table: OrderedTable,
  organizationId: string,
  id: string,
  position: number,
): Promise<void> {
  await ordered(db)
    .updateTable(table)
    .set({ position })
    .where('organization_id', '=', organizationId)
    .where('id', '=', id)
    .execute()
}

/** Gives each row of `ids` its index as its position. */
export async function setPositions(
  db: Queryable,
  table: OrderedTable,
  organizationId: string,
  ids: readonly string[],
): Promise<void> {
  for (const [position, id] of ids.entries()) await setPosition(db, table, organizationId, id, position)
}
