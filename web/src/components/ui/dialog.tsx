import { lazy, Suspense } from 'react'
import type { ModalDialogProps } from './modal-dialog'

export type DialogProps = ModalDialogProps

const ModalDialog = lazy(() => import('./modal-dialog').then((m) => ({ default: m.ModalDialog })))

/**
 * A modal dialog: focus moves in and is trapped, Escape closes it, focus returns to the opener. React Aria's modal
 * code is fetched when a dialog first opens, so pages with dialogs stay inside the first-route budget.
 */
export function Dialog(props: DialogProps) {
  if (!props.isOpen) return null
  return (
    <Suspense fallback={null}>
      <ModalDialog {...props} />
    </Suspense>
  )
}
