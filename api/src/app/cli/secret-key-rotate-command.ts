import { randomBytes } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { secretBoxFrom, type SecretBox } from '../../platform/security/secret-box.js'
import { resealSecrets } from '../../platform/security/stored-secrets.js'
import { leadlineCommand, UsageError } from './cli-command.js'
import { secretBox, withDatabase } from './cli-support.js'

/** The new key: read from --new-key-file, or made (and then printed: the only copy). */
function newSecretKey(file: string | undefined, generate: boolean): { box: SecretBox; shown: string | null } {
  if ((file === undefined) === !generate) throw new UsageError('give either --new-key-file FILE or --generate')
  let text: string
  if (file === undefined) text = randomBytes(32).toString('hex')
  else {
    try {
      text = readFileSync(file, 'utf8')
    } catch (error) {
      throw new UsageError(`--new-key-file: ${error instanceof Error ? error.message : String(error)}`)
    }
  }
  let box: SecretBox | null
  try {
    box = secretBoxFrom({ LEADLINE_SECRET_KEY: text })
  } catch {
    throw new UsageError('--new-key-file: the key must be 32 random bytes as 64 hex characters or as base64')
  }
  if (box === null) throw new UsageError('--new-key-file: the file is empty')
  return { box, shown: generate ? text : null }
}

export function secretKeyRotateCommand() {
  return leadlineCommand({
    name: 'rotate',
    usage: '(--new-key-file FILE | --generate)',
    summary: 'seal every stored secret under a new LEADLINE_SECRET_KEY, in one transaction',
    options: [
      ['--new-key-file <FILE>', 'the new key, as LEADLINE_SECRET_KEY takes it; never printed'],
      ['--generate', 'make a new key; print it: it is the only copy'],
    ],
    notes: `The new key is 32 random bytes as 64 hex characters or base64 (e.g. \`openssl rand -hex 32 > FILE\`).
The current key is this command's LEADLINE_SECRET_KEY (the api's; unset on a server that had none, when only
values stored in the clear can be sealed). Webhook signature keys, inbound secrets, the lead webhook's signature key,
SMTP passwords, two-factor secrets and single sign-on client secrets are opened with it and sealed under the new
key; if one does not open, nothing changes. Then give the api the new key as LEADLINE_SECRET_KEY (with npm start:
write it to data/secret-key) and restart it: until then it cannot open what was sealed, and the old key opens
nothing.
Prints {"resealed":{"webhook_signature_keys","inbound_secrets","lead_webhook_signature_key","smtp_passwords",
"totp_secrets","single_sign_on_client_secrets"}}
(counts), with "new_key" added under --generate.`,
    async run(input) {
      const current = secretBox(input.env)
      const next = newSecretKey(input.string('--new-key-file'), input.flag('--generate'))
      const resealed = await withDatabase(input.databaseUrl(), (db) =>
        db.transaction().execute((tx) => resealSecrets(tx, current, next.box)),
      )
      const total = Object.values(resealed).reduce((sum, n) => sum + n, 0)
      const lines = [
        `Sealed ${String(total)} secrets under the new key (${Object.entries(resealed)
          .map(([kind, n]) => `${kind.replace(/_/g, ' ')}: ${String(n)}`)
          .join(', ')}).`,
        'Give the api the new key as LEADLINE_SECRET_KEY and restart it.',
      ]
      if (next.shown !== null) lines.push(`The new key (its only copy): ${next.shown}`)
      return {
        json: { resealed, ...(next.shown === null ? {} : { new_key: next.shown }) },
        text: lines.join('\n'),
      }
    },
  })
}
