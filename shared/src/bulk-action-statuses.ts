// A bulk action's states, apart from its schema: the web app polls on them without loading TypeBox.

/** Close's states of a bulk action, and Leadline's two for an edit's undo. */
export const BULK_ACTION_STATUSES = [
  'created',
  'loading',
  'processing',
  'done',
  'paused',
  'resuming',
  'error',
  'undoing',
  'undone',
] as const
export type BulkActionStatus = (typeof BULK_ACTION_STATUSES)[number]

/** States in which the job is under way (the web polls while one of these lasts). */
export const BULK_ACTION_BUSY_STATUSES: readonly BulkActionStatus[] = [
  'created',
  'loading',
  'processing',
  'resuming',
  'undoing',
]
