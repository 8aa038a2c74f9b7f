import type { IncomingMessage } from 'node:http'
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifyServerOptions } from 'fastify'
import swagger from '@fastify/swagger'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { Config } from '../platform/config.js'
import type { DatabaseHandle } from '../platform/data/database.js'
import { docsRoutes, openBodySchemas } from '../platform/http/docs-routes.js'
import { httpServer } from '../platform/http/http-server.js'
import { newId } from '../platform/security/ids.js'
import { requestLoggerFactory } from '../platform/http/request-logger.js'
import { isRequestId, REQUEST_ID_HEADER } from '@leadline/shared/request-id'
import { API_PREFIX, installPlatform } from '../platform/http/platform.js'
import { createPresenceRecorder } from '../crm/users/presence-repo.js'
import { userEmailAccountViews } from '../email/accounts/email-account-repo.js'
import { activeCallsByUser } from '../telephony/inbound/inbound-repo.js'
import { outboxSink } from '../integrations/outbox/outbox-writer.js'
import { memoryRateLimiter, postgresRateLimiter, type RateLimiter } from '../platform/http/rate-limit.js'
import { systemClock, type Clock } from '../platform/data/time.js'
import { organizationRoutes } from '../crm/organizations/organization-routes.js'
import { environmentRoutes } from '../integrations/environment/environment-routes.js'
import { phoneNumberRoutes } from '../telephony/phone-numbers/phone-number-routes.js'
import { statusRoutes } from '../crm/statuses/status-routes.js'
import { pipelineRoutes } from '../crm/pipelines/pipeline-routes.js'
import { userRoutes } from '../crm/users/user-routes.js'
import { leadRoutes } from '../crm/leads/lead-routes.js'
import { leadDuplicateRoutes } from '../crm/leads/lead-duplicate-routes.js'
import { leadSummaryRoutes } from '../crm/leads/lead-summary-routes.js'
import { contactRoutes } from '../crm/contacts/contact-routes.js'
import { opportunityRoutes } from '../crm/opportunities/opportunity-routes.js'
import { taskRoutes } from '../crm/tasks/task-routes.js'
import { activityRoutes } from '../crm/activities/activity-routes.js'
import { eventRoutes } from '../integrations/events/event-routes.js'
import { auditRoutes } from '../integrations/audit/audit-routes.js'
import { eventStreamRoutes, type EventStreamTimings } from '../integrations/events/event-stream.js'
import { webhookRoutes } from '../integrations/webhooks/webhook-routes.js'
import { LOGGED_OBJECT_TYPES } from '../integrations/webhooks/event-object-types.js'
import { customFieldRoutes } from '../crm/custom-fields/custom-field-routes.js'
import { callRoutes } from '../telephony/calls/call-routes.js'
import { outcomeRoutes } from '../crm/outcomes/outcome-routes.js'
import { savedSearchRoutes } from '../crm/saved-searches/saved-search-routes.js'
import { inboundRoutes } from '../telephony/inbound/inbound-routes.js'
import { smsRoutes } from '../telephony/sms/sms-routes.js'
import { emailTemplateRoutes } from '../email/templates/email-template-routes.js'
import { emailAccountRoutes } from '../email/accounts/email-account-routes.js'
import { emailRoutes } from '../email/send/email-routes.js'
import { emailThreadRoutes } from '../email/threads/email-thread-routes.js'
import { emailAttachmentRoutes } from '../email/attachments/email-attachment-routes.js'
import { exportRoutes } from '../integrations/exports/export-routes.js'
import { importRoutes } from '../integrations/imports/import-routes.js'
import { bulkActionRoutes } from '../integrations/bulk-actions/bulk-action-routes.js'
import { applyMethodOverride } from '../platform/http/method-override.js'
import type { Deps } from '../crm/deps.js'
import { createMetaCache } from '../crm/organizations/organization-meta.js'
import { ViewCache } from '../platform/data/view-cache.js'
import { createAuthCache } from '../platform/security/auth-cache.js'
import type { Resolver } from '../platform/security/host-check.js'
import { systemResolver } from '../integrations/outbound/outbound-client.js'
import { sessionRoutes } from '../accounts/session-routes.js'
import { membershipRoutes } from '../accounts/membership-routes.js'
import { apiKeyRoutes } from '../accounts/api-key-routes.js'
import { roleRoutes } from '../accounts/role-routes.js'
import { profileRoutes } from '../accounts/profile-routes.js'
import { signInPolicyRoutes } from '../accounts/sign-in-policy-routes.js'
import { twoFactorRoutes } from '../accounts/two-factor-routes.js'
import { invitationRoutes } from '../accounts/invitation-routes.js'
import { passwordResetRoutes } from '../accounts/password-reset-routes.js'
import { singleSignOnRoutes } from '../accounts/single-sign-on-routes.js'
import { healthRoutes, type Readiness } from '../platform/http/health-routes.js'
import { metrics } from '../platform/metrics.js'
import type { ServerSpan, Tracing } from '@leadline/shared/tracing-switch'

export interface BuildOptions {
  database: DatabaseHandle
  config: Config
  clock?: Clock
  /** A logger instance, or false for none (tests). Defaults to pino at `config.logLevel`. */
  logger?: FastifyBaseLogger | false
  rateLimiter?: RateLimiter
  /** The event stream's poll, heartbeat and settle times, which tests shorten. */
  eventStream?: EventStreamTimings
  /** How host names are resolved when a URL is saved; the system's resolver unless a test gives its own. */
  resolve?: Resolver
  /** Whether the process is draining, which `/readyz` reports (main.ts sets it on SIGTERM); never, unless given. */
  readiness?: Readiness
  /** Where each request's server span goes, when OpenTelemetry's variables ask for traces (decision 0074). */
  tracing?: Tracing | undefined
}

export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'res.headers["set-cookie"]',
  '*.api_key',
  'signature_key',
  '*.signature_key',
  'req.headers["x-leadline-stream-secret"]',
  '*.*.signature_key',
]

/** Each traced request's server span, from its logger's making to its answer. */
const serverSpans = new WeakMap<IncomingMessage, ServerSpan>()

/**
 * The request logger, made when Fastify takes a request in: its server span begins here (a child of the caller's
 * `traceparent`), so that each of its log lines carries the trace id, from the first.
 */
function tracedLoggerFactory(tracing: Tracing): NonNullable<FastifyServerOptions['childLoggerFactory']> {
  return function (logger, bindings, options, raw) {
    const sent = raw.headers.traceparent
    const span = tracing.server(raw.method ?? 'GET', typeof sent === 'string' ? sent : undefined)
    serverSpans.set(raw, span)
    return requestLoggerFactory.call(
      this,
      logger,
      { ...bindings, trace_id: span.traceId, span_id: span.spanId },
      options,
      raw,
    )
  }
}

/** The API without a listening socket: tests drive it with `inject()`, `main.ts` and `leadline serve` listen. */
export async function buildApp(options: BuildOptions): Promise<FastifyInstance> {
  const { database, config } = options
  const clock = options.clock ?? systemClock
  const rateLimiter =
    options.rateLimiter ??
    (database.pgPool !== undefined
      ? postgresRateLimiter(database.pgPool, config.rateLimit, clock)
      : memoryRateLimiter(config.rateLimit, clock))

  const loggerOption =
    options.logger === undefined
      ? { logger: { level: config.logLevel, redact: { paths: REDACTED_PATHS, censor: '[redacted]' } } }
      : options.logger === false
        ? { logger: false }
        : { loggerInstance: options.logger }

  const server = httpServer(config.timeouts)
  const app = Fastify({
    ...loggerOption,
    bodyLimit: config.bodyLimitBytes,
    ...server.options,
    // The caller's X-Request-Id when it is short and plain (the BFF sends the id of the browser's request it calls
    // for): an id is no credential, and any caller may only mark its own requests' log lines with it (decision 0074).
    genReqId: (req) => {
      const sent = req.headers[REQUEST_ID_HEADER]
      return isRequestId(sent) ? sent : newId('request')
    },
    childLoggerFactory: options.tracing === undefined ? requestLoggerFactory : tracedLoggerFactory(options.tracing),
    requestIdHeader: false,
    routerOptions: { ignoreTrailingSlash: true },
    rewriteUrl: (req) => {
      applyMethodOverride(req)
      return req.url ?? '/'
    },
    forceCloseConnections: 'idle',
    // Whose X-Forwarded-For names the client (the BFF's, on loopback by default): sign-in failures count by address.
    trustProxy: config.trustProxy,
  }).withTypeProvider<TypeBoxTypeProvider>()

  const deps: Deps = {
    db: database.db,
    dialect: database.dialect,
    reader: database.reader,
    clock,
    config,
    rateLimiter,
    meta: createMetaCache(database.db, database.reader),
    views: new ViewCache(config.viewCacheBytes),
    auth: createAuthCache(database.db, clock),
    resolve: options.resolve ?? systemResolver,
  }
  server.install(app)
  if (options.tracing !== undefined) {
    app.addHook('onResponse', (request, reply, done) => {
      serverSpans.get(request.raw)?.end(request.routeOptions.url ?? 'unmatched', reply.statusCode)
      done()
    })
  }
  // Timed only where `/metrics` is served: a hook on every request is not free (decision 0072).
  if (config.metrics !== null) {
    app.addHook('onResponse', (request, reply, done) => {
      metrics.request(request.method, request.routeOptions.url, reply.statusCode, reply.elapsedTime / 1000)
      done()
    })
  }
  app.decorate('eventSink', outboxSink(config.leadWebhookUrl))
  installPlatform(app, deps, createPresenceRecorder(deps.db, deps.clock))

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Leadline CRM API',
        version: '1',
        description:
          'The Leadline REST API, compatible with Close API clients. Authenticate with HTTP Basic: the API key as the user name and an empty password. Fields a request body does not list are ignored, as are read-only ones such as `id` and `date_created`.',
      },
      components: { securitySchemes: { basicAuth: { type: 'http', scheme: 'basic' } } },
      security: [{ basicAuth: [] }],
    },
    transformObject: openBodySchemas,
  })

  await app.register(healthRoutes, { db: database.db, readiness: options.readiness ?? { draining: false } })
  await app.register(
    async (api) => {
      await api.register(docsRoutes)
      await api.register(userRoutes, { ...deps, emailAccountsOf: userEmailAccountViews, activeCallsByUser })
      await api.register(organizationRoutes, deps)
      await api.register(environmentRoutes, deps)
      await api.register(sessionRoutes, deps)
      await api.register(membershipRoutes, deps)
      await api.register(apiKeyRoutes, deps)
      await api.register(roleRoutes, deps)
      await api.register(profileRoutes, deps)
      await api.register(twoFactorRoutes, deps)
      await api.register(signInPolicyRoutes, deps)
      await api.register(invitationRoutes, deps)
      await api.register(passwordResetRoutes, deps)
      await api.register(singleSignOnRoutes, deps)
      await api.register(statusRoutes, deps)
      await api.register(pipelineRoutes, deps)
      await api.register(phoneNumberRoutes, deps)
      await api.register(leadRoutes, deps)
      await api.register(leadDuplicateRoutes, deps)
      await api.register(leadSummaryRoutes, deps)
      await api.register(contactRoutes, deps)
      await api.register(opportunityRoutes, deps)
      await api.register(taskRoutes, deps)
      await api.register(activityRoutes, deps)
      await api.register(customFieldRoutes, deps)
      await api.register(eventRoutes, { ...deps, objectTypes: LOGGED_OBJECT_TYPES })
      await api.register(eventStreamRoutes, { ...deps, timings: options.eventStream })
      await api.register(webhookRoutes, deps)
      await api.register(callRoutes, deps)
      await api.register(outcomeRoutes, deps)
      await api.register(savedSearchRoutes, deps)
      await api.register(inboundRoutes, deps)
      await api.register(smsRoutes, deps)
      await api.register(emailTemplateRoutes, deps)
      await api.register(emailAccountRoutes, deps)
      await api.register(emailRoutes, deps)
      await api.register(emailThreadRoutes, deps)
      await api.register(emailAttachmentRoutes, deps)
      await api.register(exportRoutes, deps)
      await api.register(importRoutes, deps)
      await api.register(bulkActionRoutes, deps)
      await api.register(auditRoutes, deps)
    },
    { prefix: API_PREFIX },
  )

  await app.ready()
  return app
}
