import { createFileRoute } from '@tanstack/react-router'
import { ProfilePage } from '../../../features/profile/profile-page'
import { profileQueries } from '../../../features/profile/profile-queries'

export const Route = createFileRoute('/_app/settings/profile')({
  loader: ({ context: { queryClient } }) =>
    Promise.all([queryClient.query(profileQueries.sessions()), queryClient.query(profileQueries.apiKeys())]),
  component: ProfilePage,
})
