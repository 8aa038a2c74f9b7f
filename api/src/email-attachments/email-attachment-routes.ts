import { Type } from '@sinclair/typebox'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { Deps } from '../platform/deps.js'
import { NotFoundError } from '../platform/errors.js'
import { caller } from '../platform/request-context.js'
import { findEmailAttachment } from './email-attachment-repo.js'

const params = Type.Object({ id: Type.String() })

/** A media type as `type/subtype` with no parameters; anything else is served as bytes. */
const MEDIA_TYPE = /^[a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+$/i

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

export const emailAttachmentRoutes: FastifyPluginAsyncTypebox<Deps> = async (app, { db }) => {
  app.get(
    '/email_attachment/:id/',
    {
      schema: {
        tags: ['activities'],
        summary: 'A file received with an email, as a download',
        description:
          'Always a download (`Content-Disposition: attachment`), never rendered by the browser as a page of the API.',
        params,
      },
    },
    async (request, reply) => {
      const file = await findEmailAttachment(db, caller(request).organizationId, request.params.id)
      if (file === undefined) throw new NotFoundError('Attachment')
      return reply
        .header('content-type', MEDIA_TYPE.test(file.content_type) ? file.content_type : 'application/octet-stream')
        .header('content-disposition', contentDisposition(file.filename))
        .header('x-content-type-options', 'nosniff')
        .header('content-security-policy', "default-src 'none'; sandbox")
        .send(Buffer.from(file.content, 'base64'))
    },
  )
}
