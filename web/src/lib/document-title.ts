import { useEffect } from 'react'

/**
 * Names the browser tab and the history entry after the screen (`Opportunities · Leadline`, `Pipelines · Settings ·
 * Leadline`): the parts from the most specific, the product's name last. The old title comes back on leaving.
 */
export function useDocumentTitle(...parts: string[]) {
  const title = [...parts, 'Leadline'].join(' · ')
  useEffect(() => {
    const previous = document.title
    document.title = title
    return () => {
      document.title = previous
    }
  }, [title])
}
