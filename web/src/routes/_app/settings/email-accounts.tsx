import { createFileRoute } from '@tanstack/react-router'
import { EmailAccountsPage } from '../../../features/settings/email-accounts-page'

// No loader: the screen loads its accounts itself, so nothing of it weighs on the first bundle (the route budget).
export const Route = createFileRoute('/_app/settings/email-accounts')({
  component: EmailAccountsPage,
})
