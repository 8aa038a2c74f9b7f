import type { ReactNode } from 'react'
import { cx } from '../../lib/cx'

/** How a titled section looks: a panel of the lead page (small heading over a rule) or a settings card. */
const LOOKS = {
  panel: {
    section: 'rounded-lg border border-slate-200 bg-white',
    header: 'flex items-center justify-between gap-2 border-b border-slate-100 px-4 py-3',
    heading: 'text-sm font-semibold text-slate-900',
  },
  card: {
    section: 'flex flex-col gap-4 rounded-lg border border-slate-200 bg-white p-5',
    header: 'flex flex-wrap items-center justify-between gap-3',
    heading: 'text-lg font-semibold text-slate-900',
  },
} as const

export interface TitledSectionProps {
  /** The heading's id: it names the section, and a table inside may be labelled by it too. */
  headingId: string
  title: string
  /** Shown across from the heading. */
  actions?: ReactNode
  children: ReactNode
  look: keyof typeof LOOKS
  className?: string
}

/** A section named by its heading, with actions across from it: Panel and CardSection are its two looks. */
export function TitledSection({ headingId, title, actions, children, look, className }: TitledSectionProps) {
  const style = LOOKS[look]
  return (
    <section aria-labelledby={headingId} className={cx(style.section, className)}>
      <div className={style.header}>
        <h2 id={headingId} className={style.heading}>
          {title}
        </h2>
        {actions}
      </div>
      {look === 'panel' ? <div className="p-4">{children}</div> : children}
    </section>
  )
}

export interface PanelProps {
  title: string
  actions?: ReactNode
  children: ReactNode
  className?: string
}

/** A titled section; its heading names the region for screen readers. */
export function Panel({ title, ...rest }: PanelProps) {
  const id = `panel-${title.toLowerCase().replace(/[^a-z0-9]+/g, '-')}`
  return <TitledSection headingId={id} title={title} look="panel" {...rest} />
}
