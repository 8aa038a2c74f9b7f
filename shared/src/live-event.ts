// What the BFF's `/events` stream tells a browser about one change: which object changed and how, enough to know
// which screens to refresh, never the object's data (decision 0022).

export interface LiveEvent {
  /** The event's id in the log (`ev_…`). */
  id: string
  /** `lead`, `contact`, `opportunity`, `task.lead`, `activity.note`, `status.lead`, `pipeline`, `custom_field.lead`… */
  object_type: string
  object_id: string
  action: string
  lead_id: string | null
  /** Who made the change. */
  user_id: string | null
  date_created: string
  /** Opportunities: the pipeline, the status now and (when it changed) before, for the board's columns. */
  pipeline_id?: string | null
  status_id?: string | null
  previous_status_id?: string | null
  /**
   * Memberships: whose membership it is, whether it is `active` or `inactive` now and its role (the BFF ends an
   * inactive one's sessions, and gives the others the new role).
   */
  member_user_id?: string | null
  member_status?: string | null
  member_role?: string | null
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function idOrNull(value: unknown): string | null {
  return typeof value === 'string' ? value : null
}

/** The live event of an event as the API streams it (`GET /event/{id}/`'s shape), or undefined if it is not one. */
export function liveEventOf(event: unknown): LiveEvent | undefined {
  if (!isRecord(event)) return undefined
  const { id, object_type, object_id, action, date_created, data, previous_data } = event
  if (typeof id !== 'string' || typeof object_type !== 'string' || typeof object_id !== 'string') return undefined
  if (typeof action !== 'string' || typeof date_created !== 'string') return undefined
  const live: LiveEvent = {
    id,
    object_type,
    object_id,
    action,
    lead_id: idOrNull(event.lead_id),
    user_id: idOrNull(event.user_id),
    date_created,
  }
  // A deleted object's last state is its event's `previous_data` (its `data` is null): the columns and members it
  // leaves are read from there.
  const deleted = action === 'deleted'
  const state = deleted ? previous_data : data
  if (object_type === 'opportunity' && isRecord(state)) {
    live.pipeline_id = idOrNull(state.pipeline_id)
    live.status_id = idOrNull(state.status_id)
    if (!deleted && isRecord(previous_data) && 'status_id' in previous_data)
      live.previous_status_id = idOrNull(previous_data.status_id)
  }
  if (object_type === 'membership' && isRecord(state)) {
    live.member_user_id = idOrNull(state.user_id)
    live.member_status = idOrNull(state.status)
    live.member_role = idOrNull(state.role_id)
  }
  return live
}

/** Whether a message a browser received is a live event (the web checks what it parses). */
export function isLiveEvent(value: unknown): value is LiveEvent {
  return (
    isRecord(value) &&
    typeof value.id === 'string' &&
    typeof value.object_type === 'string' &&
    typeof value.object_id === 'string' &&
    typeof value.action === 'string' &&
    (value.lead_id === null || typeof value.lead_id === 'string')
  )
}
