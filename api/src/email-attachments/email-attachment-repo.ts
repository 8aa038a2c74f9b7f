import type { EmailAttachment } from '../activities/activity-repo.js'
import type { Db, EmailAttachmentTable } from '../db/database.js'
import { newId } from '../platform/ids.js'
import { API_PREFIX } from '../platform/platform.js'

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
