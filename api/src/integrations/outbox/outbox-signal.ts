// Tells this process's dispatchers that outbox rows were written, so a delivery starts at once rather than at the
// next poll. Another process's rows are found by polling.

const listeners = new Set<() => void>()

/** Calls `listener` whenever this process writes outbox rows; answers the function that stops it. */
export function onOutboxWritten(listener: () => void): () => void {
  listeners.add(listener)
  return () => {
    listeners.delete(listener)
  }
}

export function outboxWritten(): void {
  for (const listener of listeners) listener()
}
