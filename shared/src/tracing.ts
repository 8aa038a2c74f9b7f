import {
  defaultTextMapGetter,
  defaultTextMapSetter,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Span,
} from '@opentelemetry/api'
import { W3CTraceContextPropagator } from '@opentelemetry/core'
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http'
import { detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources'
import { BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base'
import {
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_HTTP_ROUTE,
  ATTR_SERVICE_NAME,
} from '@opentelemetry/semantic-conventions'
import type { ClientSpan, ServerSpan, Tracing } from './tracing-types.js'

// A few spans made by hand (decision 0074): one per request a process answers, one per call the BFF makes to the api,
// carried across by W3C `traceparent`. No automatic instrumentation: its module patching needs a loader hook under
// ESM and would time every database statement and every connection, where two spans a request say what is needed.
// Contexts are passed by hand, not kept in AsyncLocalStorage, which on Node 20 slows every promise of the process.
// Spans go out in batches from a background timer (BatchSpanProcessor, OTEL_BSP_* variables); a receiver that is down
// or slow only makes a batch fail (and be dropped), never a request wait.

const SHUTDOWN_WAIT_MS = 5000
const MAX_TRACEPARENT = 256

/** Started only by `loadTracing` (tracing-switch.ts). */
export function startTracing(serviceName: string): Tracing {
  const resource = resourceFromAttributes({ [ATTR_SERVICE_NAME]: serviceName }).merge(
    detectResources({ detectors: [envDetector] }),
  )
  const provider = new BasicTracerProvider({
    resource,
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter())],
  })
  const tracer = provider.getTracer('leadline')
  const propagator = new W3CTraceContextPropagator()

  const client = (parent: Span, method: string, route: string): ClientSpan => {
    const span = tracer.startSpan(
      `${method} ${route}`,
      { kind: SpanKind.CLIENT, attributes: { [ATTR_HTTP_REQUEST_METHOD]: method, [ATTR_HTTP_ROUTE]: route } },
      trace.setSpan(ROOT_CONTEXT, parent),
    )
    const carrier: Record<string, string> = {}
    propagator.inject(trace.setSpan(ROOT_CONTEXT, span), carrier, defaultTextMapSetter)
    return {
      traceparent: carrier.traceparent ?? '',
      end(status) {
        if (status === 'error' || status >= 500) span.setStatus({ code: SpanStatusCode.ERROR })
        if (status !== 'error') span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, status)
        span.end()
      },
    }
  }

  return {
    server(method, traceparent) {
      // A traceparent is 55 characters today; longer is not read at all.
      const parent =
        traceparent === undefined || traceparent.length > MAX_TRACEPARENT
          ? ROOT_CONTEXT
          : propagator.extract(ROOT_CONTEXT, { traceparent }, defaultTextMapGetter)
      const span = tracer.startSpan(
        method,
        { kind: SpanKind.SERVER, attributes: { [ATTR_HTTP_REQUEST_METHOD]: method } },
        parent,
      )
      const { traceId, spanId } = span.spanContext()
      const server: ServerSpan = {
        traceId,
        spanId,
        client: (clientMethod, route) => client(span, clientMethod, route),
        end(route, status) {
          span.updateName(`${method} ${route}`)
          span.setAttribute(ATTR_HTTP_ROUTE, route)
          span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, status)
          if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR })
          span.end()
        },
      }
      return server
    },
    async shutdown() {
      let timer: NodeJS.Timeout | undefined
      const waited = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, SHUTDOWN_WAIT_MS)
      })
      await Promise.race([provider.shutdown().catch(() => undefined), waited])
      clearTimeout(timer)
    },
  }
}
