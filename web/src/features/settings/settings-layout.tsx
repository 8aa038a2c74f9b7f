import { useDocumentTitle } from '../../lib/document-title'
import { useSuspenseQuery } from '@tanstack/react-query'
import { Link } from '@tanstack/react-router'
import type { ReactNode } from 'react'
import { Button } from '../../components/ui/button'
import { authQueries } from '../auth/auth-queries'
import { BackToLeadsLink } from '../shell/error-pages'

/** The settings screens by their nav labels, in the groups and order the nav shows them. */
const GROUPS = [
  { label: 'Organization', tabs: ['Organization', 'Users', 'API keys', 'Single sign-on', 'Audit log'] },
  { label: 'Sales process', tabs: ['Pipelines', 'Lead statuses', 'Custom fields', 'Call outcomes'] },
  { label: 'Messages and integrations', tabs: ['Email accounts', 'Email templates', 'Phone numbers', 'Webhooks'] },
] as const

/** `API keys` → `api-keys`: a screen's path and a group's id come from its label. */
type Slug<Label extends string> = Label extends `${infer Word} ${infer Rest}`
  ? `${Lowercase<Word>}-${Slug<Rest>}`
  : Lowercase<Label>

// The cast restates at the type level what the one line computes, so every `to` is checked against the route tree.
const slug = <Label extends string>(label: Label) => label.toLowerCase().replaceAll(' ', '-') as Slug<Label>

const groupId = (label: string) => `settings-group-${slug(label)}`

const tabLink =
  'block rounded-md px-3 py-1.5 text-sm font-medium text-slate-600 hover:bg-slate-100 hover:text-slate-900 data-[status=active]:bg-indigo-50 data-[status=active]:text-indigo-700'

/**
 * Around every settings screen. Settings are for admins: anyone else is told so plainly, instead of meeting the API's
 * 403 on every save. A wrapper rather than a layout route: a route chunk of its own would split the first bundle's
 * shared chunks and cost every first visit about a kilobyte.
 */
function SettingsFrame({ children }: { children: ReactNode }) {
  const { data: session } = useSuspenseQuery(authQueries.session())
  if (session.role !== 'admin') return <AdminsOnlyPage organization={session.organization.name} />
  return (
    <div className="flex flex-col gap-6 xl:flex-row xl:items-start">
      <nav
        aria-label="Settings"
        className="flex flex-wrap gap-x-6 gap-y-3 border-b border-slate-200 pb-3 xl:w-52 xl:shrink-0 xl:flex-col xl:border-r xl:border-b-0 xl:pr-4 xl:pb-0"
      >
        {GROUPS.map((group) => (
          <div key={group.label} className="flex flex-col gap-1">
            <p id={groupId(group.label)} className="px-3 text-xs font-semibold tracking-wide text-slate-500 uppercase">
              {group.label}
            </p>
            <ul aria-labelledby={groupId(group.label)} className="flex flex-wrap gap-1 xl:flex-col">
              {group.tabs.map((tab) => (
                <li key={tab}>
                  <Link to={`/settings/${slug(tab)}`} className={tabLink}>
                    {tab}
                  </Link>
                </li>
              ))}
            </ul>
          </div>
        ))}
      </nav>
      <div className="min-w-0 flex-1">{children}</div>
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
        The settings of {organization} (its pipelines and statuses, custom fields, users and keys, email, phone numbers
        and webhooks) are managed by its admins. Ask one of them if something here needs to change.
      </p>
      <p className="mt-2 text-slate-600">
        Your own name, time zone, password, two-factor, email accounts and API keys are on{' '}
        <Link to="/settings/profile" className="font-medium text-indigo-700 underline">
          your profile
        </Link>
        .
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

/** The end of a settings form that saves in place: its failure that belongs to no one field, then the save button. */
export function SettingsSave({
  error,
  label,
  isPending,
}: {
  error: string | undefined
  label: string
  isPending: boolean
}) {
  return (
    <>
      {error === undefined ? null : (
        <p role="alert" className="text-sm text-red-700">
          {error}
        </p>
      )}
      <div>
        <Button type="submit" variant="primary" isPending={isPending}>
          {label}
        </Button>
      </div>
    </>
  )
}
