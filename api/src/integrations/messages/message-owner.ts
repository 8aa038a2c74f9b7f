import type { KeyOwner } from '../../platform/security/api-key-repo.js'
import { findInternalPhoneNumber } from '../../telephony/phone-numbers/phone-number-repo.js'
import type { Db, Tx } from '../../platform/data/database.js'
import { ForbiddenError } from '../../platform/http/errors.js'
import { readStatusChange, same, startsSend, type MessageStatus, type StatusChange } from './message-status.js'

// Whose a message is, and who may act on it (docs/decisions/0037-who-sends-clean-headers-send-deadline.md). A message is sent
// through its user's account (an email through their SMTP login), so only that user may send it: write it as a
// draft, schedule it, put it in the outbox, or edit the draft that will go out. An admin may log a colleague's
// message sent or received elsewhere (`sent`, `inbox`), which sends nothing. Anyone who may delete a message may
// also take it back to draft, which stops its send as a delete would.

/** The statuses that record a message rather than send one. */
const LOGGED: readonly MessageStatus[] = ['sent', 'inbox']

export const NOT_YOURS_TO_SEND = 'Only the message’s own user can send it, schedule it or change its draft.'

/** Refuses (403) a new message of `userId` by `me` unless it is theirs, or an admin's log of a colleague's. */
export function checkNewMessageUser(me: KeyOwner, userId: string, status: MessageStatus): void {
  if (userId === me.userId) return
  if (me.role !== 'admin')
    throw new ForbiddenError('Only an admin can log a message for a colleague; leave out user_id for your own.')
  if (!LOGGED.includes(status))
    throw new ForbiddenError(
      `An admin can log a colleague’s message sent or received (status sent or inbox), never ${status} one: ${NOT_YOURS_TO_SEND}`,
    )
}

/**
 * Refuses (403) a change by `me` to a message of `ownerId` (null: a user since removed) that sends it or edits its
 * draft, unless it is theirs. `edited`: the change touches more than the status (content, contact, schedule).
 */
export function checkMessageChange(me: KeyOwner, ownerId: string | null, change: StatusChange, edited: boolean): void {
  if (ownerId === me.userId) return
  if (startsSend(change) || edited) throw new ForbiddenError(NOT_YOURS_TO_SEND)
}

/** A stored message and what a PUT makes of it, its new content applied but not yet its status. */
export interface MessageEdit<D extends { status: MessageStatus; date_scheduled: string | null }> {
  before: D
  after: D
  /** The message's user (null: a user since removed). */
  ownerId: string | null
  contactMoved: boolean
  /** The fields only a draft may change, and what the message is called in the refusal ("email", "message"). */
  content: readonly (keyof D & string)[]
  noun: string
}

/**
 * Reads a PUT to a message, adding what is wrong to `errors`: past a draft, content sent back as it is is no edit
 * and other content is refused field by field; then the status move, refused (403) to anyone but the message's user
 * where it sends the message or edits its draft. Answers the move and the message after it.
 */
export function readMessageEdit<D extends { status: MessageStatus; date_scheduled: string | null }>(
  me: KeyOwner,
  edit: MessageEdit<D>,
  body: { status?: MessageStatus; date_scheduled?: string | null; send_in?: number | null },
  now: Date,
  errors: Record<string, string>,
): { change: StatusChange; after: D } {
  const { before, contactMoved } = edit
  const from = before.status
  if (from !== 'draft') {
    const problem = `Only a draft can be changed; this ${edit.noun} is ${from}.`
    for (const field of edit.content) if (!same(before[field], edit.after[field])) errors[field] = problem
    if (contactMoved) errors.contact_id = problem
  }
  const change = readStatusChange(before, body, now, errors)
  const after = { ...edit.after, status: change.to, date_scheduled: change.dateScheduled }
  const edited = !same({ ...after, status: before.status }, before) || contactMoved
  checkMessageChange(me, edit.ownerId, change, edited)
  return { change, after }
}

export const NOT_YOUR_NUMBER =
  'This number is a colleague’s own line: send from one of yours or a shared number (one with no user).'

/**
 * Refuses (403) sending from an internal number given to a colleague (a shared line has no user): a direct line is
 * its user's, as an email account is, and texts from it reach people as that user.
 */
export async function checkSendingNumber(db: Db | Tx, me: KeyOwner, phone: string | null): Promise<void> {
  if (phone === null) return
  const owner = (await findInternalPhoneNumber(db, me.organizationId, phone))?.user_id ?? null
  if (owner !== null && owner !== me.userId) throw new ForbiddenError(NOT_YOUR_NUMBER)
}
