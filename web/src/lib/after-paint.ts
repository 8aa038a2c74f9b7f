import { useEffect, useState } from 'react'

/**
 * Runs `run` once the browser has painted the next frame: a frame callback runs before that paint, and a task it
 * queues runs after it. Returns a function that cancels it if it has not run yet.
 */
export function afterNextPaint(run: () => void): () => void {
  let timer: ReturnType<typeof setTimeout> | undefined
  const frame = requestAnimationFrame(() => {
    timer = setTimeout(run, 0)
  })
  return () => {
    cancelAnimationFrame(frame)
    if (timer !== undefined) clearTimeout(timer)
  }
}

/** False until the component's first frame has been painted, true from then on. */
export function usePainted(): boolean {
  const [painted, setPainted] = useState(false)
  useEffect(
    () =>
      afterNextPaint(() => {
        setPainted(true)
      }),
    [],
  )
  return painted
}
