import { createFileRoute } from '@tanstack/react-router'
import { CallOutcomesPage } from '../../../features/settings/call-outcomes-page'

// No loader: the screen's queries load with it, so nothing of it weighs on the first bundle (the route budget).
export const Route = createFileRoute('/_app/settings/call-outcomes')({
  component: CallOutcomesPage,
})
