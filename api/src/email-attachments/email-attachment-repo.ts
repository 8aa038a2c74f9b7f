import type { EmailAttachment } from '../activities/activity-repo.js'
import type { Db, EmailAttachmentTable } from '../db/database.js'
import { newId } from '../platform/ids.js'
import { API_PREFIX } from '../platform/platform.js'
import { formatTimestamp, type Clock } from '../platform/time.js'

// The files of emails (decisions 0032 and 0034): received with one, or uploaded to be sent with one. An upload is in
// no email (`activity_id` null) until an email lists its URL; it is then bound to that email, or copied for it when
// it is in another email already, so that each file belongs to one email and goes when that email goes.

/** A file received with an email, before it is stored: its id is made first, so the email can list its URL. */
export interface ReceivedFile {
  id: string
  filename: string
  contentType: string
  /** Without angle brackets; null when the part has none. */
  contentId: string | null
  content: Buffer
}

/**
 * Where a stored file is served: a path below the API's origin, so it resolves against whatever origin the client
 * reaches the API through (the API itself, or the web app's proxy), which no setting of the API knows (decision 0032).
 */
export function emailAttachmentUrl(id: string): string {
  return `${API_PREFIX}/email_attachment/${id}/`
}

/** A file as the email lists it in `attachments`. */
export function listedAttachment(file: ReceivedFile): EmailAttachment {
  return {
    url: emailAttachmentUrl(file.id),
    filename: file.filename,
    content_type: file.contentType,
    size: file.content.length,
    content_id: file.contentId,
  }
}

/** A received file with a new id. */
export function receivedFile(input: Omit<ReceivedFile, 'id'>): ReceivedFile {
  return { id: newId('emailAttachment'), ...input }
}

/** Stores the files of an email in the caller's transaction (they go when the email goes). */
export async function insertEmailAttachments(
  tx: Db,
  email: { organizationId: string; activityId: string; now: string },
  files: readonly ReceivedFile[],
): Promise<void> {
  if (files.length === 0) return
  const rows: EmailAttachmentTable[] = files.map((file) => ({
    id: file.id,
    organization_id: email.organizationId,
    activity_id: email.activityId,
    filename: file.filename,
    content_type: file.contentType,
    content_id: file.contentId,
    size: file.content.length,
    content: file.content.toString('base64'),
    date_created: email.now,
  }))
  // One file per statement: a statement of several large files would hold all their text at once.
  for (const row of rows) await tx.insertInto('email_attachment').values(row).execute()
}

/** One stored file of the organization, with its bytes. */
export async function findEmailAttachment(db: Db, organizationId: string, id: string) {
  return db
    .selectFrom('email_attachment')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('id', '=', id)
    .executeTakeFirst()
}

/** An uploaded file, as `POST /email_attachment/` answers it. */
export interface UploadedFile {
  id: string
  url: string
  filename: string
  content_type: string
  size: number
  date_created: string
}

/** Stores an uploaded file, in no email yet; answers it. */
export async function insertUpload(
  db: Db,
  file: { organizationId: string; filename: string; contentType: string; content: Buffer; now: string },
): Promise<UploadedFile> {
  const id = newId('emailAttachment')
  await db
    .insertInto('email_attachment')
    .values({
      id,
      organization_id: file.organizationId,
      activity_id: null,
      filename: file.filename,
      content_type: file.contentType,
      content_id: null,
      size: file.content.length,
      content: file.content.toString('base64'),
      date_created: file.now,
    })
    .execute()
  return {
    id,
    url: emailAttachmentUrl(id),
    filename: file.filename,
    content_type: file.contentType,
    size: file.content.length,
    date_created: file.now,
  }
}

/** How long an upload in no email is kept. */
export const UPLOAD_RETENTION_HOURS = 24

/** Deletes the uploads no email took within UPLOAD_RETENTION_HOURS; answers how many went. */
export async function purgeUnboundUploads(db: Db, clock: Clock): Promise<number> {
  const before = formatTimestamp(new Date(clock.now().getTime() - UPLOAD_RETENTION_HOURS * 3_600_000))
  const result = await db
    .deleteFrom('email_attachment')
    .where('activity_id', 'is', null)
    .where('date_created', '<', before)
    .executeTakeFirst()
  return Number(result.numDeletedRows)
}
