import { createInvitation, invitationLink, INVITATION_LIFETIME_MS } from '../../accounts/invitation-repo.js'
import { systemClock } from '../../platform/data/time.js'
import { leadlineCommand } from './cli-command.js'
import { appUrl, email, orgId, ORG_OPTION, requireOrganization, role, withDatabase } from './cli-support.js'

export function userInviteCommand() {
  return leadlineCommand({
    name: 'invite',
    usage: '--org ORG_ID --email EMAIL [--role admin|user]',
    summary: 'invite someone to an organization: their link is emailed, and printed',
    options: [ORG_OPTION, ['--email <EMAIL>', 'the address to invite'], ['--role <admin|user>', 'default user']],
    notes:
      'Prints {"invitation_id","email","role","link","date_expires"}. The email waits in the outbox until a running ' +
      'api process sends it through the system mailer (LEADLINE_SYSTEM_SMTP_URL); the link is printed too, to hand ' +
      `over another way. It works once, for ${String(INVITATION_LIFETIME_MS / 86_400_000)} days. Refused for a ` +
      'member’s address or one already invited (resend that invitation under Users).',
    async run(input) {
      const organizationId = orgId(input.string('--org'))
      const invitee = { email: email(input.string('--email')), role: role(input.string('--role')) }
      const base = appUrl(input.env)
      const made = await withDatabase(input.databaseUrl(), async (db, _applied, dialect) => {
        await requireOrganization(db, organizationId)
        return db
          .transaction()
          .execute((tx) => createInvitation(tx, dialect, systemClock, { organizationId, ...invitee, invitedBy: null }))
      })
      const link = invitationLink(base, made.token)
      return {
        json: {
          invitation_id: made.id,
          email: invitee.email,
          role: invitee.role,
          link,
          date_expires: made.dateExpires,
        },
        text: `Invited ${invitee.email} to ${organizationId} as ${invitee.role} (invitation ${made.id}).
The email is queued for the system mailer. The link, which works once until ${made.dateExpires}:
${link}`,
      }
    },
  })
}
