import type { LightMyRequestResponse } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { formatTimestamp } from '../../platform/data/time.js'
import { listenLocally, rawExchange } from '../../tooling/test-support/raw-http.js'
import { basicAuth, call, createTestContext, type TestContext } from '../../tooling/test-support/test-app.js'
import { purgeUnboundUploads, UPLOAD_RETENTION_HOURS } from './email-attachment-repo.js'

// `POST /email_attachment/?filename=`: the body is the file, its Content-Type the file's type, up to the attachment
// limit (set to 2 MiB here, over the 1 MiB every other body is held to).

const LIMIT = 2 * 1024 * 1024

let ctx: TestContext
let origin: string

beforeAll(async () => {
  ctx = await createTestContext({ env: { LEADLINE_EMAIL_ATTACHMENT_MAX_BYTES: String(LIMIT) } })
  origin = `http://127.0.0.1:${String(await listenLocally(ctx.app))}`
})
afterAll(async () => {
  await ctx.close()
})

interface Uploaded {
  id: string
  url: string
  filename: string
  content_type: string
  size: number
  date_created: string
}

function upload(
  body: Buffer | undefined,
  options: { filename?: string; contentType?: string; key?: string } = {},
): Promise<LightMyRequestResponse> {
  const headers: Record<string, string> = { authorization: basicAuth(options.key ?? ctx.org.member.key) }
  if (options.contentType !== undefined) headers['content-type'] = options.contentType
  const query = options.filename === undefined ? '' : `?filename=${encodeURIComponent(options.filename)}`
  return ctx.app.inject({
    method: 'POST',
    url: `/api/v1/email_attachment/${query}`,
    headers,
    ...(body === undefined ? {} : { payload: body }),
  })
}

/** The stored file's bytes, as the download route serves them. */
async function download(id: string, key = ctx.org.member.key) {
  return call(ctx.app, key, 'GET', `/email_attachment/${id}/`)
}

const fieldErrors = (res: LightMyRequestResponse) =>
  res.json<{ 'field-errors': Record<string, string> }>()['field-errors']

describe('uploading a file', () => {
  it('stores the bytes as sent, with the name and type given, in no email yet', async () => {
    const bytes = Buffer.from([0x25, 0x50, 0x44, 0x46, 0x00, 0xff, 0xfe, 0x0a, 0x0d])
    const res = await upload(bytes, { filename: 'Angebot «2026».pdf', contentType: 'application/pdf' })
    expect(res.statusCode, res.body).toBe(200)
    const file = res.json<Uploaded>()
    expect(file).toEqual({
      id: expect.stringMatching(/^attach_[0-9A-Za-z]{43}$/),
      url: `/api/v1/email_attachment/${file.id}/`,
      filename: 'Angebot «2026».pdf',
      content_type: 'application/pdf',
      size: bytes.length,
      date_created: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}\+00:00$/),
    })
    const served = await download(file.id)
    expect(served.statusCode).toBe(200)
    expect(served.rawPayload.equals(bytes)).toBe(true)
    expect(served.headers['content-type']).toBe('application/pdf')
    const row = await ctx.database.db
      .selectFrom('email_attachment')
      .select(['activity_id', 'organization_id'])
      .where('id', '=', file.id)
      .executeTakeFirstOrThrow()
    expect(row).toEqual({ activity_id: null, organization_id: ctx.org.id })
  })

  it('takes a body of any type as bytes, JSON and form bodies included, and types one without a type as bytes', async () => {
    const json = Buffer.from('{"not": "parsed"')
    const asJson = await upload(json, { filename: 'broken.json', contentType: 'application/json' })
    expect(asJson.statusCode, asJson.body).toBe(200)
    expect(asJson.json<Uploaded>().content_type).toBe('application/json')
    expect((await download(asJson.json<Uploaded>().id)).rawPayload.equals(json)).toBe(true)

    const text = await upload(Buffer.from('a=1&b=2'), {
      filename: 'notes.txt',
      contentType: 'text/plain; charset=utf-8',
    })
    expect(text.json<Uploaded>().content_type).toBe('text/plain; charset=utf-8')
    expect((await download(text.json<Uploaded>().id)).headers['content-type']).toBe('text/plain; charset=utf-8')

    const untyped = await upload(Buffer.from([1, 2, 3]), { filename: 'blob' })
    expect(untyped.statusCode, untyped.body).toBe(200)
    expect(untyped.json<Uploaded>().content_type).toBe('application/octet-stream')
  })

  it('takes a file over the 1 MiB of other bodies, up to the attachment limit exactly', async () => {
    const bytes = Buffer.alloc(LIMIT, 0x5a)
    bytes[0] = 1
    bytes[LIMIT - 1] = 2
    const res = await upload(bytes, { filename: 'big.bin', contentType: 'application/octet-stream' })
    expect(res.statusCode, res.body).toBe(200)
    expect(res.json<Uploaded>().size).toBe(LIMIT)
    expect((await download(res.json<Uploaded>().id)).rawPayload.equals(bytes)).toBe(true)
  })

  it('answers 413 over the limit, as the platform answers any body over its limit, and stores nothing', async () => {
    const before = await ctx.database.db.selectFrom('email_attachment').select('id').execute()
    const res = await upload(Buffer.alloc(LIMIT + 1), { filename: 'huge.bin', contentType: 'video/mp4' })
    expect(res.statusCode).toBe(413)
    expect(res.json()).toEqual({ error: 'Request body is larger than 2 MiB.' })
    // Every other route keeps its 1 MiB.
    const note = await call(ctx.app, ctx.org.member.key, 'POST', '/lead/', { body: { name: 'y'.repeat(1024 * 1024) } })
    expect(note.statusCode).toBe(413)
    expect(note.json()).toEqual({ error: 'Request body is larger than 1 MiB.' })
    expect(await ctx.database.db.selectFrom('email_attachment').select('id').execute()).toEqual(before)
  })

  it('answers 413 over real HTTP to a body sent in chunks with no length given', async () => {
    const port = new URL(origin).port
    const head =
      `POST /api/v1/email_attachment/?filename=stream.bin HTTP/1.1\r\nhost: 127.0.0.1\r\n` +
      `authorization: ${basicAuth(ctx.org.member.key)}\r\ncontent-type: application/octet-stream\r\n` +
      `transfer-encoding: chunked\r\nconnection: close\r\n\r\n`
    const chunk = Buffer.alloc(512 * 1024, 1)
    const framed = Buffer.concat([Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from('\r\n')])
    const exchange = await rawExchange(Number(port), [head, framed, framed, framed, framed, framed, '0\r\n\r\n'], 5000)
    expect(exchange.received).toMatch(/^HTTP\/1\.1 413 /)
    expect(exchange.received).toContain('{"error":"Request body is larger than 2 MiB."}')
  })

  it('uploads over real HTTP, as the web app does', async () => {
    const bytes = Buffer.from('Hello, file\n')
    const res = await fetch(`${origin}/api/v1/email_attachment/?filename=${encodeURIComponent('hello world.txt')}`, {
      method: 'POST',
      headers: { authorization: basicAuth(ctx.org.member.key), 'content-type': 'text/plain' },
      body: bytes,
    })
    expect(res.status).toBe(200)
    const file = (await res.json()) as Uploaded
    expect(file).toMatchObject({ filename: 'hello world.txt', content_type: 'text/plain', size: bytes.length })
  })

  it.each([
    ['no filename', undefined, 'filename'],
    ['an empty filename', '', 'filename'],
    ['a filename of spaces', '   ', 'filename'],
    ['a filename over 255 characters', 'a'.repeat(256), 'filename'],
    ['a filename with a line break', 'a\r\nb.txt', 'filename'],
  ])('answers a field error for %s', async (_, filename, field) => {
    const res = await upload(Buffer.from('x'), {
      ...(filename === undefined ? {} : { filename }),
      contentType: 'text/plain',
    })
    expect(res.statusCode, res.body).toBe(400)
    expect(res.json()).toEqual({ errors: [], 'field-errors': { [field]: expect.any(String) } })
  })

  it('answers a field error on file for an empty body, with or without a type', async () => {
    for (const contentType of ['text/plain', undefined]) {
      const res = await upload(Buffer.alloc(0), {
        filename: 'empty.txt',
        ...(contentType === undefined ? {} : { contentType }),
      })
      expect(res.statusCode, res.body).toBe(400)
      expect(fieldErrors(res)).toEqual({ file: 'The file is empty: send its bytes as the request body.' })
    }
    const none = await upload(undefined, { filename: 'none.txt' })
    expect(fieldErrors(none)).toEqual({ file: 'The file is empty: send its bytes as the request body.' })
    const both = await upload(Buffer.alloc(0), { filename: '' })
    expect(Object.keys(fieldErrors(both)).sort()).toEqual(['file', 'filename'])
  })

  it('needs a key; any member may upload, and the file is their organization’s only', async () => {
    const anonymous = await ctx.app.inject({
      method: 'POST',
      url: '/api/v1/email_attachment/?filename=a.txt',
      headers: { 'content-type': 'text/plain' },
      payload: 'a',
    })
    expect(anonymous.statusCode).toBe(401)
    const byAdmin = await upload(Buffer.from('a'), { filename: 'a.txt', key: ctx.org.admin.key })
    expect(byAdmin.statusCode).toBe(200)
    const file = byAdmin.json<Uploaded>()
    expect((await download(file.id, ctx.org.member.key)).statusCode).toBe(200)
    expect((await download(file.id, ctx.other.admin.key)).statusCode).toBe(404)
  })

  it('is in the OpenAPI document, its body the file', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: '/api/v1/openapi.json' })
    const document = res.json<{ paths: Record<string, Record<string, Record<string, unknown>>> }>()
    const operation = document.paths['/api/v1/email_attachment/']?.post
    expect(operation).toMatchObject({
      summary: 'Upload a file to attach to an email',
      requestBody: { content: { '*/*': { schema: { type: 'string', format: 'binary' } } } },
      parameters: [expect.objectContaining({ name: 'filename', in: 'query', required: true })],
    })
    expect(JSON.stringify(operation?.responses)).toContain('date_created')
  })
})

describe('uploads no email took', () => {
  it(`are deleted after ${String(UPLOAD_RETENTION_HOURS)} hours; files in an email, and newer uploads, stay`, async () => {
    const db = ctx.database.db
    const old = (await upload(Buffer.from('old'), { filename: 'old.txt' })).json<Uploaded>()
    ctx.clock.advance(2 * 3_600_000)
    const newer = (await upload(Buffer.from('newer'), { filename: 'newer.txt' })).json<Uploaded>()
    // One bound to an email since (as if an email had taken it), as old as the first.
    const lead = await call(ctx.app, ctx.org.member.key, 'POST', '/lead/', { body: { name: 'Keeps Files' } })
    const email = await call(ctx.app, ctx.org.member.key, 'POST', '/activity/email/', {
      body: { lead_id: lead.json<{ id: string }>().id, status: 'draft', subject: 'Kept' },
    })
    const taken = (await upload(Buffer.from('taken'), { filename: 'taken.txt' })).json<Uploaded>()
    await db
      .updateTable('email_attachment')
      .set({ activity_id: email.json<{ id: string }>().id, date_created: old.date_created })
      .where('id', '=', taken.id)
      .execute()

    ctx.clock.advance((UPLOAD_RETENTION_HOURS - 2) * 3_600_000 - 60_000)
    expect(await purgeUnboundUploads(db, ctx.clock)).toBe(0)
    ctx.clock.advance(120_000)
    expect(formatTimestamp(ctx.clock.now()) > old.date_created).toBe(true)
    expect(await purgeUnboundUploads(db, ctx.clock)).toBeGreaterThanOrEqual(1)
    const left = await db
      .selectFrom('email_attachment')
      .select('id')
      .where('id', 'in', [old.id, newer.id, taken.id])
      .execute()
    expect(left.map((r) => r.id).sort()).toEqual([newer.id, taken.id].sort())
  })
})
