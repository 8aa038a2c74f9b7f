import type { ServerResponse } from 'node:http'
import type { ServerSpan } from '@leadline/shared/tracing-switch'

// Each traced request's server span, by its answer: the proxy and the sign-in calls find it there to open their client
// spans (decision 0074). Empty, and never looked in, while the process does not trace.

const spans = new WeakMap<ServerResponse, ServerSpan>()
let tracing = false

export function setSpan(res: ServerResponse, span: ServerSpan): void {
  tracing = true
  spans.set(res, span)
}

export function spanOf(res: ServerResponse): ServerSpan | undefined {
  return tracing ? spans.get(res) : undefined
}
