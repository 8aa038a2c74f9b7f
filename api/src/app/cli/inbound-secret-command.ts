import type { Command } from 'commander'
import type { Db, InboundSecretTable } from '../../platform/data/database.js'
import { formatTimestamp, systemClock } from '../../platform/data/time.js'
import type { SecretBox } from '../../platform/security/secret-box.js'
import { inboundSecret, inboundSecretView, rotateInboundSecret } from '../../telephony/inbound/inbound-secret.js'
import { commandGroup, leadlineCommand } from './cli-command.js'
import { orgId, ORG_OPTION, requireOrganization, secretBox, withDatabase } from './cli-support.js'

/** An inbound-secret command: `secretOf` the organization named by --org, printed as admins see it. */
function inboundSecretCommand(
  name: string,
  summary: string,
  notes: string,
  secretOf: (db: Db, box: SecretBox | null, organizationId: string, now: string) => Promise<InboundSecretTable>,
): Command {
  return leadlineCommand({
    name,
    usage: '--org ORG_ID',
    summary,
    options: [ORG_OPTION],
    notes: `${notes}
Prints {"organization_id","secret","date_created"}: the secret as Standard Webhooks libraries take it (whsec_…).`,
    async run(input) {
      const organizationId = orgId(input.string('--org'))
      const box = secretBox(input.env)
      const secret = await withDatabase(input.databaseUrl(), async (db) => {
        await requireOrganization(db, organizationId)
        return secretOf(db, box, organizationId, formatTimestamp(systemClock.now()))
      })
      const view = inboundSecretView(secret)
      return {
        json: { ...view },
        text: `The inbound secret of ${organizationId} (since ${view.date_created}): ${view.secret}
The telephony side signs its requests to /api/v1/inbound/sms/ and /api/v1/inbound/call/ with it. Keep it secret.`,
      }
    },
  })
}

export function inboundSecretCommands(): Command {
  return commandGroup('inbound-secret', "the secret an organization's telephony signs its requests with", [
    inboundSecretCommand(
      'show',
      "show the secret the organization's telephony signs incoming calls and texts with (made on first use)",
      'The same secret admins see at GET /api/v1/inbound/secret/.',
      inboundSecret,
    ),
    inboundSecretCommand(
      'rotate',
      "replace the organization's inbound secret; requests signed with the old one are refused at once",
      'Give the new secret to the telephony side: until it signs with it, its requests are refused (401).',
      rotateInboundSecret,
    ),
  ])
}
