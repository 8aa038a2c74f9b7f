import type { Db } from '../../platform/data/database.js'
import { checkedEmailAccount } from '../../email/accounts/email-account-input.js'
import { insertEmailAccount, takenAddress } from '../../email/accounts/email-account-repo.js'
import type { DemoUser } from './demo-user.js'

// The demo admin's email account: SMTP on this machine's port 2525, plain and without a login, where `npm start` runs
// `leadline mail-catcher` for the demo. No password, so it needs no LEADLINE_SECRET_KEY.

/**
 * An email account for `user` sending as their own address through localhost:2525, trusted as an operator's word is
 * (decision 0038). An address is one organization's: when an earlier demo organization in the same database holds
 * it, this demo gets no account (its admin adds one as anyone would).
 */
export async function setUpDemoEmailAccount(tx: Db, organizationId: string, user: DemoUser, now: string) {
  const fields = checkedEmailAccount(
    { email: user.email, identities: [], smtp: { host: 'localhost', port: 2525, username: null, use_ssl: false } },
    `${user.first_name} ${user.last_name}`,
  )
  if ((await takenAddress(tx, organizationId, null, [fields.email])) !== undefined) return
  await insertEmailAccount(
    tx,
    null,
    { organizationId, userId: user.user_id, fields, password: null, trusted: [fields.email] },
    { actorId: user.user_id, now },
  )
}
