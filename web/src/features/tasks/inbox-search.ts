import type { TaskViewName } from '@leadline/shared/task-dates'

// The inbox's search params: which tab (`tab`) and whose tasks (`user`); no React, so the rules are unit-tested.

export interface InboxSearch {
  /** Future or Archive; the inbox itself when absent. */
  tab?: 'future' | 'archive'
  /** A teammate's user id or `all`; the signed-in user's own tasks when absent. */
  user?: string
}

const USER = /^(all|user_[A-Za-z0-9]+)$/

/** What a URL asks for, each param checked; a rejected one is dropped, so an old or mistyped link still opens. */
export function inboxSearchOf(search: Record<string, unknown>): InboxSearch {
  const result: InboxSearch = {}
  if (search.tab === 'future' || search.tab === 'archive') result.tab = search.tab
  if (typeof search.user === 'string' && USER.test(search.user)) result.user = search.user
  return result
}

export function viewOf(search: InboxSearch): TaskViewName {
  return search.tab ?? 'inbox'
}
