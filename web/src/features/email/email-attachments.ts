import type { EmailAttachment, UploadedAttachment } from './email-wire'

// The files an email carries as the composer and threads handle them; no React, so the rules are unit-tested.

/**
 * The largest file the composer uploads: the API's default `LEADLINE_EMAIL_ATTACHMENT_MAX_BYTES`. Refused here, a
 * file too large is not sent at all; where the API's limit is set lower, its 413 says so instead.
 */
export const ATTACHMENT_MAX_BYTES = 10 * 1024 * 1024

/** The most files one email may carry (the API's limit). */
export const ATTACHMENTS_MAX = 20

/** A file in the composer: on its way up, or uploaded and named by its URL. */
export type ComposerAttachment =
  | { key: string; state: 'uploading'; filename: string; size: number }
  | { key: string; state: 'attached'; file: EmailAttachment }

/** A size as people read it: bytes, then KB, MB and GB of 1,024, with one decimal below ten. */
export function formatSize(bytes: number): string {
  if (bytes < 1024) return bytes === 1 ? '1 byte' : `${String(bytes)} bytes`
  const units = ['KB', 'MB', 'GB'] as const
  const shown = (value: number) => (value < 10 ? Math.round(value * 10) / 10 : Math.round(value))
  let value = bytes / 1024
  let unit = 0
  // What rounds to 1,024 of one unit is 1 of the next.
  while (unit < units.length - 1 && shown(value) >= 1024) {
    value /= 1024
    unit += 1
  }
  return `${String(shown(value))} ${units[unit] ?? 'GB'}`
}

/** The name a file goes by. */
export function fileLabel(file: { filename: string }): string {
  return file.filename === '' ? 'Attachment' : file.filename
}

/**
 * The chosen files that may upload, and why the others may not (empty; too large; more than an email carries), as
 * sentences; `held` is how many the email has already.
 */
export function screenFiles<F extends { name: string; size: number }>(
  files: readonly F[],
  held: number,
): { accepted: F[]; refused: string[] } {
  const refused: string[] = []
  const names = (some: readonly F[]) => some.map((f) => f.name).join(', ')
  const were = (some: readonly F[]) => (some.length === 1 ? 'was' : 'were')
  const empty = files.filter((f) => f.size === 0)
  if (empty.length > 0)
    refused.push(`${names(empty)} ${empty.length === 1 ? 'is' : 'are'} empty and ${were(empty)} not attached.`)
  const tooLarge = files.filter((f) => f.size > ATTACHMENT_MAX_BYTES)
  if (tooLarge.length > 0)
    refused.push(
      `${names(tooLarge)} ${tooLarge.length === 1 ? 'is' : 'are'} larger than ${formatSize(ATTACHMENT_MAX_BYTES)}, ` +
        `the most one file may be, and ${were(tooLarge)} not attached.`,
    )
  const fitting = files.filter((f) => f.size > 0 && f.size <= ATTACHMENT_MAX_BYTES)
  const room = Math.max(0, ATTACHMENTS_MAX - held)
  const left = fitting.slice(room)
  if (left.length > 0)
    refused.push(
      `An email carries at most ${String(ATTACHMENTS_MAX)} files: ${names(left)} ${were(left)} not attached.`,
    )
  return { accepted: fitting.slice(0, room), refused }
}

/** An uploaded file as an email names it. */
export function attachedFile(uploaded: UploadedAttachment): EmailAttachment {
  return {
    url: uploaded.url,
    filename: uploaded.filename,
    content_type: uploaded.content_type,
    size: uploaded.size,
  }
}

/** An email's files as the composer holds them (a draft carried on with). */
export function composerAttachments(files: readonly EmailAttachment[]): ComposerAttachment[] {
  return files.map((file, i) => ({ key: `saved-${String(i)}`, state: 'attached', file: emailAttachment(file) }))
}

/**
 * The draft's files with a template's added (`Use template`): each one not attached already, after those there, as
 * files of the draft the writer may remove.
 */
export function withTemplateFiles(
  list: readonly ComposerAttachment[],
  files: readonly { url: string; filename: string; content_type: string | null; size: number | null }[],
): ComposerAttachment[] {
  const there = new Set(list.flatMap((item) => (item.state === 'attached' ? [item.file.url] : [])))
  const added = files
    .filter((file) => !there.has(file.url))
    .map((file): ComposerAttachment => ({
      key: `template-${file.url}`,
      state: 'attached',
      // A template's https file may have no size known; it shows as none.
      file: { url: file.url, filename: file.filename, content_type: file.content_type, size: file.size ?? 0 },
    }))
  return [...list, ...added]
}

/** Just the fields an email's POST or PUT takes (an answer's files may carry more, such as `content_id`). */
export function emailAttachment(file: EmailAttachment): EmailAttachment {
  return { url: file.url, filename: file.filename, content_type: file.content_type, size: file.size }
}

/** The files the email's POST or PUT carries: those uploaded, in the order they were chosen. */
export function attachmentsOf(list: readonly ComposerAttachment[]): EmailAttachment[] {
  return list.flatMap((a) => (a.state === 'attached' ? [a.file] : []))
}

/** Whether a file is still on its way up: sending, scheduling and saving wait for it. */
export function isUploading(list: readonly ComposerAttachment[]): boolean {
  return list.some((a) => a.state === 'uploading')
}

/**
 * Where a file on an email may be downloaded from: the API's own path (through this app's proxy) or an https URL
 * elsewhere. Anything else (a `javascript:` URL among them) is not linked.
 */
export function attachmentHref(url: string): string | undefined {
  if (/^\/api\/v1\/email_attachment\/(?!\.\.?\/)[^/?#\\]+\/$/.test(url)) return url
  try {
    return new URL(url).protocol === 'https:' ? url : undefined
  } catch {
    return undefined
  }
}
