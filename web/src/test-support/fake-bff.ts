import { vi } from 'vitest'

/** A request the screen sent, as the fake BFF saw it. */
export interface SentRequest {
  method: string
  path: string
  body: unknown
}

export type FakeAnswer = { status: number; body: unknown } | undefined

/**
 * Replaces `fetch` with a BFF that answers from `answer` (undefined: 404); every request is recorded in order. For
 * component tests: the screen goes through the app's one HTTP client as it does in the browser.
 */
export function fakeBff(answer: (request: SentRequest) => FakeAnswer): SentRequest[] {
  const sent: SentRequest[] = []
  vi.stubGlobal('fetch', (input: string, init: RequestInit = {}) => {
    const text = typeof init.body === 'string' ? init.body : undefined
    const request = {
      method: init.method ?? 'GET',
      path: input,
      body: text === undefined ? undefined : (JSON.parse(text) as unknown),
    }
    sent.push(request)
    const found = answer(request) ?? { status: 404, body: { error: 'Not found.' } }
    return Promise.resolve(
      new Response(JSON.stringify(found.body), {
        status: found.status,
        headers: { 'content-type': 'application/json' },
      }),
    )
  })
  return sent
}
