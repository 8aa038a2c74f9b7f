import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import {
  organizationEnvironmentSchema,
  type OrganizationEnvironment,
} from '@leadline/shared/organization-environment-schema'
import type { Deps } from '../../crm/deps.js'
import { crudSchemas } from '../../platform/http/crud-routes.js'
import { NotFoundError } from '../../platform/http/errors.js'
import { caller } from '../../platform/http/request-context.js'
import { requireAdmin } from '../../platform/security/roles.js'
import { readLeadWebhook } from '../outbox/lead-webhook.js'

const schemas = crudSchemas(['organizations'], organizationEnvironmentSchema)

/**
 * A URL as an admin may see it: its scheme, host and port. A path or query string may carry a token and the user
 * part a password, so neither is ever shown; what does not parse shows as nothing.
 */
export function redactedUrl(raw: string): string | null {
  try {
    const url = new URL(raw)
    return `${url.protocol}//${url.host}`
  } catch {
    return null
  }
}

// Leadline's own: what the operator set for the whole installation, read-only, for the Phone numbers and Organization
// settings screens.
export const environmentRoutes: FastifyPluginAsyncTypebox<Deps> = async (app, { db, config }) => {
  app.get(
    '/organization/:id/environment/',
    schemas.get(
      'What the server’s environment sets for your organization: SMS gateway, lead webhook, retention, system mail (admin; Leadline; no secret is shown)',
    ),
    async (request): Promise<OrganizationEnvironment> => {
      const me = caller(request)
      if (request.params.id !== me.organizationId) throw new NotFoundError('Organization')
      requireAdmin(request)
      const leadWebhook = await readLeadWebhook(db, config.leadWebhookUrl)
      const leadWebhookUrl = leadWebhook.url === null ? null : redactedUrl(leadWebhook.url)
      return {
        sms_gateway: {
          provider: config.sms.provider,
          url: config.sms.url === null ? null : redactedUrl(config.sms.url),
        },
        lead_webhook:
          leadWebhookUrl === null || leadWebhook.source === 'none'
            ? null
            : { url: leadWebhookUrl, source: leadWebhook.source },
        task_retention_days: config.taskRetentionDays,
        event_retention_days: config.eventRetentionDays,
        system_mail: { configured: config.systemMail.smtp !== null, from: config.systemMail.from },
      }
    },
  )
}
