import type { ReactNode } from 'react'

const headerCell = 'px-3 py-2 font-semibold'

// Every sideways scroll box of the app is `relative`: the screen-reader labels inside it are absolutely placed and,
// with no positioned box between, were not clipped by it. They stuck out and the whole page scrolled on a phone.

/**
 * A settings list as a table: a header cell per column (the last, `actions`, named for screen readers only) and a row
 * per item, or `ifNone` said instead when there are none. Named by the heading whose id is `labelledBy`, or by `label`.
 */
export function SettingsTable<Row>({
  columns,
  actions = true,
  labelledBy,
  label,
  framed = false,
  className = framed
    ? 'relative overflow-x-auto rounded-lg border border-slate-200 bg-white'
    : 'relative overflow-x-auto',
  minWidth = '',
  rows,
  ifNone,
  children,
}: {
  columns: readonly string[]
  actions?: boolean
  labelledBy?: string
  label?: string
  /** Bordered on a white ground, for a table that stands on the screen rather than in a card. */
  framed?: boolean
  className?: string
  /** The narrowest the table is drawn (a width class): narrower screens scroll it rather than squeeze its columns. */
  minWidth?: string
  rows: readonly Row[]
  ifNone?: string
  /** A row's `<tr>`, with its key. */
  children: (row: Row) => ReactNode
}) {
  if (rows.length === 0 && ifNone !== undefined) return <p className="text-sm text-slate-500">{ifNone}</p>
  return (
    <div className={className}>
      <table aria-labelledby={labelledBy} aria-label={label} className={`w-full text-left text-sm ${minWidth}`}>
        <thead className="border-b border-slate-200 text-xs text-slate-600">
          <tr>
            {columns.map((column) => (
              <th key={column} scope="col" className={headerCell}>
                {column}
              </th>
            ))}
            {actions ? (
              <th scope="col" className={headerCell}>
                <span className="sr-only">Actions</span>
              </th>
            ) : null}
          </tr>
        </thead>
        <tbody className="divide-y divide-slate-100">{rows.map((row) => children(row))}</tbody>
      </table>
    </div>
  )
}
