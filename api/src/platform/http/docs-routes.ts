import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { SwaggerTransformObject } from '@fastify/swagger'
import { renderReferencePage } from './reference-page.js'

/** The OpenAPI 3.1 document (generated from the route schemas) and a readable reference page built from it. */
export const docsRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get('/openapi.json', { config: { public: true }, schema: { hide: true } }, () => app.swagger())
  app.get('/docs/', { config: { public: true }, schema: { hide: true } }, async (_request, reply) => {
    return reply
      .type('text/html; charset=utf-8')
      .header('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'")
      .send(renderReferencePage(app.swagger()))
  })
}

function dropClosedObjects(node: unknown): void {
  if (typeof node !== 'object' || node === null) return
  if ('additionalProperties' in node && node.additionalProperties === false) {
    Reflect.deleteProperty(node, 'additionalProperties')
  }
  for (const child of Object.values(node)) dropClosedObjects(child)
}

/**
 * A body schema says `additionalProperties: false` so the validator drops the fields it does not list (Close
 * clients send read-only and unknown fields, and expect them ignored); to the document's readers that would read
 * as "refused", so the document leaves it out. Works on a copy: the route schemas stay as the validator has them.
 */
export const openBodySchemas: SwaggerTransformObject = (document) => {
  const copy =
    'openapiObject' in document ? structuredClone(document.openapiObject) : structuredClone(document.swaggerObject)
  dropClosedObjects(copy)
  return copy
}
