import { createFileRoute } from '@tanstack/react-router'
import { CustomFieldsPage } from '../../../features/settings/custom-fields-page'

export const Route = createFileRoute('/_app/settings/custom-fields')({
  component: CustomFieldsPage,
})
