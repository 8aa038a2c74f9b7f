import { emailAccountsQuery, emailAccountViews } from '../../email/accounts/email-account-repo.js'
import { leadlineCommand } from './cli-command.js'
import { orgId, ORG_OPTION, requireOrganization, table, withDatabase } from './cli-support.js'

export function emailAccountListCommand() {
  return leadlineCommand({
    name: 'list',
    usage: '--org ORG_ID',
    summary: "list an organization's email accounts",
    options: [ORG_OPTION],
    notes:
      'Prints {"data":[…]}: each account as GET /api/v1/email_account/ shows it (never a password, only has_password).',
    async run(input) {
      const organizationId = orgId(input.string('--org'))
      const accounts = await withDatabase(input.databaseUrl(), async (db) => {
        await requireOrganization(db, organizationId)
        return emailAccountViews(db, await emailAccountsQuery(db, organizationId).execute())
      })
      const rows = accounts.map((a) => [
        a.id,
        a.user_id,
        a.email,
        `${a.smtp.host}:${a.smtp.port}`,
        a.smtp.use_ssl ? 'TLS' : 'no TLS',
        a.smtp.has_password ? 'password' : 'no password',
      ])
      return {
        json: { data: accounts },
        text: accounts.length === 0 ? `${organizationId} has no email accounts.` : table(rows),
      }
    },
  })
}
