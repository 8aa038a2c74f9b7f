import { createFileRoute } from '@tanstack/react-router'
import { PipelinesPage } from '../../../features/settings/pipelines-page'
import { settingsQueries } from '../../../features/settings/settings-queries'

export const Route = createFileRoute('/_app/settings/pipelines')({
  loader: ({ context: { queryClient } }) => queryClient.query(settingsQueries.pipelines()),
  component: PipelinesPage,
})
