// The shape of what a process traces with (decision 0074): what `tracing.ts` makes and the api and the BFF use,
// apart from both the switch that loads it and OpenTelemetry itself.

/** A server span: one request a process answers. */
export interface ServerSpan {
  readonly traceId: string
  readonly spanId: string
  /** A span for a call this request makes to another service, and the `traceparent` header that carries it there. */
  client(method: string, route: string): ClientSpan
  /** Names the span `METHOD route` and ends it with the answer's status. */
  end(route: string, status: number): void
}

export interface ClientSpan {
  readonly traceparent: string
  /** Ends it with the other service's status, or `error` when it did not answer. */
  end(status: number | 'error'): void
}

export interface Tracing {
  /** A server span, the child of the incoming `traceparent` when one is given and well-formed. */
  server(method: string, traceparent: string | undefined): ServerSpan
  /** Exports what is left, waiting at most a few seconds (a receiver that is down must not hold up a stop). */
  shutdown(): Promise<void>
}
