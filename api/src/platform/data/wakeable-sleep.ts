/**
 * A sleep that `signal` ends early: a background loop (the outbox dispatcher, the export worker) sleeps on it until
 * its poll interval passes or work arrives. A signal while the loop is awake is kept, so its next sleep ends at once.
 */
export interface WakeableSleep {
  readonly sleep: (ms: number) => Promise<void>
  readonly signal: () => void
}

export function wakeableSleep(): WakeableSleep {
  let wake: (() => void) | undefined
  let woken = false
  return {
    signal: () => {
      woken = true
      wake?.()
    },
    sleep: (ms) =>
      new Promise<void>((resolve) => {
        if (woken) {
          resolve()
          return
        }
        const timer = setTimeout(resolve, ms)
        wake = () => {
          clearTimeout(timer)
          resolve()
        }
      }).finally(() => {
        wake = undefined
        woken = false
      }),
  }
}
