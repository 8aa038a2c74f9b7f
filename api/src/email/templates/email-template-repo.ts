import type { EmailTemplate } from '@leadline/shared/email-template-schema'
import { sql } from 'kysely'
import type { Db, Dialect, EmailTemplateTable } from '../../platform/data/database.js'
import type { Attachment } from '../../platform/http/attachments.js'
import { newId } from '../../platform/security/ids.js'
import { createdStamps } from '../../platform/data/stamps.js'

// A shared template is the organization's; an unshared one is its author's alone: to everyone else it does not
// exist. Every read here goes through `visible`.

/** The templates `userId` may see: the organization's shared ones and their own. */
function visible(db: Db, organizationId: string, userId: string) {
  return db
    .selectFrom('email_template')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where((eb) => eb.or([eb('is_shared', '=', 1), eb('created_by', '=', userId)]))
}

/** One template the user may see (and so use). */
export async function findVisibleTemplate(
  db: Db,
  organizationId: string,
  userId: string,
  id: string,
): Promise<EmailTemplateTable | undefined> {
  return visible(db, organizationId, userId).where('id', '=', id).executeTakeFirst()
}

export interface TemplateFilters {
  is_archived?: boolean
  is_shared?: boolean
}

/** The templates the user may see, by name (byte order in both dialects), then id. */
export function visibleTemplatesQuery(
  db: Db,
  dialect: Dialect,
  scope: { organizationId: string; userId: string },
  filters: TemplateFilters,
) {
  const collate = dialect === 'postgres' ? sql` collate "C"` : sql``
  let query = visible(db, scope.organizationId, scope.userId)
  if (filters.is_archived !== undefined) query = query.where('is_archived', '=', filters.is_archived ? 1 : 0)
  if (filters.is_shared !== undefined) query = query.where('is_shared', '=', filters.is_shared ? 1 : 0)
  return query.orderBy(sql`name${collate}`).orderBy('id')
}

/** The files a template lists. */
export function templateAttachments(row: EmailTemplateTable): Attachment[] {
  const stored: unknown = JSON.parse(row.attachments)
  return Array.isArray(stored) ? (stored as Attachment[]) : []
}

/** The wire form of a stored template. */
export function emailTemplateView(row: EmailTemplateTable): EmailTemplate {
  return {
    id: row.id,
    organization_id: row.organization_id,
    name: row.name,
    subject: row.subject,
    body: row.body,
    is_shared: row.is_shared === 1,
    is_archived: row.is_archived === 1,
    attachments: templateAttachments(row),
    created_by: row.created_by,
    updated_by: row.updated_by,
    date_created: row.date_created,
    date_updated: row.date_updated,
  }
}

/** What a request sets on a template, checked. */
export interface TemplateFields {
  name: string
  subject: string
  body: string
  is_shared: boolean
  is_archived: boolean
  attachments: Attachment[]
}

function columns(fields: TemplateFields) {
  return {
    name: fields.name,
    subject: fields.subject,
    body: fields.body,
    is_shared: fields.is_shared ? 1 : 0,
    is_archived: fields.is_archived ? 1 : 0,
    attachments: JSON.stringify(fields.attachments),
  }
}

/** Stores a new template by `userId`, who owns it while it is unshared. */
export async function insertTemplate(
  db: Db,
  input: TemplateFields & { organizationId: string; userId: string; now: string },
): Promise<EmailTemplateTable> {
  const row: EmailTemplateTable = {
    id: newId('template'),
    organization_id: input.organizationId,
    ...columns(input),
    ...createdStamps(input.userId, input.now),
  }
  await db.insertInto('email_template').values(row).execute()
  return row
}

/** Replaces a template's fields; `created_by` (its owner) stays. */
export async function updateTemplate(
  db: Db,
  row: EmailTemplateTable,
  fields: TemplateFields,
  change: { userId: string; now: string },
): Promise<EmailTemplateTable> {
  const set = { ...columns(fields), updated_by: change.userId, date_updated: change.now }
  await db
    .updateTable('email_template')
    .set(set)
    .where('organization_id', '=', row.organization_id)
    .where('id', '=', row.id)
    .execute()
  return { ...row, ...set }
}

/** Deletes a template; emails made from it keep its id and what it rendered. */
export async function deleteTemplate(db: Db, row: EmailTemplateTable): Promise<void> {
  await db
    .deleteFrom('email_template')
    .where('organization_id', '=', row.organization_id)
    .where('id', '=', row.id)
    .execute()
}
