import { createFileRoute, redirect } from '@tanstack/react-router'
import { HOME } from '../../features/shell/screen-redirects'

export const Route = createFileRoute('/_app/')({
  beforeLoad: () => {
    redirect({ to: HOME, throw: true })
  },
})
