import { useDocumentTitle } from '../../lib/document-title'
import { useSuspenseQuery } from '@tanstack/react-query'
import { Link } from '@tanstack/react-router'
import type { ReactNode } from 'react'
import { authQueries } from '../auth/auth-queries'
import { BackToLeadsLink } from '../shell/error-pages'

/** The settings tabs, in the order the nav shows them. */
const TABS = [
  { to: '/settings/pipelines', label: 'Pipelines' },
  { to: '/settings/lead-statuses', label: 'Lead statuses' },
  { to: '/settings/users', label: 'Users' },
  { to: '/settings/api-keys', label: 'API keys' },
  { to: '/settings/email-accounts', label: 'Email accounts' },
  { to: '/settings/email-templates', label: 'Email templates' },
  { to: '/settings/single-sign-on', label: 'Single sign-on' },
] as const

const tabLink =
  'rounded-md px-3 py-1.5 text-sm font-medium text-slate-600 hover:bg-slate-100 hover:text-slate-900 data-[status=active]:bg-indigo-50 data-[status=active]:text-indigo-700'

/**
 * Around every settings screen. Settings are for admins: anyone else is told so plainly, instead of meeting the API's
 * 403 on every save. A wrapper rather than a layout route: a route chunk of its own would split the first bundle's
 * shared chunks and cost every first visit about a kilobyte.
 */
function SettingsFrame({ children }: { children: ReactNode }) {
  const { data: session } = useSuspenseQuery(authQueries.session())
  if (session.role !== 'admin') return <AdminsOnlyPage organization={session.organization.name} />
  return (
    <div className="flex flex-col gap-6">
      <nav aria-label="Settings" className="flex flex-wrap items-center gap-1 border-b border-slate-200 pb-3">
        {TABS.map((tab) => (
          <Link key={tab.to} to={tab.to} className={tabLink}>
            {tab.label}
          </Link>
        ))}
      </nav>
      {children}
    </div>
  )
}

/** A settings screen as its route shows it: `Screen` inside the settings frame, for admins only. */
export function settingsPage(Screen: () => ReactNode) {
  return function SettingsPage() {
    return (
      <SettingsFrame>
        <Screen />
      </SettingsFrame>
    )
  }
}

function AdminsOnlyPage({ organization }: { organization: string }) {
  useDocumentTitle('Settings')
  return (
    <div className="mx-auto max-w-2xl px-4 py-16 text-center">
      <h1 className="text-2xl font-bold text-slate-900">Only admins can change settings</h1>
      <p className="mt-2 text-slate-600">
        Pipelines, statuses, users, API keys, email accounts, email templates and single sign-on of {organization} are
        managed by its admins. Ask one of them if something here needs to change.
      </p>
      <BackToLeadsLink />
    </div>
  )
}

/**
 * A settings screen under its heading and what the screen is for (`actions` across from them); the browser tab and the
 * history say which screen it is: `Pipelines · Settings · Leadline`.
 */
export function SettingsScreen({
  title,
  description,
  actions,
  narrow = false,
  children,
}: {
  title: string
  description: ReactNode
  actions?: ReactNode
  /** A form's width rather than a table's. */
  narrow?: boolean
  children: ReactNode
}) {
  useDocumentTitle(title, 'Settings')
  return (
    <div className={narrow ? 'flex max-w-2xl flex-col gap-6' : 'flex flex-col gap-6'}>
      <div className="flex flex-wrap items-start justify-between gap-3">
        <div className="flex flex-col gap-1">
          <h1 className="text-2xl font-bold text-slate-900">{title}</h1>
          <p className="text-sm text-slate-600">{description}</p>
        </div>
        {actions}
      </div>
      {children}
    </div>
  )
}
