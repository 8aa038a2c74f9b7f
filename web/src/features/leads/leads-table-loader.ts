/**
 * The leads table's code (and TanStack Virtual's), loaded apart from the list: the route's loader starts it beside
 * the list's first page, and the list renders it lazily. A module of its own, so that the loader (in the app's first
 * chunk) brings in this line alone.
 */
export const loadLeadsTable = () => import('./leads-table')
