import { createFileRoute } from '@tanstack/react-router'
import { importSearchOf } from '../../../features/imports/import-search'
import { ImportWizardPage } from '../../../features/imports/import-wizard-page'

// The component (with papaparse) is split into a chunk of its own and loads on the first visit to the wizard.
export const Route = createFileRoute('/_app/leads/import')({
  validateSearch: importSearchOf,
  component: ImportRoute,
})

function ImportRoute() {
  const { id } = Route.useSearch()
  return <ImportWizardPage id={id} />
}
