// Whether a process traces (decision 0074), and the shape of what it traces with. This module loads nothing of
// OpenTelemetry: `loadTracing` imports it only when the standard variables ask for traces, so a process without them
// pays nothing, not even the import.

import type { Tracing } from './tracing-types.js'

export type { ClientSpan, ServerSpan, Tracing } from './tracing-types.js'

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
