import type { ReactNode } from 'react'
import { Dialog as AriaDialog, Heading, Modal, ModalOverlay } from 'react-aria-components'

export interface ModalDialogProps {
  title: string
  isOpen: boolean
  onOpenChange: (isOpen: boolean) => void
  children: ReactNode
  size?: 'sm' | 'md' | 'lg'
  /** Keep it open on outside clicks while a form has unsaved input. */
  isDismissable?: boolean
}

const widths = { sm: 'max-w-sm', md: 'max-w-lg', lg: 'max-w-2xl' } as const

/** The modal itself; load it through `Dialog`, which fetches this code only when a dialog first opens. */
export function ModalDialog({
  title,
  isOpen,
  onOpenChange,
  children,
  size = 'md',
  isDismissable = true,
}: ModalDialogProps) {
  return (
    <ModalOverlay
      isOpen={isOpen}
      onOpenChange={onOpenChange}
      isDismissable={isDismissable}
      className="fixed inset-0 z-40 flex items-start justify-center overflow-y-auto bg-slate-900/40 p-4 pt-[10vh]"
    >
      <Modal className={`w-full ${widths[size]} rounded-lg bg-white shadow-xl`}>
        <AriaDialog className="flex flex-col gap-4 p-6 outline-none">
          <Heading slot="title" className="text-lg font-semibold text-slate-900">
            {title}
          </Heading>
          {children}
        </AriaDialog>
      </Modal>
    </ModalOverlay>
  )
}
