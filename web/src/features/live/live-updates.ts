import { hashKey, matchQuery, type QueryClient, type QueryFilters } from '@tanstack/react-query'
import { isLiveEvent } from '@leadline/shared/live-event'
import { authQueries } from '../auth/auth-queries'
import { staleQueriesOf } from './live-keys'

/** What the client needs of EventSource (tests hand in their own). */
export interface LiveSource {
  readonly readyState: number
  onmessage: ((event: MessageEvent<string>) => void) | null
  onerror: ((event: Event) => void) | null
  addEventListener(type: 'reset', listener: () => void): void
  close(): void
}

/** EventSource's CLOSED: it gave up (an answer other than 200, such as the 401 of an ended session). */
const CLOSED = 2
/** After the BFF refused the stream while the session still stood (it was stopping, say), ask again this much later. */
const REOPEN_AFTER_MS = 30_000
/** Events that come together (a bulk change sends one per task) are applied together. */
const GATHER_MS = 50

/**
 * While someone is signed in, follows the BFF's `/events` and invalidates the queries of what others changed, so
 * open screens refresh themselves (decision 0022). EventSource reconnects by itself, with `Last-Event-ID`; when the
 * BFF refuses it (the session ended), it stops, and the session query is asked again so the app notices at once.
 * Invalidations wait while a mutation of this tab is under way, so a refetch does not undo its optimistic change.
 * Answers a function that stops it all.
 */
export function startLiveUpdates(
  queryClient: QueryClient,
  open: (url: string) => LiveSource = (url) => new EventSource(url),
): () => void {
  const sessionKey = authQueries.session().queryKey
  const sessionHash = hashKey(sessionKey)
  let source: LiveSource | undefined
  let reopen: ReturnType<typeof setTimeout> | undefined
  let waiting: QueryFilters[] = []
  let everything = false
  let gathering: ReturnType<typeof setTimeout> | undefined

  const flush = () => {
    if (queryClient.isMutating() > 0) return
    const stale = waiting
    if (everything) void queryClient.invalidateQueries()
    else if (stale.length > 0)
      void queryClient.invalidateQueries({ predicate: (query) => stale.some((filters) => matchQuery(filters, query)) })
    everything = false
    waiting = []
  }
  const flushSoon = () => {
    gathering ??= setTimeout(() => {
      gathering = undefined
      flush()
    }, GATHER_MS)
  }

  const disconnect = () => {
    source?.close()
    source = undefined
    clearTimeout(reopen)
    clearTimeout(gathering)
    reopen = undefined
    gathering = undefined
    waiting = []
    everything = false
  }

  const connect = () => {
    if (source !== undefined || reopen !== undefined) return
    const opened = open('/events')
    source = opened
    opened.onmessage = (message) => {
      let parsed: unknown
      try {
        parsed = JSON.parse(message.data)
      } catch {
        return
      }
      if (!isLiveEvent(parsed)) return
      waiting.push(...staleQueriesOf(parsed))
      flushSoon()
    }
    // The BFF could not tell what was missed: everything may be stale.
    opened.addEventListener('reset', () => {
      everything = true
      flushSoon()
    })
    opened.onerror = () => {
      if (opened.readyState !== CLOSED || source !== opened) return
      source = undefined
      reopen = setTimeout(() => {
        reopen = undefined
        follow()
      }, REOPEN_AFTER_MS)
      // A 401 here is an ended session: asking for the session again makes the app say so and go to sign-in.
      void queryClient.invalidateQueries({ queryKey: sessionKey })
    }
  }

  const follow = () => {
    if (queryClient.getQueryData(sessionKey) === undefined) disconnect()
    else connect()
  }

  const unsubscribeQueries = queryClient.getQueryCache().subscribe((event) => {
    if (event.query.queryHash === sessionHash || event.type === 'removed') follow()
  })
  const unsubscribeMutations = queryClient.getMutationCache().subscribe(() => {
    if (gathering === undefined && (everything || waiting.length > 0)) flush()
  })
  follow()
  return () => {
    unsubscribeQueries()
    unsubscribeMutations()
    disconnect()
  }
}
