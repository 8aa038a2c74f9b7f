import { createFileRoute } from '@tanstack/react-router'
import { SingleSignOnPage } from '../../../features/settings/single-sign-on-page'

// No loader: the screen reads its settings itself, once SettingsFrame found an admin, so nothing of it weighs on the
// first bundle (the route budget) and a member never meets the API's 403.
export const Route = createFileRoute('/_app/settings/single-sign-on')({
  component: SingleSignOnPage,
})
