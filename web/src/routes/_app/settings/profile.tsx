import { createFileRoute } from '@tanstack/react-router'
import { ProfilePage } from '../../../features/profile/profile-page'

// No loader: the screen reads what it shows itself (a session held until two-factor is on may not list keys), so
// none of its queries weigh on every first visit (the route budget).
export const Route = createFileRoute('/_app/settings/profile')({
  component: ProfilePage,
})
