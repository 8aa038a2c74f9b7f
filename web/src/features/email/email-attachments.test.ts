import { describe, expect, it } from 'vitest'
import {
  ATTACHMENT_MAX_BYTES,
  ATTACHMENTS_MAX,
  attachedFile,
  attachmentHref,
  attachmentsOf,
  fileLabel,
  formatSize,
  isUploading,
  screenFiles,
  withTemplateFiles,
  type ComposerAttachment,
} from './email-attachments'

describe('formatSize', () => {
  it('counts bytes, then KB, MB and GB of 1,024, with one decimal below ten', () => {
    expect(formatSize(0)).toBe('0 bytes')
    expect(formatSize(1)).toBe('1 byte')
    expect(formatSize(1023)).toBe('1023 bytes')
    expect(formatSize(1024)).toBe('1 KB')
    expect(formatSize(1536)).toBe('1.5 KB')
    expect(formatSize(10_240)).toBe('10 KB')
    expect(formatSize(10_700)).toBe('10 KB')
    expect(formatSize(1024 * 1024 - 1)).toBe('1 MB')
    expect(formatSize(ATTACHMENT_MAX_BYTES)).toBe('10 MB')
    expect(formatSize(2.25 * 1024 * 1024)).toBe('2.3 MB')
    expect(formatSize(5 * 1024 ** 3)).toBe('5 GB')
    expect(formatSize(3000 * 1024 ** 3)).toBe('3000 GB')
  })
})

describe('screenFiles', () => {
  const file = (name: string, size: number) => ({ name, size })

  it('lets files up to the limit through and refuses larger ones before they are sent', () => {
    const small = file('notes.txt', 12)
    const edge = file('edge.bin', ATTACHMENT_MAX_BYTES)
    expect(screenFiles([small, edge], 0)).toEqual({ accepted: [small, edge], refused: [] })
    expect(screenFiles([small, file('video.mp4', ATTACHMENT_MAX_BYTES + 1)], 0)).toEqual({
      accepted: [small],
      refused: ['video.mp4 is larger than 10 MB, the most one file may be, and was not attached.'],
    })
    expect(screenFiles([file('a.iso', 11e6), file('b.iso', 12e6)], 0).refused).toEqual([
      'a.iso, b.iso are larger than 10 MB, the most one file may be, and were not attached.',
    ])
  })

  it('refuses an empty file, which would send nothing', () => {
    expect(screenFiles([file('empty.txt', 0), file('notes.txt', 3)], 0)).toEqual({
      accepted: [file('notes.txt', 3)],
      refused: ['empty.txt is empty and was not attached.'],
    })
  })

  it('keeps an email within the files it may carry', () => {
    const three = [file('1.txt', 1), file('2.txt', 1), file('3.txt', 1)]
    expect(screenFiles(three, ATTACHMENTS_MAX - 2)).toEqual({
      accepted: three.slice(0, 2),
      refused: [`An email carries at most ${String(ATTACHMENTS_MAX)} files: 3.txt was not attached.`],
    })
    expect(screenFiles(three, ATTACHMENTS_MAX).accepted).toEqual([])
  })
})

describe('the files an email carries', () => {
  const uploaded = {
    id: 'emlatt_1',
    url: '/api/v1/email_attachment/emlatt_1/',
    filename: 'Q3 plan.pdf',
    content_type: 'application/pdf',
    size: 2048,
    date_created: '2026-03-02T10:00:00.000000+00:00',
  }

  it('adds a template’s files to the draft’s (Use template), each once, as files the writer may remove', () => {
    const plan = attachedFile(uploaded)
    const terms = {
      url: '/api/v1/email_attachment/emlatt_2/',
      filename: 'Terms.pdf',
      content_type: 'application/pdf',
      size: 10,
    }
    const draft: ComposerAttachment[] = [{ key: 'new-1', state: 'attached', file: plan }]
    const after = withTemplateFiles(draft, [plan, terms])
    expect(after).toEqual([
      { key: 'new-1', state: 'attached', file: plan },
      { key: `template-${terms.url}`, state: 'attached', file: terms },
    ])
    expect(attachmentsOf(after)).toEqual([plan, terms])
    expect(withTemplateFiles([], [])).toEqual([])
  })

  it('names an uploaded file by its URL, without the upload’s own fields', () => {
    expect(attachedFile(uploaded)).toEqual({
      url: '/api/v1/email_attachment/emlatt_1/',
      filename: 'Q3 plan.pdf',
      content_type: 'application/pdf',
      size: 2048,
    })
  })

  it('sends what is uploaded, and knows when something still is', () => {
    const list: ComposerAttachment[] = [
      { key: 'new-1', state: 'attached', file: attachedFile(uploaded) },
      { key: 'new-2', state: 'uploading', filename: 'big.zip', size: 5_000_000 },
    ]
    expect(attachmentsOf(list)).toEqual([attachedFile(uploaded)])
    expect(isUploading(list)).toBe(true)
    expect(isUploading(list.slice(0, 1))).toBe(false)
  })

  it('calls a file without a name an attachment', () => {
    expect(fileLabel({ filename: 'notes.txt' })).toBe('notes.txt')
    expect(fileLabel({ filename: '' })).toBe('Attachment')
  })

  it('links the API’s own files and https ones, nothing else', () => {
    expect(attachmentHref('/api/v1/email_attachment/emlatt_1/')).toBe('/api/v1/email_attachment/emlatt_1/')
    expect(attachmentHref('https://files.example.com/a.pdf')).toBe('https://files.example.com/a.pdf')
    expect(attachmentHref('http://files.example.com/a.pdf')).toBeUndefined()
    expect(attachmentHref('javascript:alert(1)')).toBeUndefined()
    expect(attachmentHref('/api/v1/lead/lead_1/')).toBeUndefined()
    expect(attachmentHref('/api/v1/email_attachment/../lead/')).toBeUndefined()
    expect(attachmentHref('/api/v1/email_attachment/../')).toBeUndefined()
    expect(attachmentHref('//evil.example/x')).toBeUndefined()
  })
})
