import { LiquidError } from 'liquidjs'
import type { Db, EmailTemplateTable } from '../db/database.js'
import { ValidationError } from '../platform/errors.js'
import type { Attachment } from '../platform/attachments.js'
import { oneLine } from '../platform/text.js'
import { findVisibleTemplate, templateAttachments } from './email-template-repo.js'
import { htmlToText } from './html-text.js'
import { templateContext, type ContextInput } from './template-context.js'
import { parsePart, renderPart, unknownPlaceholders, type ParsedPart } from './template-engine.js'

export interface RenderedTemplate {
  templateName: string
  subject: string
  bodyText: string
  bodyHtml: string
  warnings: string[]
  /** The template's files, which an email made from it carries unless it names its own. */
  attachments: Attachment[]
}

interface CachedTemplate {
  dateUpdated: string
  subject: string
  body: string
  parts: { subject: ParsedPart; body: ParsedPart }
}

/** Templates parsed lately, by id, least recently used first: a send or a preview does not parse its template again. */
const parsed = new Map<string, CachedTemplate>()
const PARSED_MAX = 500

/**
 * A stored template's subject and body, parsed: from the cache when this version (its `date_updated`, and the same
 * text, should two changes share a timestamp) was parsed before.
 */
export function parsedTemplate(row: EmailTemplateTable): CachedTemplate['parts'] {
  const hit = parsed.get(row.id)
  if (
    hit !== undefined &&
    hit.dateUpdated === row.date_updated &&
    hit.subject === row.subject &&
    hit.body === row.body
  ) {
    parsed.delete(row.id)
    parsed.set(row.id, hit)
    return hit.parts
  }
  let parts: CachedTemplate['parts']
  try {
    parts = { subject: parsePart('subject', row.subject), body: parsePart('body', row.body) }
  } catch (error) {
    // Checked when saved; only a template saved under other rules could fail here.
    if (error instanceof LiquidError) throw new ValidationError({}, [`The template is not valid: ${error.message}.`])
    throw error
  }
  parsed.delete(row.id)
  parsed.set(row.id, { dateUpdated: row.date_updated, subject: row.subject, body: row.body, parts })
  if (parsed.size > PARSED_MAX) {
    const oldest = parsed.keys().next()
    if (oldest.done !== true) parsed.delete(oldest.value)
  }
  return parts
}

/**
 * A template rendered for a lead and contact as a user sees it: the subject on one line with values as they are,
 * the HTML body with every value escaped, its plain-text form, and a warning for each placeholder that names nothing.
 */
export async function renderTemplateRow(
  db: Db,
  row: EmailTemplateTable,
  input: ContextInput,
): Promise<RenderedTemplate> {
  const parts = parsedTemplate(row)
  const context = await templateContext(db, input)
  // A value with a line break (or any control character) must not start a new header line: it becomes a space.
  const subject = oneLine(renderPart('subject', parts.subject, context)).trim()
  const bodyHtml = renderPart('body', parts.body, context)
  return {
    templateName: row.name,
    subject,
    bodyText: htmlToText(bodyHtml),
    bodyHtml,
    warnings: unknownPlaceholders([...parts.subject.placeholders, ...parts.body.placeholders], context),
    attachments: templateAttachments(row),
  }
}

/** Renders the organization's template for a lead (and contact, or the lead's first contact when null) as `userId` sees it; undefined when the template does not exist or the user may not use it. Throws ValidationError on lead_id/contact_id problems. */
export async function renderEmailTemplate(
  db: Db,
  input: { organizationId: string; templateId: string; leadId: string; contactId: string | null; userId: string },
): Promise<RenderedTemplate | undefined> {
  const row = await findVisibleTemplate(db, input.organizationId, input.userId, input.templateId)
  if (row === undefined) return undefined
  return renderTemplateRow(db, row, input)
}
