import { lazy, Suspense, useState, type ReactNode } from 'react'
import { Button } from './button'
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

export interface ConfirmDialogProps {
  title: string
  isOpen: boolean
  /** Closing without confirming: Cancel, Escape or a press outside. */
  onCancel: () => void
  onConfirm: () => void
  isPending?: boolean
  confirmLabel?: string
  /** What is about to happen, in a sentence or two. */
  children: ReactNode
}

/** A question before something that cannot be undone: Cancel has the focus, the red button does it. */
export function ConfirmDialog({
  title,
  isOpen,
  onCancel,
  onConfirm,
  isPending = false,
  confirmLabel = 'Delete',
  children,
}: ConfirmDialogProps) {
  return (
    <Dialog
      title={title}
      isOpen={isOpen}
      onOpenChange={(open) => {
        if (!open) onCancel()
      }}
      size="sm"
    >
      <p className="text-sm text-slate-700">{children}</p>
      <div className="flex justify-end gap-2">
        <Button autoFocus onPress={onCancel}>
          Cancel
        </Button>
        <Button variant="danger" isPending={isPending} onPress={onConfirm}>
          {confirmLabel}
        </Button>
      </div>
    </Dialog>
  )
}

export interface ConfirmedDeleteProps {
  /** The button's text. */
  label: string
  title: string
  isPending: boolean
  /** Confirmed: do it, and call `close` once it is done. */
  onConfirm: (close: () => void) => void
  /** What is about to happen, in a sentence or two. */
  children: ReactNode
  /** The confirming button's text: Delete unless the action has a plainer name (Revoke). */
  confirmLabel?: string
}

/** A red Delete button that asks first. */
export function ConfirmedDelete({ label, title, isPending, onConfirm, children, confirmLabel }: ConfirmedDeleteProps) {
  const [isOpen, setOpen] = useState(false)
  return (
    <>
      <Button
        variant="secondary"
        tone="danger"
        onPress={() => {
          setOpen(true)
        }}
      >
        {label}
      </Button>
      <ConfirmDialog
        title={title}
        {...(confirmLabel === undefined ? {} : { confirmLabel })}
        isOpen={isOpen}
        onCancel={() => {
          setOpen(false)
        }}
        isPending={isPending}
        onConfirm={() => {
          onConfirm(() => {
            setOpen(false)
          })
        }}
      >
        {children}
      </ConfirmDialog>
    </>
  )
}
