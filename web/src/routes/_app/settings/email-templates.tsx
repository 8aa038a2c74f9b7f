import { createFileRoute } from '@tanstack/react-router'
import { EmailTemplatesPage } from '../../../features/settings/email-templates-page'

// No loader: the screen loads its templates itself, so nothing of it weighs on the first bundle (the route budget).
export const Route = createFileRoute('/_app/settings/email-templates')({
  component: EmailTemplatesPage,
})
