import { showToast } from '../../components/ui/toast'

// The last change that can be undone, for the toast's Undo button and the `u` key alike: whichever comes first
// undoes it, once.

let last: (() => void) | undefined

export function offerUndo(title: string, undo: () => void): void {
  let done = false
  const once = () => {
    if (done) return
    done = true
    if (last === once) last = undefined
    undo()
  }
  last = once
  showToast({ title, action: { label: 'Undo', onPress: once } })
}

/** Undoes the last change offered; false when there is none. */
export function undoLast(): boolean {
  const undo = last
  if (undo === undefined) return false
  undo()
  return true
}
