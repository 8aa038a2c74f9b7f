import { Type } from '@sinclair/typebox'
import type { FastifyPluginAsyncTypebox, TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { Deps } from '../../crm/deps.js'
import { ValidationError } from '../../platform/http/errors.js'
import { caller } from '../../platform/http/request-context.js'
import { formatTimestamp } from '../../platform/data/time.js'
import { bytesText, hasControlCharacter, NO_CONTROL_CHARACTERS } from '../../platform/text/text.js'
import { rawBodySchema } from '../../platform/http/validator.js'
import { findEmailAttachment, insertUpload } from './email-attachment-repo.js'
import { found } from '../../platform/data/find-or-404.js'

const tags = ['activities']
const params = Type.Object({ id: Type.String() })

/** A media type, `type/subtype` with parameters or none; anything else is stored and served as bytes. */
const MEDIA_TYPE =
  /^[a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+(\s*;\s*[a-z0-9!#$&^_.+-]+=([a-z0-9!#$&^_.+-]+|"[^"\\\r\n]*"))*$/i
const MEDIA_TYPE_MAX = 255
const BYTES = 'application/octet-stream'
const FILENAME_MAX = 255
/** The type an uploaded file is stored with: its request's media type, or bytes when it has none (or no valid one). */
export function uploadedMediaType(header: string | undefined): string {
  const given = (header ?? '').trim()
  return given.length <= MEDIA_TYPE_MAX && MEDIA_TYPE.test(given) ? given : BYTES
}

const uploadQuery = Type.Object({
  filename: Type.String({ maxLength: FILENAME_MAX, description: 'The file’s name, URL-encoded.' }),
})

const uploadedFileSchema = Type.Object({
  id: Type.String({ description: '`attach_…`' }),
  url: Type.String({
    description: 'Where it is served, below the API’s origin: give it as an email attachment’s `url`.',
  }),
  filename: Type.String(),
  content_type: Type.String(),
  size: Type.Integer({ description: 'Bytes.' }),
  date_created: Type.String(),
})

/**
 * `Content-Disposition: attachment` with the file's name: an ASCII fallback for old clients, and the name itself
 * percent-encoded as UTF-8 (RFC 6266).
 */
export function contentDisposition(filename: string): string {
  const fallback = filename.replace(/[^\x20-\x7e]|["\\]/g, '_')
  const encoded = encodeURIComponent(filename).replace(
    /['()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  )
  return `attachment; filename="${fallback}"; filename*=UTF-8''${encoded}`
}

export const emailAttachmentRoutes: FastifyPluginAsyncTypebox<Deps> = async (app, { db, clock, config }) => {
  const maxBytes = config.emailReceive.maxAttachmentBytes
  // The upload's body is the file itself, of any type: in a context of its own, every type is read as bytes, up to the
  // attachment limit rather than the 1 MiB of JSON bodies.
  await app.register(async (context) => {
    const upload = context.withTypeProvider<TypeBoxTypeProvider>()
    upload.removeAllContentTypeParsers()
    upload.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => {
      done(null, body)
    })
    upload.post(
      '/email_attachment/',
      {
        bodyLimit: maxBytes,
        schema: {
          tags,
          summary: 'Upload a file to attach to an email',
          description: `The request body is the file's bytes, its \`Content-Type\` the file's type (\`application/octet-stream\` without one); \`filename\` in the query string. Up to ${bytesText(maxBytes)} (\`LEADLINE_EMAIL_ATTACHMENT_MAX_BYTES\`; a 413 over it). Any member may upload. Give the answer's \`url\` as an attachment's \`url\` in \`POST\`/\`PUT /activity/email/\`: the file is then that email's, and is sent with it. A file no email takes within a day is deleted.`,
          consumes: ['*/*'],
          querystring: uploadQuery,
          body: rawBodySchema('The file’s bytes.'),
          response: { 200: uploadedFileSchema },
        },
      },
      async (request) => {
        const filename = request.query.filename.trim()
        const errors: Record<string, string> = {}
        if (filename === '') errors.filename = 'This field is required.'
        else if (hasControlCharacter(request.query.filename)) errors.filename = NO_CONTROL_CHARACTERS
        const content = request.body
        if (content === undefined || content.length === 0)
          errors.file = 'The file is empty: send its bytes as the request body.'
        if (Object.keys(errors).length > 0 || content === undefined) throw new ValidationError(errors)
        return insertUpload(db, {
          organizationId: caller(request).organizationId,
          filename,
          contentType: uploadedMediaType(request.headers['content-type']),
          content,
          now: formatTimestamp(clock.now()),
        })
      },
    )
  })

  app.get(
    '/email_attachment/:id/',
    {
      schema: {
        tags: ['activities'],
        summary: 'A file of an email (received, or uploaded), as a download',
        description:
          'Always a download (`Content-Disposition: attachment`), never rendered by the browser as a page of the API.',
        params,
      },
    },
    async (request, reply) => {
      const file = found(await findEmailAttachment(db, caller(request).organizationId, request.params.id), 'Attachment')
      return reply
        .header('content-type', MEDIA_TYPE.test(file.content_type) ? file.content_type : 'application/octet-stream')
        .header('content-disposition', contentDisposition(file.filename))
        .header('x-content-type-options', 'nosniff')
        .header('content-security-policy', "default-src 'none'; sandbox")
        .send(Buffer.from(file.content, 'base64'))
    },
  )
}
