import type { Task } from '@leadline/shared/task-schema'

/** A lead task as the API answers it, for unit tests: open, due on `date`, with its id as its text. */
export function taskFixture(id: string, date: string, extra: Partial<Task> = {}): Task {
  return {
    id,
    _type: 'lead',
    view: 'inbox',
    organization_id: 'orga_1',
    lead_id: 'lead_1',
    lead_name: 'Acme',
    contact_id: null,
    contact_name: null,
    assigned_to: 'user_1',
    assigned_to_name: 'Riley Rep',
    date,
    due_date: date,
    is_dateless: false,
    is_complete: false,
    object_type: null,
    object_id: null,
    date_completed: null,
    created_by: null,
    created_by_name: null,
    updated_by: null,
    updated_by_name: null,
    date_created: '2026-11-01T10:00:00.000000+00:00',
    date_updated: '2026-11-01T10:00:00.000000+00:00',
    text: id,
    ...extra,
  }
}
