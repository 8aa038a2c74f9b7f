import { NotFoundError } from '../http/errors.js'
import type { Db, Tables, Tx } from './database.js'

/** The tables whose rows belong to one organization and are named by an `id`. */
export type OrganizationTable = {
  [T in keyof Tables]: Tables[T] extends { id: string; organization_id: string } ? T : never
}[keyof Tables]

/**
 * One row of `table` that belongs to the organization, or undefined (another organization's row included); `lock`
 * holds it for the rest of the transaction on Postgres.
 */
export async function findInOrganization<T extends OrganizationTable>(
  db: Db | Tx,
  table: T,
  organizationId: string,
  id: string,
  options: { lock?: boolean } = {},
) {
  // The table is a type parameter: Kysely's dynamic module keeps the query typed (its "generic find query").
  return db
    .selectFrom(db.dynamic.table(table).as('t'))
    .selectAll()
    .where(db.dynamic.ref('organization_id'), '=', organizationId)
    .where(db.dynamic.ref('id'), '=', id)
    .$if(options.lock === true, (query) => query.forUpdate())
    .executeTakeFirst()
}

/** `findInOrganization`, or a 404 `"<what> not found."` (another organization's row is a 404 too, never a 403). */
export async function findOr404<T extends OrganizationTable>(
  db: Db | Tx,
  table: T,
  organizationId: string,
  id: string,
  what: string,
  options: { lock?: boolean } = {},
) {
  return found(await findInOrganization(db, table, organizationId, id, options), what)
}

/** What a finder found, or a 404 `"<what> not found."`: for finders that join, check visibility or build a view. */
export function found<R>(row: R, what: string): NonNullable<R> {
  if (row === undefined || row === null) throw new NotFoundError(what)
  return row
}
