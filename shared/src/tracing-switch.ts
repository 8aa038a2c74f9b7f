// Whether a process traces (decision 0074), and the shape of what it traces with. This module loads nothing of
// OpenTelemetry: `loadTracing` imports it only when the standard variables ask for traces, so a process without them
// pays nothing, not even the import.

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

/**
 * Whether OpenTelemetry's standard variables ask for traces: `OTEL_EXPORTER_OTLP_ENDPOINT` (or its traces-only
 * `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) set, and neither `OTEL_SDK_DISABLED=true` nor `OTEL_TRACES_EXPORTER=none`.
 */
export function tracingWanted(env: Record<string, string | undefined>): boolean {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return false
  if (env.OTEL_TRACES_EXPORTER?.trim().toLowerCase() === 'none') return false
  const endpoint = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? env.OTEL_EXPORTER_OTLP_ENDPOINT
  return endpoint !== undefined && endpoint.trim() !== ''
}

/** Starts exporting spans of `serviceName` (`OTEL_SERVICE_NAME` overrides it) over OTLP/HTTP JSON. */
export async function loadTracing(serviceName: string): Promise<Tracing> {
  const { startTracing } = await import('./tracing.js')
  return startTracing(serviceName)
}
