import type { OrganizationEnvironment } from '@leadline/shared/organization-environment-schema'
import type { ReactNode } from 'react'

// What the server's operator set in its environment: shown to admins, changed only there (README lists the variables).

const term = 'text-sm font-medium text-slate-700'
const detail = 'text-sm text-slate-900'

function Fact({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="flex flex-col gap-0.5 sm:flex-row sm:gap-4">
      <dt className={`${term} sm:w-48 sm:shrink-0`}>{label}</dt>
      <dd className={detail}>{children}</dd>
    </div>
  )
}

const days = (n: number) => `${String(n)} ${n === 1 ? 'day' : 'days'}`

export function smsGatewayText(sms: OrganizationEnvironment['sms_gateway']): string {
  return sms.provider === 'http' && sms.url !== null
    ? `Sent to ${sms.url}`
    : 'None: texts are written to the server log and not sent'
}

/** The SMS gateway, as the Phone numbers screen shows it. */
export function SmsGatewayFacts({ environment }: { environment: OrganizationEnvironment }) {
  return (
    <dl className="flex flex-col gap-2">
      <Fact label="SMS gateway">{smsGatewayText(environment.sms_gateway)}</Fact>
    </dl>
  )
}

/** The lead webhook, retention and Leadline's own mail, as the Organization screen shows them. */
export function EnvironmentFacts({ environment }: { environment: OrganizationEnvironment }) {
  const webhook = environment.lead_webhook
  return (
    <dl className="flex flex-col gap-2">
      <Fact label="Lead webhook">
        {webhook === null
          ? 'None'
          : `${webhook.url} (${webhook.source === 'cli' ? 'set with the leadline command' : 'from the environment'})`}
      </Fact>
      <Fact label="Completed tasks kept">{days(environment.task_retention_days)}</Fact>
      <Fact label="Event log kept">{days(environment.event_retention_days)}</Fact>
      <Fact label="System mail">
        {environment.system_mail.configured
          ? `Sent as ${environment.system_mail.from}`
          : 'Not set up: invitations and password resets cannot be emailed'}
      </Fact>
      <Fact label="SMS gateway">{smsGatewayText(environment.sms_gateway)}</Fact>
    </dl>
  )
}
