import { requestPasswordReset, resetLink } from '../../accounts/password-reset.js'
import { systemClock } from '../../platform/data/time.js'
import { leadlineCommand } from './cli-command.js'
import { appUrl, email, withDatabase } from './cli-support.js'

export function userResetPasswordCommand() {
  return leadlineCommand({
    name: 'reset-password',
    usage: '--email EMAIL',
    summary: 'make a link that sets a new password: it is emailed, and printed',
    options: [['--email <EMAIL>', "the user's address"]],
    notes:
      'Prints {"email","link"}. The email waits in the outbox until a running api process sends it through the ' +
      'system mailer (LEADLINE_SYSTEM_SMTP_URL); the link is printed too, to hand over another way. It works once, ' +
      'for 1 hour, and ends every session of the user. Refused for an address no active member has, and past 3 ' +
      'links an hour.',
    async run(input) {
      const address = email(input.string('--email'))
      const base = appUrl(input.env)
      const token = await withDatabase(input.databaseUrl(), (db) => requestPasswordReset(db, systemClock, address))
      if (token === undefined)
        throw new Error(`no active member has the address ${address}, or it was sent 3 reset links in the last hour`)
      const link = resetLink(base, token)
      return {
        json: { email: address, link },
        text: `A reset link for ${address} is queued for the system mailer. The link, which works once, for 1 hour:
${link}`,
      }
    },
  })
}
