import type { Db, Tables } from '../../platform/data/database.js'

/** The tables whose rows each stand under one lead of the organization (contacts, opportunities…). */
export type LeadRowsTable = {
  [T in keyof Tables]: Tables[T] extends { id: string; organization_id: string; lead_id: string; date_created: string }
    ? T
    : never
}[keyof Tables]

/** The rows of `table` under some leads of the organization, oldest first (as a lead shows them). */
export function rowsOfLeads<T extends LeadRowsTable>(db: Db, table: T, organizationId: string, leadIds: string[]) {
  // The table is a type parameter: Kysely's dynamic module keeps the query typed (as in find-or-404.ts).
  return db
    .selectFrom(db.dynamic.table(table).as('t'))
    .selectAll()
    .where(db.dynamic.ref('organization_id'), '=', organizationId)
    .where(db.dynamic.ref('lead_id'), 'in', leadIds)
    .orderBy(db.dynamic.ref('date_created'))
    .orderBy(db.dynamic.ref('id'))
}
