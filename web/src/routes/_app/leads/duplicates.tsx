import { createFileRoute } from '@tanstack/react-router'
import { DuplicatesPage } from '../../../features/leads/duplicates-page'

// The component is split into a chunk of its own: the leads list's first visit does not load it.
export const Route = createFileRoute('/_app/leads/duplicates')({
  component: DuplicatesPage,
})
