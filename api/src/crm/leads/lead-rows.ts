import type { Db, Tables } from '../../platform/data/database.js'

/** The tables whose rows each belong to one lead of the organization (its contacts and their details, addresses…). */
export type LeadScopedTable = {
  [T in keyof Tables]: Tables[T] extends { organization_id: string; lead_id: string } ? T : never
}[keyof Tables]

/** Of those, the tables of things a lead lists oldest first (contacts, opportunities…). */
export type LeadRowsTable = {
  [T in LeadScopedTable]: Tables[T] extends { id: string; date_created: string } ? T : never
}[LeadScopedTable]

/** The rows of `table` under some leads of the organization; the caller selects (and orders). */
export function underLeads<T extends LeadScopedTable>(db: Db, table: T, organizationId: string, leadIds: string[]) {
  // The table is a type parameter: Kysely's dynamic module keeps the query typed (as in find-or-404.ts).
  return db
    .selectFrom(db.dynamic.table(table).as('t'))
    .where(db.dynamic.ref('organization_id'), '=', organizationId)
    .where(db.dynamic.ref('lead_id'), 'in', leadIds)
}

/** The rows of `table` under some leads of the organization, oldest first (as a lead shows them). */
export function rowsOfLeads<T extends LeadRowsTable>(db: Db, table: T, organizationId: string, leadIds: string[]) {
  return underLeads(db, table, organizationId, leadIds)
    .selectAll()
    .orderBy(db.dynamic.ref('date_created'))
    .orderBy(db.dynamic.ref('id'))
}

/** The contacts of some leads of the organization, oldest first; made together, in the order they were sent. */
export function contactsOfLeads(db: Db, organizationId: string, leadIds: string[]) {
  return underLeads(db, 'contact', organizationId, leadIds)
    .selectAll()
    .orderBy(db.dynamic.ref('date_created'))
    .orderBy(db.dynamic.ref('position'))
    .orderBy(db.dynamic.ref('id'))
}
