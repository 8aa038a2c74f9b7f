import { startTransition, useEffect, useState } from 'react'

/**
 * How many of `total` rows to render: at most `first` when they first arrive, all of them right after, in a
 * transition. A long list's first screenful is then painted without waiting for rows below it (two hundred inbox
 * rows, each with its buttons, took Chromium 140 ms to render and 120 ms to lay out before anything showed); the rest
 * follow at once, and React yields to the browser while it renders them.
 */
export function useProgressiveCount(total: number, first: number): number {
  const [isAll, setAll] = useState(false)
  const isCut = !isAll && total > first
  useEffect(() => {
    if (isCut) {
      startTransition(() => {
        setAll(true)
      })
    }
  }, [isCut])
  return isAll ? total : Math.min(total, first)
}
