import { createFileRoute } from '@tanstack/react-router'
import { AuditLogPage } from '../../../features/settings/audit-log-page'

// No loader: the screen loads its entries itself, so nothing of it weighs on the first bundle (the route budget).
export const Route = createFileRoute('/_app/settings/audit-log')({
  component: AuditLogPage,
})
