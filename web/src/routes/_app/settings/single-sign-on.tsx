import { createFileRoute } from '@tanstack/react-router'
import { SingleSignOnPage } from '../../../features/settings/single-sign-on-page'
import { singleSignOnQueries } from '../../../features/settings/single-sign-on-queries'

export const Route = createFileRoute('/_app/settings/single-sign-on')({
  loader: async ({ context: { queryClient } }) => {
    // A member is told settings are an admin's (SettingsFrame) rather than meeting the API's 403 here.
    await queryClient.query(singleSignOnQueries.config()).catch(() => undefined)
  },
  component: SingleSignOnPage,
})
