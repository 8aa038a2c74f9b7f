import type { AnyRouter } from '@tanstack/react-router'

const WAIT_MS = 10_000

/**
 * After a navigation to another screen (not the first page load, nor a change of the same screen's search), focus
 * moves to the screen's main heading, so keyboard and screen-reader users start on the new screen instead of on the
 * link they pressed. Any `main h1` qualifies: a new screen gets this without doing anything. A screen still loading
 * is waited for, unless the user has moved focus meanwhile.
 */
export function focusHeadingOnNavigation(router: AnyRouter): void {
  let stopWaiting: () => void = () => undefined
  // The screen being left: while a new screen's code loads, the router may render with the old one still showing.
  let leaving: { heading: Element; text: string | null } | undefined
  router.subscribe('onBeforeNavigate', () => {
    const heading = findHeading()
    leaving = heading === null ? undefined : { heading, text: heading.textContent }
  })
  router.subscribe('onRendered', ({ fromLocation, pathChanged }) => {
    // A change of search only (a screen filling in its defaults as it opens) leaves a wait for the heading running.
    if (fromLocation === undefined || !pathChanged) return
    stopWaiting()
    const focusedBefore = document.activeElement
    const old = leaving
    // The same element with new text is a new screen too (one lead's page, then another's).
    const isNew = (heading: HTMLElement) => old?.heading !== heading || old.text !== heading.textContent
    stopWaiting = whenHeadingShows(isNew, (heading) => {
      const focused = document.activeElement
      if (focused !== focusedBefore && focused !== null && focused !== document.body) return
      // Focusable by script only (out of the Tab order); styles.css hides the ring of a heading focused this way.
      if (!heading.hasAttribute('tabindex')) heading.tabIndex = -1
      heading.focus({ preventScroll: true })
    })
  })
}

function findHeading(): HTMLElement | null {
  return document.querySelector<HTMLElement>('main h1')
}

function whenHeadingShows(isNew: (heading: HTMLElement) => boolean, then: (heading: HTMLElement) => void): () => void {
  const find = () => {
    const heading = findHeading()
    return heading !== null && isNew(heading) ? heading : null
  }
  const heading = find()
  if (heading !== null) {
    then(heading)
    return () => undefined
  }
  const observer = new MutationObserver(() => {
    const shown = find()
    if (shown === null) return
    stop()
    then(shown)
  })
  const timer = setTimeout(() => {
    observer.disconnect()
  }, WAIT_MS)
  const stop = () => {
    observer.disconnect()
    clearTimeout(timer)
  }
  observer.observe(document.body, { childList: true, subtree: true })
  return stop
}
