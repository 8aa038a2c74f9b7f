import { useId, type ReactNode } from 'react'
import { Button } from '../../components/ui/button'

/** A composer on the lead page: a titled section with Close, tinted by the kind of message. */
export function ComposerFrame({
  title,
  className,
  onClose,
  children,
}: {
  title: string
  /** The border and background of the section. */
  className: string
  onClose: () => void
  children: ReactNode
}) {
  const headingId = useId()
  return (
    <section aria-labelledby={headingId} className={`mb-4 rounded-md border p-3 ${className}`}>
      <div className="flex items-center justify-between gap-2">
        <h3 id={headingId} className="text-sm font-semibold text-slate-900">
          {title}
        </h3>
        <Button size="sm" variant="quiet" onPress={onClose}>
          Close
        </Button>
      </div>
      {children}
    </section>
  )
}
