import { useQuery, useSuspenseQuery } from '@tanstack/react-query'
import { Link, Outlet, useNavigate } from '@tanstack/react-router'
import { lazy, Suspense, useEffect, useState } from 'react'
import { Button } from '../../components/ui/button'
import { usePainted } from '../../lib/after-paint'
import { authQueries, useSignOut, useTimeZoneSync } from '../auth/auth-queries'
import { taskQueries } from '../tasks/task-queries'

// cmdk and the palette load on first use: every screen's first visit pays only for the key listener and the button.
const CommandPalette = lazy(() => import('../palette/command-palette').then((m) => ({ default: m.CommandPalette })))

const navLink =
  'rounded-md whitespace-nowrap px-3 py-1.5 text-sm font-medium text-slate-600 hover:bg-slate-100 hover:text-slate-900 data-[status=active]:bg-indigo-50 data-[status=active]:text-indigo-700'

/** The signed-in layout: organization, navigation, the user and sign-out around the current screen. */
export function AppShell() {
  const { data: session } = useSuspenseQuery(authQueries.session())
  const signOut = useSignOut()
  const navigate = useNavigate()
  useTimeZoneSync()
  // The count waits for the screen's first frame: its request (up to 999 ids, 15–50 ms of the API's time) made while
  // that frame was laid out and painted took a core from it on a 2-core machine (docs/decisions/0067).
  const painted = usePainted()
  const inboxCount = useQuery({ ...taskQueries.inboxCount(session.user.id), enabled: painted })
  // Undefined until first opened, so that the palette's code is not fetched before it is wanted.
  const [palette, setPalette] = useState<boolean>()
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if ((event.ctrlKey || event.metaKey) && !event.altKey && !event.shiftKey && event.key.toLowerCase() === 'k') {
        event.preventDefault()
        setPalette((open) => open !== true)
      }
    }
    window.addEventListener('keydown', onKey)
    return () => {
      window.removeEventListener('keydown', onKey)
    }
  }, [])

  return (
    <div className="flex min-h-screen flex-col">
      <a
        href="#main"
        className="sr-only focus:not-sr-only focus:fixed focus:top-2 focus:left-2 focus:z-50 focus:rounded focus:bg-white focus:px-3 focus:py-2"
      >
        Skip to content
      </a>
      <header className="sticky top-0 z-30 border-b border-slate-200 bg-white">
        {/*
          Below lg the navigation takes a row of its own, under the product and the user, and scrolls if it must. From
          lg it shares the row and is never narrower than its links: the organization's name gives way instead. The
          signed-in user's name and email, and the palette's shortcut, show from xl, where the row has room for them.
        */}
        <div className="mx-auto flex max-w-7xl flex-wrap items-center gap-x-4 gap-y-1 px-4 py-2 lg:h-14 lg:flex-nowrap lg:py-0 xl:gap-x-6">
          {/* On a phone the organization goes under the product name rather than being cut to a few letters. */}
          <div className="flex min-w-0 flex-col sm:flex-row sm:items-baseline sm:gap-2">
            <span className="text-lg leading-6 font-bold tracking-tight text-indigo-700">Leadline</span>
            <p className="truncate text-xs text-slate-500 sm:text-sm">
              <span className="sr-only">Organization: </span>
              <span>{session.organization.name}</span>
            </p>
          </div>
          <nav
            aria-label="Main"
            className="relative order-last -mx-1 flex w-full items-center gap-1 overflow-x-auto lg:order-none lg:mx-0 lg:w-auto lg:shrink-0"
          >
            <Link to="/inbox" className={navLink}>
              Inbox{' '}
              {inboxCount.data === undefined ? null : (
                <span className="ml-1 rounded-full bg-slate-200 px-1.5 text-xs font-semibold text-slate-700">
                  {inboxCount.data}
                  <span className="sr-only"> tasks</span>
                </span>
              )}
            </Link>
            <Link to="/leads" className={navLink}>
              Leads
            </Link>
            <Link to="/opportunities" className={navLink}>
              Opportunities
            </Link>
            <Link to="/reports" className={navLink}>
              Reports
            </Link>
            {session.role === 'admin' ? (
              <Link to="/settings" className={navLink}>
                Settings
              </Link>
            ) : null}
          </nav>
          <div className="ml-auto flex items-center gap-3">
            <button
              type="button"
              aria-keyshortcuts="Control+K Meta+K"
              className={`${navLink} border border-slate-200`}
              onClick={() => {
                setPalette(true)
              }}
            >
              Search and commands{' '}
              <kbd aria-hidden="true" className="ml-1 hidden text-xs text-slate-500 xl:inline">
                Ctrl K
              </kbd>
            </button>
            <span className="hidden text-right text-sm leading-tight xl:block">
              <span className="block font-medium text-slate-900">{session.user.display_name}</span>
              <span className="block text-xs text-slate-500">{session.user.email}</span>
            </span>
            <Link to="/settings/profile" className={navLink}>
              Profile
            </Link>
            <Button
              size="sm"
              variant="quiet"
              isPending={signOut.isPending}
              onPress={() => {
                signOut.mutate(undefined, {
                  onSuccess: () => {
                    void navigate({ to: '/sign-in' })
                  },
                })
              }}
            >
              Sign out
            </Button>
          </div>
        </div>
      </header>
      <main id="main" className="mx-auto w-full max-w-7xl flex-1 px-4 py-6">
        <Outlet />
      </main>
      {palette === undefined ? null : (
        <Suspense fallback={null}>
          <CommandPalette isOpen={palette} onOpenChange={setPalette} />
        </Suspense>
      )}
    </div>
  )
}
