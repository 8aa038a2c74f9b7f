import type { EmailAttachment } from '../../crm/activities/activity-repo.js'
import type { Db, EmailAttachmentTable } from '../../platform/data/database.js'
import { newId } from '../../platform/security/ids.js'
import { API_PREFIX } from '../../platform/http/platform.js'
import { formatTimestamp, type Clock } from '../../platform/data/time.js'
import { findInOrganization } from '../../platform/data/find-or-404.js'

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

const STORED_URL = new RegExp(`^${API_PREFIX}/email_attachment/(attach_[0-9A-Za-z]+)/$`)

/** The id of the stored file a URL of an email's `attachments` names, or undefined when it names none. */
export function storedAttachmentId(url: string): string | undefined {
  return STORED_URL.exec(url)?.[1]
}

/** The ids of the stored files among an email's attachments. */
export function storedAttachmentIds(attachments: readonly { url: string }[]): string[] {
  return attachments.flatMap((a) => storedAttachmentId(a.url) ?? [])
}

/** A file as the email lists it in `attachments`: one in memory, or one of `size` bytes read when it is stored. */
export function listedAttachment(
  file: Omit<ReceivedFile, 'content'> & ({ content: Buffer } | { size: number }),
): EmailAttachment {
  return {
    url: emailAttachmentUrl(file.id),
    filename: file.filename,
    content_type: file.contentType,
    size: 'size' in file ? file.size : file.content.length,
    content_id: file.contentId,
  }
}

/** A received file with a new id. */
export function receivedFile(input: Omit<ReceivedFile, 'id'>): ReceivedFile {
  return { id: newId('emailAttachment'), ...input }
}

/** A file's row: in the email `activityId`, or in none (an upload). */
function fileRow(
  file: ReceivedFile,
  where: { organizationId: string; activityId: string | null; now: string },
): EmailAttachmentTable {
  return {
    id: file.id,
    organization_id: where.organizationId,
    activity_id: where.activityId,
    filename: file.filename,
    content_type: file.contentType,
    content_id: file.contentId,
    size: file.content.length,
    content: file.content.toString('base64'),
    date_created: where.now,
  }
}

/** Stores the files of an email in the caller's transaction (they go when the email goes). */
export async function insertEmailAttachments(
  tx: Db,
  email: { organizationId: string; activityId: string; now: string },
  files: readonly ReceivedFile[],
): Promise<void> {
  // One file per statement, its base64 text made just before: several large files' text is never held at once.
  for (const file of files) await tx.insertInto('email_attachment').values(fileRow(file, email)).execute()
}

/** One stored file of the organization, with its bytes. */
export async function findEmailAttachment(db: Db, organizationId: string, id: string) {
  return findInOrganization(db, 'email_attachment', organizationId, id)
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
  const row = fileRow(
    receivedFile({ filename: file.filename, contentType: file.contentType, contentId: null, content: file.content }),
    { organizationId: file.organizationId, activityId: null, now: file.now },
  )
  await db.insertInto('email_attachment').values(row).execute()
  return {
    id: row.id,
    url: emailAttachmentUrl(row.id),
    filename: row.filename,
    content_type: row.content_type,
    size: row.size,
    date_created: row.date_created,
  }
}

/** A stored file's fields, without its bytes. */
export type StoredFile = Omit<EmailAttachmentTable, 'content'>

/**
 * The organization's stored files among `ids`, by id, without their bytes; `lock` (Postgres) holds their rows to the
 * end of the transaction, so that two emails cannot both take the same upload.
 */
export async function findStoredFiles(
  db: Db,
  organizationId: string,
  ids: readonly string[],
  lock: boolean,
): Promise<Map<string, StoredFile>> {
  if (ids.length === 0) return new Map()
  const query = db
    .selectFrom('email_attachment')
    .select(['id', 'organization_id', 'activity_id', 'filename', 'content_type', 'content_id', 'size', 'date_created'])
    .where('organization_id', '=', organizationId)
    .where('id', 'in', ids)
  const rows = await (lock ? query.forUpdate() : query).execute()
  return new Map(rows.map((row) => [row.id, row]))
}

/** What an email's stored files need once it is written: uploads it takes, and files of other emails it copies. */
export interface FileBinding {
  /** Files in no email, which become this one's. */
  bind: string[]
  /** Files of other emails, each copied to a new id (`to`, the one the email lists) for this one. */
  copy: { from: string; to: string }[]
}

/** Binds and copies an email's files as `binding` says, in the caller's transaction (the email's). */
export async function bindEmailAttachments(
  tx: Db,
  email: { organizationId: string; activityId: string; now: string },
  binding: FileBinding,
): Promise<void> {
  if (binding.bind.length > 0) {
    await tx
      .updateTable('email_attachment')
      .set({ activity_id: email.activityId })
      .where('organization_id', '=', email.organizationId)
      .where('id', 'in', binding.bind)
      .where('activity_id', 'is', null)
      .execute()
  }
  // Copied inside the database: the bytes never pass through the process.
  for (const { from, to } of binding.copy) {
    await tx
      .insertInto('email_attachment')
      .columns([
        'id',
        'organization_id',
        'activity_id',
        'filename',
        'content_type',
        'content_id',
        'size',
        'content',
        'date_created',
      ])
      .expression((eb) =>
        eb
          .selectFrom('email_attachment')
          .select([
            eb.val(to).as('id'),
            'organization_id',
            eb.val(email.activityId).as('activity_id'),
            'filename',
            'content_type',
            'content_id',
            'size',
            'content',
            eb.val(email.now).as('date_created'),
          ])
          .where('organization_id', '=', email.organizationId)
          .where('id', '=', from),
      )
      .execute()
  }
}

/** Deletes the files of an email that it no longer lists (a draft's files taken out), in the caller's transaction. */
export async function deleteUnlistedAttachments(
  tx: Db,
  email: { organizationId: string; activityId: string },
  listedIds: readonly string[],
): Promise<void> {
  let query = tx
    .deleteFrom('email_attachment')
    .where('organization_id', '=', email.organizationId)
    .where('activity_id', '=', email.activityId)
  if (listedIds.length > 0) query = query.where('id', 'not in', listedIds)
  await query.execute()
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
