import { MutationObserver, QueryClient } from '@tanstack/react-query'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { authQueries, type AuthSession } from '../auth/auth-queries'
import { taskQueries } from '../tasks/task-queries'
import { startLiveUpdates, type LiveSource } from './live-updates'

/** A stand-in for EventSource that the test drives. */
class FakeSource implements LiveSource {
  readyState = 0
  onmessage: ((event: MessageEvent<string>) => void) | null = null
  onerror: ((event: Event) => void) | null = null
  closed = false
  readonly #resets: (() => void)[] = []

  addEventListener(_type: 'reset', listener: () => void): void {
    this.#resets.push(listener)
  }

  close(): void {
    this.closed = true
    this.readyState = 2
  }

  send(data: string): void {
    this.readyState = 1
    this.onmessage?.(new MessageEvent('message', { data }))
  }

  reset(): void {
    for (const listener of this.#resets) listener()
  }

  /** A dropped connection (EventSource retries by itself) or a refused one (it gives up: CLOSED). */
  fail(gaveUp: boolean): void {
    this.readyState = gaveUp ? 2 : 0
    this.onerror?.(new Event('error'))
  }
}

const session: AuthSession = {
  user: { id: 'user_1', first_name: 'Rey', last_name: 'Rep', email: 'rey@example.com', display_name: 'Rey Rep' },
  organization: { id: 'orga_1', name: 'Acme' },
  role: 'user',
  time_zone: 'UTC',
}
const inbox = taskQueries.list({ view: 'inbox', assignee: 'user_1' }).queryKey
const taskEvent = JSON.stringify({
  id: 'ev_1',
  object_type: 'task.lead',
  object_id: 'task_1',
  action: 'completed',
  lead_id: 'lead_1',
  user_id: 'user_2',
  date_created: '2026-03-01T12:00:00.000000+00:00',
})

function setup() {
  const queryClient = new QueryClient()
  const sources: FakeSource[] = []
  const stop = startLiveUpdates(queryClient, (url) => {
    expect(url).toBe('/events')
    const source = new FakeSource()
    sources.push(source)
    return source
  })
  const stale = (key: readonly unknown[]) => queryClient.getQueryState(key)?.isInvalidated === true
  const signIn = () => queryClient.setQueryData(authQueries.session().queryKey, session)
  return { queryClient, sources, stop, stale, signIn }
}

beforeEach(() => {
  vi.useFakeTimers()
})

afterEach(() => {
  vi.useRealTimers()
})

/** Events are applied a moment after they come, together with the ones that come with them. */
const gathered = () => vi.advanceTimersByTime(100)

describe('the live-updates client', () => {
  it('follows /events while someone is signed in, and only then', () => {
    const { queryClient, sources, signIn, stop } = setup()
    expect(sources).toHaveLength(0)
    signIn()
    expect(sources).toHaveLength(1)
    signIn()
    expect(sources).toHaveLength(1)
    // Signing out clears the cache.
    queryClient.clear()
    expect(sources[0]?.closed).toBe(true)
    signIn()
    expect(sources).toHaveLength(2)
    stop()
    expect(sources[1]?.closed).toBe(true)
  })

  it('makes stale what an event names, and ignores what is not an event', () => {
    const { queryClient, sources, signIn, stale } = setup()
    signIn()
    queryClient.setQueryData(inbox, { pages: [], pageParams: [] })
    sources[0]?.send('not json')
    sources[0]?.send(JSON.stringify({ hello: 'world' }))
    gathered()
    expect(stale(inbox)).toBe(false)
    sources[0]?.send(taskEvent)
    expect(stale(inbox)).toBe(false)
    gathered()
    expect(stale(inbox)).toBe(true)
  })

  it('holds invalidations back while this tab’s own change is under way', async () => {
    const { queryClient, sources, signIn, stale } = setup()
    signIn()
    queryClient.setQueryData(inbox, { pages: [], pageParams: [] })
    let finish: () => void = () => undefined
    const mutation = new MutationObserver(queryClient, {
      mutationFn: () =>
        new Promise<void>((resolve) => {
          finish = resolve
        }),
    })
    const done = mutation.mutate()
    await vi.waitFor(() => {
      expect(queryClient.isMutating()).toBe(1)
    })
    sources[0]?.send(taskEvent)
    gathered()
    expect(stale(inbox)).toBe(false)
    finish()
    await done
    await vi.waitFor(() => {
      expect(stale(inbox)).toBe(true)
    })
  })

  it('makes everything stale on reset', () => {
    const { queryClient, sources, signIn, stale } = setup()
    signIn()
    const lead = ['leads', 'detail', 'lead_7']
    queryClient.setQueryData(lead, {})
    sources[0]?.reset()
    gathered()
    expect(stale(lead)).toBe(true)
    expect(stale(authQueries.session().queryKey)).toBe(true)
  })

  it('lets EventSource reconnect by itself, and stops when the BFF refuses (an ended session)', () => {
    const { queryClient, sources, signIn, stale } = setup()
    signIn()
    sources[0]?.fail(false)
    expect(sources).toHaveLength(1)
    expect(sources[0]?.closed).toBe(false)

    // A 401: EventSource gives up. The session is asked for again, which ends it in the app.
    sources[0]?.fail(true)
    expect(stale(authQueries.session().queryKey)).toBe(true)
    queryClient.clear()
    vi.advanceTimersByTime(60_000)
    expect(sources).toHaveLength(1)
  })

  it('tries again later when the BFF refused but the session still stands', () => {
    const { sources, signIn } = setup()
    signIn()
    sources[0]?.fail(true)
    vi.advanceTimersByTime(29_000)
    expect(sources).toHaveLength(1)
    vi.advanceTimersByTime(1_000)
    expect(sources).toHaveLength(2)
  })
})
