import type { SavedSearch, SavedSearchType, SelectedField } from '@leadline/shared/saved-search-schema'
import { sql } from 'kysely'
import type { Db, Dialect, SavedSearchTable } from '../../platform/data/database.js'
import { newId } from '../../platform/security/ids.js'
import { createdStamps } from '../../platform/data/stamps.js'

// Smart Views (decision 0056). A shared view is the organization's; an unshared one is its user's alone: to everyone
// else it does not exist. Every read here goes through `visible`.

/** The views `userId` may see: the organization's shared ones and their own. */
function visible(db: Db, organizationId: string, userId: string) {
  return db
    .selectFrom('saved_search')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where((eb) => eb.or([eb('is_shared', '=', 1), eb('user_id', '=', userId)]))
}

/** One view the user may see. */
export async function findVisibleSavedSearch(
  db: Db,
  scope: { organizationId: string; userId: string },
  id: string,
): Promise<SavedSearchTable | undefined> {
  return visible(db, scope.organizationId, scope.userId).where('id', '=', id).executeTakeFirst()
}

/** The views the user may see of `types`, by name (byte order in both dialects), then id. */
export function visibleSavedSearchesQuery(
  db: Db,
  dialect: Dialect,
  scope: { organizationId: string; userId: string },
  types: readonly SavedSearchType[],
) {
  const collate = dialect === 'postgres' ? sql` collate "C"` : sql``
  return visible(db, scope.organizationId, scope.userId)
    .where('type', 'in', types)
    .orderBy(sql`name${collate}`)
    .orderBy('id')
}

/** The wire form of a stored view. */
export function savedSearchView(row: SavedSearchTable): SavedSearch {
  return {
    id: row.id,
    organization_id: row.organization_id,
    user_id: row.user_id,
    name: row.name,
    description: row.description,
    type: row.type,
    query: row.query,
    s_query: row.s_query === null ? null : (JSON.parse(row.s_query) as Record<string, unknown>),
    selected_fields: row.selected_fields === null ? null : (JSON.parse(row.selected_fields) as SelectedField[]),
    is_shared: row.is_shared === 1,
    shared_with: row.is_shared === 1 ? [row.organization_id] : [],
    is_user_dependent: false,
    created_by: row.created_by,
    updated_by: row.updated_by,
    date_created: row.date_created,
    date_updated: row.date_updated,
  }
}

/** What a view is made of, checked. */
export interface SavedSearchFields {
  name: string
  description: string | null
  type: SavedSearchType
  query: string | null
  s_query: Record<string, unknown> | null
  selected_fields: SelectedField[] | null
  is_shared: boolean
}

function columns(fields: SavedSearchFields) {
  return {
    name: fields.name,
    description: fields.description,
    type: fields.type,
    query: fields.query,
    s_query: fields.s_query === null ? null : JSON.stringify(fields.s_query),
    selected_fields: fields.selected_fields === null ? null : JSON.stringify(fields.selected_fields),
    is_shared: fields.is_shared ? 1 : 0,
  }
}

export async function insertSavedSearch(
  db: Db,
  input: SavedSearchFields & { organizationId: string; userId: string; now: string },
): Promise<SavedSearchTable> {
  const row: SavedSearchTable = {
    id: newId('savedSearch'),
    organization_id: input.organizationId,
    user_id: input.userId,
    ...columns(input),
    ...createdStamps(input.userId, input.now),
  }
  await db.insertInto('saved_search').values(row).execute()
  return row
}

/** Replaces a view's fields; `user_id` (its owner) stays. */
export async function updateSavedSearch(
  db: Db,
  row: SavedSearchTable,
  fields: SavedSearchFields,
  change: { userId: string; now: string },
): Promise<SavedSearchTable> {
  const set = { ...columns(fields), updated_by: change.userId, date_updated: change.now }
  await db
    .updateTable('saved_search')
    .set(set)
    .where('organization_id', '=', row.organization_id)
    .where('id', '=', row.id)
    .execute()
  return { ...row, ...set }
}

export async function deleteSavedSearch(db: Db, row: SavedSearchTable): Promise<void> {
  await db
    .deleteFrom('saved_search')
    .where('organization_id', '=', row.organization_id)
    .where('id', '=', row.id)
    .execute()
}
