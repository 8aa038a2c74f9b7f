import { createFileRoute } from '@tanstack/react-router'
import { authQueries } from '../../features/auth/auth-queries'
import { InboxPage } from '../../features/tasks/inbox-page'
import { inboxSearchOf, viewOf } from '../../features/tasks/inbox-search'
import { taskQueries } from '../../features/tasks/task-queries'

export const Route = createFileRoute('/_app/inbox')({
  validateSearch: inboxSearchOf,
  loaderDeps: ({ search }) => search,
  loader: async ({ context: { queryClient }, deps }) => {
    const session = await queryClient.query(authQueries.session())
    const assignee = session.role === 'admin' ? (deps.user ?? session.user.id) : session.user.id
    await queryClient.infiniteQuery(taskQueries.list({ view: viewOf(deps), assignee }))
  },
  component: InboxRoute,
})

function InboxRoute() {
  const search = Route.useSearch()
  // A new list starts with nothing selected.
  return <InboxPage key={`${search.tab ?? 'inbox'}:${search.user ?? ''}`} search={search} />
}
