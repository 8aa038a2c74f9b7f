import { Type, type Static } from '@sinclair/typebox'

/**
 * What the server's operator set in its environment for every organization, read-only (Leadline's own
 * `GET /organization/{id}/environment/`, admins). No secret is ever part of it: a URL is shown only as its scheme, host
 * and port (a path or query string may carry a token; credentials are dropped).
 */
export const organizationEnvironmentSchema = Type.Object({
  sms_gateway: Type.Object(
    {
      provider: Type.Union([Type.Literal('log'), Type.Literal('http')], {
        description: '`log`: texts are written to the server log and go nowhere; `http`: they are POSTed to `url`.',
      }),
      url: Type.Union([Type.String(), Type.Null()], {
        description: 'The http provider’s scheme, host and port only; null with `log`.',
      }),
    },
    { description: '`LEADLINE_SMS_PROVIDER` and `LEADLINE_SMS_PROVIDER_URL`; the signing secret is never shown.' },
  ),
  lead_webhook: Type.Union(
    [
      Type.Object({
        url: Type.String({ description: 'Scheme, host and port only.' }),
        source: Type.Union([Type.Literal('cli'), Type.Literal('env')], {
          description: '`cli`: stored by `leadline lead-webhook set`; `env`: `LEADLINE_LEAD_WEBHOOK_URL`.',
        }),
      }),
      Type.Null(),
    ],
    { description: 'The installation’s lead webhook, which hears of every lead change; null when there is none.' },
  ),
  task_retention_days: Type.Integer({
    description: 'Days a completed task other than a lead task is kept (`LEADLINE_TASK_RETENTION_DAYS`).',
  }),
  event_retention_days: Type.Integer({
    description: 'Days the event log keeps an event (`LEADLINE_EVENT_RETENTION_DAYS`).',
  }),
  system_mail: Type.Object(
    {
      configured: Type.Boolean({
        description: 'Whether `LEADLINE_SYSTEM_SMTP_URL` names a relay: without one, invitations and resets fail.',
      }),
      from: Type.String({ description: 'The sender of Leadline’s own mail (`LEADLINE_SYSTEM_MAIL_FROM`).' }),
    },
    { description: 'Where Leadline’s own mail (invitations, password resets) goes; the relay is never shown.' },
  ),
})
export type OrganizationEnvironment = Static<typeof organizationEnvironmentSchema>
