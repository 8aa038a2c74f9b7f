import { useSyncExternalStore } from 'react'
import { Button } from './button'

/*
 * A small toast store and region instead of React Aria's UNSTABLE_Toast: that one costs about 15 KB gzipped on the
 * first route (its budget is 130 KB) and is not stable yet. The region is a labelled live region; each toast can be
 * dismissed with a real button, and errors stay longer.
 */

export interface ToastMessage {
  title: string
  description?: string
  tone?: 'info' | 'error'
  /** One thing to do about it (Undo); pressing it also dismisses the toast. */
  action?: { label: string; onPress: () => void }
}

interface QueuedToast extends ToastMessage {
  key: number
}

const MAX_VISIBLE = 4
let toasts: readonly QueuedToast[] = []
let nextKey = 1
const listeners = new Set<() => void>()

function emit() {
  for (const listener of listeners) listener()
}

export function dismissToast(key: number) {
  toasts = toasts.filter((t) => t.key !== key)
  emit()
}

/** Shows a message for a while (errors and those with an action longer); anything can call it, the query client included. */
export function showToast(
  message: ToastMessage,
  timeout = message.tone === 'error' || message.action !== undefined ? 10_000 : 5000,
) {
  const key = nextKey++
  toasts = [...toasts, { ...message, key }].slice(-MAX_VISIBLE)
  emit()
  setTimeout(() => {
    dismissToast(key)
  }, timeout)
}

function subscribe(listener: () => void) {
  listeners.add(listener)
  return () => {
    listeners.delete(listener)
  }
}

const NO_TOASTS: readonly QueuedToast[] = []

/** A page rendered by the server, and the browser's first render of it, show none: toasts come after. */
function noToasts(): readonly QueuedToast[] {
  return NO_TOASTS
}

export function ToastRegionView() {
  const visible = useSyncExternalStore(subscribe, () => toasts, noToasts)
  return (
    <section
      aria-label="Notifications"
      className="pointer-events-none fixed right-4 bottom-4 z-50 flex w-96 max-w-[calc(100vw-2rem)] flex-col gap-2"
    >
      <ol className="flex flex-col gap-2" aria-live="polite">
        {visible.map((toast) => (
          // The role sits inside the item: on the <li> itself it would hide the item from the list (axe: list).
          <li key={toast.key} className="pointer-events-auto">
            <div
              role={toast.tone === 'error' ? 'alert' : 'status'}
              className={`flex items-start gap-3 rounded-md border px-4 py-3 shadow-lg ${
                toast.tone === 'error'
                  ? 'border-red-200 bg-red-50 text-red-900'
                  : 'border-slate-200 bg-white text-slate-900'
              }`}
            >
              <div className="flex min-w-0 flex-1 flex-col">
                <p className="text-sm font-semibold">{toast.title}</p>
                {toast.description === undefined ? null : <p className="text-sm">{toast.description}</p>}
              </div>
              {toast.action === undefined ? null : (
                <Button
                  size="sm"
                  className="-my-1"
                  onPress={() => {
                    dismissToast(toast.key)
                    toast.action?.onPress()
                  }}
                >
                  {toast.action.label}
                </Button>
              )}
              <Button
                size="sm"
                variant="quiet"
                aria-label="Dismiss notification"
                className="-my-1 -mr-2"
                onPress={() => {
                  dismissToast(toast.key)
                }}
              >
                ×
              </Button>
            </div>
          </li>
        ))}
      </ol>
    </section>
  )
}
