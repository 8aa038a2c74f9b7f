import { LRUCache } from 'lru-cache'
import type { Db, EmailTemplateTable } from '../../platform/data/database.js'
import { ValidationError } from '../../platform/http/errors.js'
import type { Attachment } from '../../platform/http/attachments.js'
import { oneLine } from '../../platform/text/text.js'
import { findVisibleTemplate, templateAttachments } from './email-template-repo.js'
import { htmlToText } from '../../platform/text/html-text.js'
import { templateContext, type ContextInput } from './template-context.js'
import {
  isLiquidError,
  parsePart,
  renderPart,
  TemplateLimitError,
  TZ_OFFSET_HOURS,
  unknownPlaceholders,
  type ParsedPart,
  type TemplatePart,
} from './template-engine.js'

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

/** Templates parsed lately, by id: a send or a preview does not parse its template again. */
const parsed = new LRUCache<string, CachedTemplate>({ max: 500 })

/**
 * A stored template's subject and body, parsed: from the cache when this version (its `date_updated`, and the same
 * text, should two changes share a timestamp) was parsed before.
 */
export function parsedTemplate(row: EmailTemplateTable, fields = TEMPLATE_FIELDS): CachedTemplate['parts'] {
  const hit = parsed.get(row.id)
  if (
    hit !== undefined &&
    hit.dateUpdated === row.date_updated &&
    hit.subject === row.subject &&
    hit.body === row.body
  ) {
    return hit.parts
  }
  // Checked when saved; only a template saved under other rules could fail here.
  const parse = (part: TemplatePart, source: string) => {
    try {
      return parsePart(part, source)
    } catch (error) {
      if (isLiquidError(error))
        throw new ValidationError({ [fields[part]]: `The template is not valid: ${error.message}.` })
      if (error instanceof TemplateLimitError)
        throw new ValidationError({ [fields[part]]: `Too large or too complex a template: ${error.message}.` })
      throw error
    }
  }
  const parts = { subject: parse('subject', row.subject), body: parse('body', row.body) }
  parsed.set(row.id, { dateUpdated: row.date_updated, subject: row.subject, body: row.body, parts })
  return parts
}

/** The fields a template's errors name, by part: a template's own by default; an email names its `body_html`. */
export type TemplateFieldNames = Record<TemplatePart, string>
const TEMPLATE_FIELDS: TemplateFieldNames = { subject: 'subject', body: 'body' }

/**
 * A template rendered for a lead and contact as a user sees it: the subject on one line with values as they are,
 * the HTML body with every value escaped, its plain-text form, and a warning for each placeholder that names nothing.
 */
export async function renderTemplateRow(
  db: Db,
  row: EmailTemplateTable,
  input: ContextInput & { tzOffsetHours?: number },
  fields = TEMPLATE_FIELDS,
): Promise<RenderedTemplate> {
  const parts = parsedTemplate(row, fields)
  const context = await templateContext(db, input)
  // Dates show in the user's zone (X-TZ-Offset, as tasks' days do); a symbol key no template can name.
  const zoned = Object.assign(Object.create(null) as object, context, { [TZ_OFFSET_HOURS]: input.tzOffsetHours ?? 0 })
  // A value with a line break (or any control character) must not start a new header line: it becomes a space.
  const subject = oneLine(renderPart('subject', parts.subject, zoned, fields.subject)).trim()
  const bodyHtml = renderPart('body', parts.body, zoned, fields.body)
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
  input: ContextInput & { templateId: string; tzOffsetHours?: number },
  fields?: TemplateFieldNames,
): Promise<RenderedTemplate | undefined> {
  const row = await findVisibleTemplate(db, input.organizationId, input.userId, input.templateId)
  if (row === undefined) return undefined
  return renderTemplateRow(db, row, input, fields)
}
