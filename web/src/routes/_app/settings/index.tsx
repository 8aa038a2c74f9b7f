import { createFileRoute, redirect } from '@tanstack/react-router'
import { SETTINGS_HOME } from '../../../features/settings/settings-home'

export const Route = createFileRoute('/_app/settings/')({
  beforeLoad: () => {
    redirect({ to: SETTINGS_HOME, throw: true })
  },
})
