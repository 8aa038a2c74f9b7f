import { Button } from './button'
import { twMerge } from '../../lib/class-merge'

export interface RowActionsProps {
  /** The buttons' accessible names, which say what row they act on; they show as Edit and Delete. */
  editLabel: string
  deleteLabel: string
  onEdit: () => void
  onDelete: () => void
  className?: string
  editClassName?: string
}

/** A list row's Edit and Delete buttons. */
export function RowActions({ editLabel, deleteLabel, onEdit, onDelete, className, editClassName }: RowActionsProps) {
  return (
    <span className={twMerge('flex gap-1', className)}>
      <Button size="sm" variant="quiet" aria-label={editLabel} className={editClassName} onPress={onEdit}>
        Edit
      </Button>
      <Button size="sm" variant="quiet" aria-label={deleteLabel} className="text-red-700" onPress={onDelete}>
        Delete
      </Button>
    </span>
  )
}
