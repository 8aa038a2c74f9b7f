import { createFileRoute } from '@tanstack/react-router'
import { ApiKeysPage } from '../../../features/settings/api-keys-page'

// No loader: the screen loads its keys itself, so nothing of it weighs on the first bundle (the route budget).
export const Route = createFileRoute('/_app/settings/api-keys')({
  component: ApiKeysPage,
})
