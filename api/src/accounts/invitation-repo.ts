import type { Db, Dialect, InvitationTable } from '../platform/data/database.js'
import { formatTimestamp, type Clock } from '../platform/data/time.js'
import { HttpError, ValidationError } from '../platform/http/errors.js'
import { newId } from '../platform/security/ids.js'
import { linkTokenHash, newLinkToken } from '../platform/security/single-use-link.js'
import { isEmail } from '../platform/text/text.js'
import { addMembership, displayName, ensureUser } from '../crm/users/user-repo.js'
import { lockMemberships } from './account-repo.js'
import { queueLinkMail, type LinkPayload, type SystemMail } from './system-mail.js'

// Invitations: an admin (or an operator, with the CLI) invites an address to join the organization with a role. The
// link, emailed by the system mailer, works once, for 7 days; a resend replaces it, a revoke ends it.

/** The outbox kind of an invitation's email (`kind` holds 16 characters). */
export const INVITATION_KIND = 'invitation'
export const INVITATION_LIFETIME_MS = 7 * 24 * 3_600_000
/** How long after one email of an invitation another may be sent. */
export const RESEND_WAIT_MS = 60_000
/** Invitation emails (made and resent) an organization may send in an hour. */
export const INVITATIONS_PER_HOUR = 50
export const INVITATION_INVALID = 'This invitation link is not valid any more. Ask your admin for a new one.'

export type InvitationStatus = 'pending' | 'accepted' | 'revoked' | 'expired'

export function invitationStatus(
  row: Pick<InvitationTable, 'date_accepted' | 'date_revoked' | 'date_expires'>,
  now: Date,
): InvitationStatus {
  if (row.date_accepted !== null) return 'accepted'
  if (row.date_revoked !== null) return 'revoked'
  return Date.parse(row.date_expires) <= now.getTime() ? 'expired' : 'pending'
}

/** The link an invitation's email carries. */
export function invitationLink(appUrl: string, token: string): string {
  return `${appUrl}/accept-invitation?token=${encodeURIComponent(token)}`
}

/** Refuses another invitation email when the organization has sent its hour's; 429 with `Retry-After`. */
async function refuseOverHourlyLimit(tx: Db, organizationId: string, at: Date): Promise<void> {
  const since = formatTimestamp(new Date(at.getTime() - 3_600_000))
  const row = await tx
    .selectFrom('outbox')
    .select((eb) => [eb.fn.countAll<number | string>().as('count'), eb.fn.min('date_created').as('oldest')])
    .where('organization_id', '=', organizationId)
    .where('kind', '=', INVITATION_KIND)
    .where('date_created', '>', since)
    .executeTakeFirst()
  if (Number(row?.count ?? 0) < INVITATIONS_PER_HOUR) return
  const oldest = typeof row?.oldest === 'string' ? Date.parse(row.oldest) : at.getTime()
  const wait = Math.max(1, Math.ceil((oldest + 3_600_000 - at.getTime()) / 1000))
  throw new HttpError(
    429,
    `This organization has sent ${String(INVITATIONS_PER_HOUR)} invitations in the last hour: try again later.`,
    { 'retry-after': String(wait) },
  )
}

/** The membership (active or deactivated) of the person with this address in the organization, if any. */
export async function memberOf(db: Db, where: { organization_id: string; email_lower: string }) {
  return db
    .selectFrom('membership')
    .innerJoin('user', 'user.id', 'membership.user_id')
    .select(['membership.id', 'membership.user_id', 'membership.status'])
    .where('membership.organization_id', '=', where.organization_id)
    .where('user.email_lower', '=', where.email_lower)
    .executeTakeFirst()
}

/** A new link for an invitation: its token, and the columns that store it (valid 7 days from `at`, sent at `at`). */
function newLink(at: Date) {
  const { token, hash } = newLinkToken()
  const columns = {
    token_hash: hash,
    date_expires: formatTimestamp(new Date(at.getTime() + INVITATION_LIFETIME_MS)),
    date_last_sent: formatTimestamp(at),
  }
  return { token, columns }
}

/** Queues the email of an invitation's link. */
async function queueInvitationMail(
  tx: Db,
  invitation: { id: string; organization_id: string },
  token: string,
  at: Date,
) {
  const payload: LinkPayload = { id: invitation.id, token }
  await queueLinkMail(tx, { organizationId: invitation.organization_id, kind: INVITATION_KIND, payload }, at)
}

/**
 * Invites `email` to the organization with `role`, in the caller's transaction (the memberships locked): refused on
 * `email` when it is no address, a member's (active or deactivated), or already invited and pending. Answers the
 * invitation's id, the link's token and when it expires.
 */
export async function createInvitation(
  tx: Db,
  dialect: Dialect,
  clock: Clock,
  input: { organizationId: string; email: string; role: 'admin' | 'user'; invitedBy: string | null },
): Promise<{ id: string; token: string; dateExpires: string }> {
  const email = input.email.trim()
  if (!isEmail(email)) throw ValidationError.field('email', 'Enter a valid email address.')
  const emailLower = email.toLowerCase()
  await lockMemberships(tx, dialect, input.organizationId)
  const member = await memberOf(tx, { organization_id: input.organizationId, email_lower: emailLower })
  if (member?.status === 'active') throw ValidationError.field('email', `${email} is already a member.`)
  if (member !== undefined)
    throw ValidationError.field('email', `${email} is a deactivated member; reactivate them under Users.`)
  const now = clock.now()
  const earlier = await tx
    .selectFrom('invitation')
    .select(['id', 'date_accepted', 'date_revoked', 'date_expires'])
    .where('organization_id', '=', input.organizationId)
    .where('email_lower', '=', emailLower)
    .where('date_accepted', 'is', null)
    .where('date_revoked', 'is', null)
    .execute()
  if (earlier.some((row) => invitationStatus(row, now) === 'pending'))
    throw ValidationError.field('email', `${email} was already invited; resend that invitation.`)
  await refuseOverHourlyLimit(tx, input.organizationId, now)
  // An expired invitation to the address is replaced by the new one, so the list shows the address once.
  if (earlier.length > 0)
    await tx
      .updateTable('invitation')
      .set({ date_revoked: formatTimestamp(now) })
      .where(
        'id',
        'in',
        earlier.map((row) => row.id),
      )
      .execute()
  const id = newId('invitation')
  const link = newLink(now)
  await tx
    .insertInto('invitation')
    .values({
      id,
      organization_id: input.organizationId,
      email,
      email_lower: emailLower,
      role: input.role,
      invited_by: input.invitedBy,
      date_created: formatTimestamp(now),
      ...link.columns,
      date_accepted: null,
      date_revoked: null,
    })
    .execute()
  await queueInvitationMail(tx, { id, organization_id: input.organizationId }, link.token, now)
  return { id, token: link.token, dateExpires: link.columns.date_expires }
}

/** Sends an invitation again with a new link (the old one stops working); refused within a minute of the last. */
export async function resendInvitation(
  tx: Db,
  clock: Clock,
  invitation: Pick<
    InvitationTable,
    'id' | 'organization_id' | 'date_accepted' | 'date_revoked' | 'date_expires' | 'date_last_sent'
  >,
): Promise<string> {
  const now = clock.now()
  const status = invitationStatus(invitation, now)
  if (status === 'accepted' || status === 'revoked')
    throw new HttpError(400, `This invitation was ${status}: it cannot be sent again.`)
  const since = now.getTime() - Date.parse(invitation.date_last_sent)
  if (since < RESEND_WAIT_MS)
    throw new HttpError(
      400,
      `This invitation was sent moments ago: wait ${String(Math.ceil((RESEND_WAIT_MS - since) / 1000))} seconds before sending it again.`,
    )
  await refuseOverHourlyLimit(tx, invitation.organization_id, now)
  const link = newLink(now)
  await tx.updateTable('invitation').set(link.columns).where('id', '=', invitation.id).execute()
  await queueInvitationMail(tx, invitation, link.token, now)
  return link.token
}

/** The invitation whose link `token` is while it is pending (not used, revoked, replaced or expired). */
export async function pendingInvitationByToken(db: Db, token: string, now: Date) {
  if (token.length > 100) return undefined
  return pendingInvitationByHash(db, linkTokenHash(token), now)
}

/** The pending invitation whose link hashes to `tokenHash` (a single sign-on keeps only the hash while it runs). */
export async function pendingInvitationByHash(db: Db, tokenHash: string, now: Date) {
  const row = await db
    .selectFrom('invitation')
    .innerJoin('organization', 'organization.id', 'invitation.organization_id')
    .selectAll('invitation')
    .select('organization.name as organization_name')
    .where('invitation.token_hash', '=', tokenHash)
    .executeTakeFirst()
  return row !== undefined && invitationStatus(row, now) === 'pending' ? row : undefined
}

/** The email of an invitation whose link is still the waiting one. */
export async function invitationMail(
  db: Db,
  appUrl: string,
  payload: LinkPayload & { token: string },
  now: Date,
): Promise<SystemMail | undefined> {
  const invitation = await pendingInvitationByToken(db, payload.token, now)
  if (invitation?.id !== payload.id) return undefined
  const inviter =
    invitation.invited_by === null
      ? undefined
      : await db
          .selectFrom('user')
          .select(['first_name', 'last_name', 'email'])
          .where('id', '=', invitation.invited_by)
          .executeTakeFirst()
  const role = invitation.role === 'admin' ? 'an admin' : 'a user'
  const invited =
    inviter === undefined
      ? `You are invited to join ${invitation.organization_name} on Leadline, as ${role}.`
      : `${displayName(inviter)} invited you to join ${invitation.organization_name} on Leadline, as ${role}.`
  return {
    to: invitation.email,
    subject: `You are invited to ${invitation.organization_name} on Leadline`,
    text:
      `${invited}\n\n` +
      `To accept, open this link:\n${invitationLink(appUrl, payload.token)}\n\n` +
      `The link works once, for ${String(INVITATION_LIFETIME_MS / (24 * 3_600_000))} days. If you did not expect ` +
      'this invitation, ignore this email.\n',
  }
}

/** The user an invitation makes: names (null where not given); no password when they sign in by single sign-on. */
export interface InvitedUser {
  firstName: string | null
  lastName: string | null
  passwordHash: string | null
}

/**
 * Accepts a pending invitation whose link hashes to `tokenHash`, in the caller's transaction: it is marked accepted
 * (of two accepts at once, the first to mark it wins), and its address's user (made from `newUser`, or the existing
 * one when `newUser` is undefined) joins with its role. Refused with the invalid-link message when the link was used,
 * revoked, replaced or expired meanwhile, or the address got an account or joined by other means since it was checked.
 */
export async function joinByInvitation(
  tx: Db,
  dialect: Dialect,
  clock: Clock,
  invitation: Pick<InvitationTable, 'id' | 'organization_id' | 'email' | 'email_lower' | 'role'>,
  tokenHash: string,
  newUser: InvitedUser | undefined,
): Promise<{ organizationId: string; userId: string; membershipId: string }> {
  await lockMemberships(tx, dialect, invitation.organization_id)
  const stamp = formatTimestamp(clock.now())
  const taken = await tx
    .updateTable('invitation')
    .set({ date_accepted: stamp })
    .where('id', '=', invitation.id)
    .where('token_hash', '=', tokenHash)
    .where('date_accepted', 'is', null)
    .where('date_revoked', 'is', null)
    .where('date_expires', '>', stamp)
    .executeTakeFirst()
  if (Number(taken.numUpdatedRows) === 0) throw new HttpError(400, INVITATION_INVALID)
  const user = await tx
    .selectFrom('user')
    .select('id')
    .where('email_lower', '=', invitation.email_lower)
    .executeTakeFirst()
  if ((user === undefined) !== (newUser !== undefined) || (await memberOf(tx, invitation)) !== undefined)
    throw new HttpError(400, INVITATION_INVALID)
  const userId =
    user?.id ??
    (await ensureUser(tx, clock, {
      email: invitation.email,
      firstName: newUser?.firstName ?? null,
      lastName: newUser?.lastName ?? null,
    }))
  if (newUser?.passwordHash != null)
    await tx
      .updateTable('user')
      .set({ password_hash: newUser.passwordHash, password_changed_at: stamp })
      .where('id', '=', userId)
      .execute()
  const membershipId = await addMembership(tx, clock, {
    organizationId: invitation.organization_id,
    userId,
    role: invitation.role,
  })
  return { organizationId: invitation.organization_id, userId, membershipId }
}
