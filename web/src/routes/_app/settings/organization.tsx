import { createFileRoute } from '@tanstack/react-router'
import { OrganizationPage } from '../../../features/settings/organization-page'

// No loader: the screen's queries load with it, so nothing of it weighs on the first bundle (the route budget).
export const Route = createFileRoute('/_app/settings/organization')({
  component: OrganizationPage,
})
