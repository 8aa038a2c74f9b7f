import { createFileRoute } from '@tanstack/react-router'
import { ProfilePage } from '../../../features/profile/profile-page'
import { profileQueries } from '../../../features/profile/profile-queries'

// The API keys and two-factor state load with the screen: a session held until two-factor is on may not list keys.
export const Route = createFileRoute('/_app/settings/profile')({
  loader: ({ context: { queryClient } }) => queryClient.query(profileQueries.sessions()),
  component: ProfilePage,
})
