import { EmailAccountsManager } from '../email/email-accounts-manager'
import { settingsPage, SettingsScreen } from './settings-layout'

/** Every member's email accounts (admins only); each person also manages their own on their Profile. */
export const EmailAccountsPage = settingsPage(EmailAccountsPageContent)

function EmailAccountsPageContent() {
  return (
    <SettingsScreen
      title="Email accounts"
      description="The SMTP servers members send email through, and the addresses they send as. Everyone can also manage their own accounts on their Profile."
    >
      <EmailAccountsManager />
    </SettingsScreen>
  )
}
