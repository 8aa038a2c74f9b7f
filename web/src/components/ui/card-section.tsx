import type { ReactNode } from 'react'

export interface CardSectionProps {
  /** The heading's id: it names the section, and a table inside may be labelled by it too. */
  headingId: string
  title: string
  /** Shown across from the heading. */
  actions?: ReactNode
  children: ReactNode
}

/** A bordered card of a settings screen, a region named by its heading. */
export function CardSection({ headingId, title, actions, children }: CardSectionProps) {
  return (
    <section
      aria-labelledby={headingId}
      className="flex flex-col gap-4 rounded-lg border border-slate-200 bg-white p-5"
    >
      <div className="flex flex-wrap items-center justify-between gap-3">
        <h2 id={headingId} className="text-lg font-semibold text-slate-900">
          {title}
        </h2>
        {actions}
      </div>
      {children}
    </section>
  )
}
