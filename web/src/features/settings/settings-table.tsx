import type { ReactNode } from 'react'

const headerCell = 'px-3 py-2 font-semibold'

/**
 * A settings list as a table: a header cell per column (the last, `actions`, named for screen readers only) and the
 * rows given. Named by the heading whose id is `labelledBy`, or by `label`.
 */
export function SettingsTable({
  columns,
  actions = true,
  labelledBy,
  label,
  className = 'overflow-x-auto',
  children,
}: {
  columns: readonly string[]
  actions?: boolean
  labelledBy?: string
  label?: string
  className?: string
  children: ReactNode
}) {
  return (
    <div className={className}>
      <table aria-labelledby={labelledBy} aria-label={label} className="w-full text-left text-sm">
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
        <tbody className="divide-y divide-slate-100">{children}</tbody>
      </table>
    </div>
  )
}
