import { checkedForMember, checkedPassword } from '../../email/accounts/email-account-input.js'
import {
  AddressTakenError,
  DuplicateEmailAccountError,
  explainAddressConflict,
  insertEmailAccount,
} from '../../email/accounts/email-account-repo.js'
import { ValidationError } from '../../platform/http/errors.js'
import { formatTimestamp, systemClock } from '../../platform/data/time.js'
import { leadlineCommand, required, UsageError } from './cli-command.js'
import { orgId, ORG_OPTION, requireOrganization, secretBox, withDatabase } from './cli-support.js'

// The API's field names as `email-account add` spells them.
const EMAIL_ACCOUNT_FLAGS: Record<string, string> = {
  user_id: '--user',
  email: '--email',
  'smtp.host': '--smtp-host',
  'smtp.port': '--smtp-port',
  'smtp.username': '--smtp-user',
  'smtp.password': '--smtp-password-env',
}

export function emailAccountAddCommand() {
  return leadlineCommand({
    name: 'add',
    usage:
      '--org ORG_ID --user USER_ID --email E --smtp-host H --smtp-port P [--smtp-user U] [--smtp-password-env VAR] [--no-ssl]',
    summary: 'add an email account a user sends through: its address and SMTP server',
    options: [
      ORG_OPTION,
      ['--user <USER_ID>', 'a member of that organization (user_…), whose account it is'],
      ['--email <E>', 'the address it sends as; one account per address in an organization'],
      ['--smtp-host <H>', 'the SMTP server: a host name or an IP address'],
      ['--smtp-port <P>', 'its port, 1 to 65535'],
      ['--smtp-user <U>', 'the login, if the server wants one'],
      ['--smtp-password-env <VAR>', 'the name of an environment variable holding the password'],
      ['--no-ssl', 'plain SMTP (upgraded by STARTTLS when offered) instead of TLS from the start'],
    ],
    notes: `The password is never given itself (arguments show in process lists); it is stored encrypted under
LEADLINE_SECRET_KEY, which must be the api's.
Prints {"email_account_id"}.`,
    async run(input) {
      const organizationId = orgId(input.string('--org'))
      const userId = required(input.string('--user'), '--user USER_ID')
      const address = required(input.string('--email'), '--email E')
      const host = required(input.string('--smtp-host'), '--smtp-host H')
      const port = Number(required(input.string('--smtp-port'), '--smtp-port P'))
      const passwordEnv = input.string('--smtp-password-env')
      let password: string | null = null
      if (passwordEnv !== undefined) {
        const variable = required(passwordEnv, '--smtp-password-env VAR')
        password = input.env[variable] ?? ''
        if (password === '')
          throw new UsageError(`--smtp-password-env: the environment variable ${variable} is empty or not set`)
      }
      const box = secretBox(input.env)
      const row = await withDatabase(input.databaseUrl(), async (db) => {
        await requireOrganization(db, organizationId)
        try {
          const fields = await checkedForMember(db, organizationId, userId, {
            email: address,
            identities: [],
            smtp: { host, port, username: input.string('--smtp-user') ?? null, use_ssl: input.flag('--ssl') },
          })
          return await insertEmailAccount(
            db,
            box,
            // The operator's word is an admin's: the account's own address is trusted (decision 0038).
            {
              organizationId,
              userId,
              fields,
              password: checkedPassword(password, box) ?? null,
              trusted: [fields.email],
            },
            { actorId: null, now: formatTimestamp(systemClock.now()) },
          )
        } catch (failure) {
          const error = await explainAddressConflict(db, failure)
          if (error instanceof AddressTakenError && !error.sameOrganization) {
            throw new UsageError(`--email: ${address} is in use by another email account`)
          }
          if (error instanceof DuplicateEmailAccountError || error instanceof AddressTakenError) {
            throw new UsageError(
              `--email: organization "${organizationId}" already has an email account for ${address}`,
            )
          }
          if (error instanceof ValidationError) {
            const problems = Object.entries(error.fieldErrors).map(
              ([field, message]) => `${EMAIL_ACCOUNT_FLAGS[field] ?? field}: ${message}`,
            )
            throw new UsageError(problems.join('; '))
          }
          throw error
        }
      })
      const ssl = row.smtp_use_ssl === 1 ? 'TLS' : 'no TLS'
      return {
        json: { email_account_id: row.id },
        text: `Added email account ${row.email} (${row.id}) for ${userId} in ${organizationId}: it sends through ${row.smtp_host}:${row.smtp_port} (${ssl})${password === null ? ', without a password' : ', with the password encrypted'}.`,
      }
    },
  })
}
