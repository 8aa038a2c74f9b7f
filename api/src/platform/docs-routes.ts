import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
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
