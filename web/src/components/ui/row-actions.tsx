import { Button, type ButtonProps } from './button'
import { cx } from '../../lib/cx'

export interface RowActionsProps {
  /** The buttons' accessible names, which say what row they act on; they show as Edit and Delete. */
  editLabel: string
  deleteLabel: string
  onEdit: () => void
  onDelete: () => void
  className?: string
  editTone?: ButtonProps['tone']
}

/** A list row's Edit and Delete buttons. */
export function RowActions({ editLabel, deleteLabel, onEdit, onDelete, className, editTone }: RowActionsProps) {
  return (
    <span className={cx('flex gap-1', className)}>
      <Button size="sm" variant="quiet" aria-label={editLabel} tone={editTone} onPress={onEdit}>
        Edit
      </Button>
      <Button size="sm" variant="quiet" aria-label={deleteLabel} tone="danger" onPress={onDelete}>
        Delete
      </Button>
    </span>
  )
}
