import type { Command } from 'commander'
import {
  clearLeadWebhookUrl,
  leadWebhookSigningKey,
  parseLeadWebhookUrl,
  readLeadWebhook,
  resetLeadWebhookUrl,
  setLeadWebhookUrl,
} from '../../integrations/outbox/lead-webhook.js'
import { standardWebhooksSecret } from '../../integrations/outbox/outbox-signing.js'
import { loadConfig } from '../../platform/config.js'
import type { Db } from '../../platform/data/database.js'
import { commandGroup, leadlineCommand, required, type CommandInput, type Output } from './cli-command.js'
import { asUsage, secretBox, withDatabase } from './cli-support.js'

/** The lead webhook as this command's environment sees it, and the key its requests are signed with. */
async function leadWebhookOutput(db: Db, env: NodeJS.ProcessEnv): Promise<Output> {
  const envUrl = asUsage(() => loadConfig(env).leadWebhookUrl)
  const setting = await readLeadWebhook(db, envUrl)
  const key = setting.url === null ? null : await leadWebhookSigningKey(db, secretBox(env))
  const where = {
    cli: 'stored with "leadline lead-webhook set" (it wins over LEADLINE_LEAD_WEBHOOK_URL)',
    env: 'from LEADLINE_LEAD_WEBHOOK_URL',
    none: 'none set',
  }[setting.source]
  const lines = [
    setting.url === null
      ? `No lead webhook: lead changes are not posted anywhere (${setting.source === 'cli' ? 'cleared with "leadline lead-webhook clear"' : where}).`
      : `Lead changes are posted to ${setting.url} (${where}).`,
  ]
  if (key !== null)
    lines.push(
      `Requests are signed with the key ${key} (as a Standard Webhooks secret: ${standardWebhooksSecret(key)}).`,
    )
  return { json: { url: setting.url, source: setting.source, signature_key: key }, text: lines.join('\n') }
}

const LEAD_WEBHOOK_JSON =
  'Prints {"url","source","signature_key"}: the URL in force (null when none), where it comes from (cli, env or none) and the key requests are signed with.'

/**
 * A lead-webhook command: the change it makes (checked from its input before the database is opened), then what is
 * in force.
 */
function leadWebhookCommand(
  spec: { name: string; summary: string; notes: string; argument?: [string, string] },
  changeFor: (input: CommandInput) => (db: Db) => Promise<void>,
): Command {
  return leadlineCommand({
    ...spec,
    usage: spec.argument?.[0] ?? '',
    notes: `${spec.notes}\n${LEAD_WEBHOOK_JSON}`,
    run(input) {
      const change = changeFor(input)
      return withDatabase(input.databaseUrl(), async (db) => {
        await change(db)
        return leadWebhookOutput(db, input.env)
      })
    },
  })
}

export function leadWebhookCommands(): Command {
  return commandGroup('lead-webhook', 'where every lead change is posted', [
    leadWebhookCommand(
      {
        name: 'set',
        summary: 'post every lead created, updated, deleted or merged to URL',
        argument: [
          'URL',
          'an https URL, not to this machine or a private network (http and private addresses only with ' +
            'LEADLINE_OUTBOUND_ALLOW_PRIVATE=1, for development and tests)',
        ],
        notes: `Stored in the database, it wins over LEADLINE_LEAD_WEBHOOK_URL in every api process. Each change is POSTed as
{"model":"lead","event":"create"|"update"|"delete"|"merge","data":…}, up to 3 times 5 minutes apart
(LEADLINE_LEAD_WEBHOOK_RETRY_SECONDS), signed like webhook subscriptions with this installation's key.`,
      },
      (input) => {
        const url = asUsage(() =>
          parseLeadWebhookUrl(required(input.args[0], 'URL'), loadConfig(input.env).outboundAllowPrivate),
        )
        return (db) => setLeadWebhookUrl(db, url)
      },
    ),
    leadWebhookCommand(
      {
        name: 'clear',
        summary: 'post lead changes nowhere, whatever LEADLINE_LEAD_WEBHOOK_URL says',
        notes: `Stores "no lead webhook", which wins over LEADLINE_LEAD_WEBHOOK_URL; deliveries still waiting are dropped.
"leadline lead-webhook reset" lets the environment's URL apply again.`,
      },
      () => clearLeadWebhookUrl,
    ),
    leadWebhookCommand(
      {
        name: 'reset',
        summary: 'forget the stored lead webhook, so LEADLINE_LEAD_WEBHOOK_URL applies again',
        notes: 'Removes what "set" or "clear" stored.',
      },
      () => resetLeadWebhookUrl,
    ),
    leadWebhookCommand(
      {
        name: 'show',
        summary: 'say where lead changes are posted and the key their requests are signed with',
        notes: "The environment read is this command's: run it with the api's LEADLINE_LEAD_WEBHOOK_URL.",
      },
      () => () => Promise.resolve(),
    ),
  ])
}
