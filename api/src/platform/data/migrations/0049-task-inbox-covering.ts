import type { Kysely } from 'kysely'

// Frozen: this migration imports no app code and must never change once released.
// The inbox (GET /task/?view=inbox) keeps a user's open tasks dated up to the end of their today, or dateless, and
// orders them by when each stands in the caller's zone: it reads each task's date, whether it has a time and whether
// it is dateless. Migration 0012's indexes held the date only, so every open task of the user was read from the
// table to be tested (14,667 for the bench's admin, 46 ms on SQLite for a page of 200 of their 2,218). Both task
// indexes by organization now also hold has_time and is_dateless (and the assignee's, the type): the test and the
// sort key come from the index, and only the page's tasks are read whole.

const WIDER: [string, string[]][] = [
  [
    'task_org_assigned_idx',
    ['organization_id', 'assigned_to', 'is_complete', 'date', 'has_time', 'is_dateless', 'type'],
  ],
  ['task_org_view_idx', ['organization_id', 'is_complete', 'type', 'date', 'has_time', 'is_dateless']],
]
const BEFORE: [string, string[]][] = [
  ['task_org_assigned_idx', ['organization_id', 'assigned_to', 'is_complete', 'date']],
  ['task_org_view_idx', ['organization_id', 'is_complete', 'type', 'date']],
]

async function replace(db: Kysely<unknown>, indexes: [string, string[]][]): Promise<void> {
  for (const [name, columns] of indexes) {
    await db.schema.dropIndex(name).execute()
    await db.schema.createIndex(name).on('task').columns(columns).execute()
  }
}

export async function up(db: Kysely<unknown>): Promise<void> {
  await replace(db, WIDER)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await replace(db, BEFORE)
}
