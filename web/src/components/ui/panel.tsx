import type { ReactNode } from 'react'
import { cx } from '../../lib/cx'

export interface PanelProps {
  title: string
  actions?: ReactNode
  children: ReactNode
  className?: string
}

/** A titled section; its heading names the region for screen readers. */
export function Panel({ title, actions, children, className }: PanelProps) {
  const id = `panel-${title.toLowerCase().replace(/[^a-z0-9]+/g, '-')}`
  return (
    <section aria-labelledby={id} className={cx('rounded-lg border border-slate-200 bg-white', className)}>
      <div className="flex items-center justify-between gap-2 border-b border-slate-100 px-4 py-3">
        <h2 id={id} className="text-sm font-semibold text-slate-900">
          {title}
        </h2>
        {actions}
      </div>
      <div className="p-4">{children}</div>
    </section>
  )
}
