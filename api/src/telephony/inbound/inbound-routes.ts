import { Type, type Static, type TSchema } from '@sinclair/typebox'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { timestampSchema } from '@leadline/shared/list'
import type { EventContext } from '../../integrations/events/event-repo.js'
import type { Deps } from '../../crm/deps.js'
import { HttpError } from '../../platform/http/errors.js'
import { countRequest, parseJsonBody } from '../../platform/http/platform.js'
import { requireAdmin } from '../../platform/security/roles.js'
import { formatTimestamp } from '../../platform/data/time.js'
import { storeCall } from './inbound-call.js'
import { inboundAnswer, inboundCallBody, inboundSmsBody, type InboundAnswer } from './inbound-input.js'
import { findInboundSecret, inboundSecret, inboundSecretView, rotateInboundSecret } from './inbound-secret.js'
import { readSignedHeaders, signatureMatches, type SignedRequest } from './inbound-signature.js'
import { storeSms } from './inbound-sms.js'
import type { InboundWrite } from './inbound-store.js'

// The organization's inbound secret (admins) and the endpoint the telephony side signs its reports to (decision 0027).

const tags = ['inbound']

const secretSchema = Type.Object({
  organization_id: Type.String(),
  secret: Type.String({
    description: '`whsec_` and the 32 secret bytes in base64, as Standard Webhooks libraries take it.',
  }),
  date_created: timestampSchema,
})

const SIGNED_DESCRIPTION =
  'Not authenticated with an API key: send `Leadline-Organization: orga_…` and sign the request as Standard Webhooks ' +
  'do (`webhook-id`, `webhook-timestamp` in seconds, `webhook-signature` with `v1,` and the base64 HMAC-SHA256 of ' +
  '`id.timestamp.body`) with the secret `GET /inbound/secret/` shows. A missing, wrong or stale signature is a 401 ' +
  'and stores nothing; a repeated `webhook-id` is answered as the first was and stores nothing.'

const signedHeaders = Type.Object({
  'leadline-organization': Type.Optional(Type.String({ description: 'The organization (`orga_…`).' })),
  'webhook-id': Type.Optional(Type.String({ description: 'Unique per message; a retry repeats it.' })),
  'webhook-timestamp': Type.Optional(Type.String({ description: 'Seconds since 1970, within 5 minutes of now.' })),
  'webhook-signature': Type.Optional(Type.String({ description: 'Space-separated `v1,<base64>` signatures.' })),
})

const BAD_SIGNATURE = 'The request is not signed with the inbound secret of the organization it names.'

/** A signed request as its headers present it, and whether its body proved to be signed with the secret. */
interface Signed {
  request: SignedRequest
  secretHex: string
  verified: boolean | undefined
}

export const inboundRoutes: FastifyPluginAsyncTypebox<Deps> = async (app, deps) => {
  const { db, clock } = deps

  /** An admins' route that answers the organization's inbound secret as `secretOf` reads or makes it. */
  const secretRoute = (method: 'GET' | 'POST', url: string, summary: string, secretOf: typeof inboundSecret) =>
    app.route({
      method,
      url,
      schema: { tags, summary, response: { 200: secretSchema } },
      handler: async (request) => {
        const me = requireAdmin(request)
        return inboundSecretView(
          await secretOf(db, deps.config.secretBox, me.organizationId, formatTimestamp(clock.now())),
        )
      },
    })

  secretRoute(
    'GET',
    '/inbound/secret/',
    'The organization’s inbound secret, made on first use (admins only)',
    inboundSecret,
  )
  secretRoute(
    'POST',
    '/inbound/secret/rotate/',
    'Replace the inbound secret: requests signed with the old one are refused at once (admins only)',
    rotateInboundSecret,
  )

  await app.register(signedRoutes, deps)
}

/** `/inbound/sms/` and `/inbound/call/`: their own parser and hooks, so the rest of the API is untouched by them. */
const signedRoutes: FastifyPluginAsyncTypebox<Deps> = async (app, deps) => {
  const { db, dialect, clock, config, meta } = deps
  const signed = new WeakMap<FastifyRequest, Signed>()

  /** A 401, counted against the caller's address as requests without a valid API key are. */
  const refuse = async (request: FastifyRequest, reply: FastifyReply, message: string): Promise<never> => {
    await countRequest(deps, request, reply, { bucket: `ip:${request.ip}`, type: 'ip' })
    throw new HttpError(401, message, { 'www-authenticate': 'Standard-Webhooks realm="inbound"' })
  }

  // The headers and the organization's secret before the body is read; the body checked as it is parsed, as bytes.
  app.addHook('onRequest', async (request, reply) => {
    const headers = readSignedHeaders(request.headers, clock.now())
    if (typeof headers === 'string') return refuse(request, reply, headers)
    const secret = await findInboundSecret(db, config.secretBox, headers.organizationId)
    if (secret === undefined) return refuse(request, reply, BAD_SIGNATURE)
    signed.set(request, { request: headers, secretHex: secret.secret, verified: undefined })
    return undefined
  })

  app.removeAllContentTypeParsers()
  app.addContentTypeParser(
    'application/json',
    { parseAs: 'buffer' },
    async (request: FastifyRequest, body: Buffer | string) => {
      const state = signed.get(request)
      if (state === undefined) return undefined
      const bytes = typeof body === 'string' ? Buffer.from(body) : body
      state.verified = signatureMatches(state.request, state.secretHex, bytes)
      // An unsigned body is not even parsed: the request is refused before anything looks at it.
      return state.verified ? parseJsonBody(bytes) : undefined
    },
  )

  // Only a signed request is counted against its organization, so nobody else can use up the organization's limit.
  app.addHook('preValidation', async (request, reply) => {
    const state = signed.get(request)
    if (state === undefined) return refuse(request, reply, BAD_SIGNATURE)
    state.verified ??= signatureMatches(state.request, state.secretHex, Buffer.alloc(0))
    if (!state.verified) return refuse(request, reply, BAD_SIGNATURE)
    await countRequest(deps, request, reply, {
      bucket: `organization:${state.request.organizationId}`,
      type: 'organization',
    })
    return undefined
  })

  /** Runs a signed request's write in one transaction, dated when it starts. */
  const write = async <T>(request: FastifyRequest, store: (w: InboundWrite) => Promise<T>): Promise<T> => {
    const state = signed.get(request)
    const organization = state === undefined ? undefined : await meta.get(state.request.organizationId)
    if (state === undefined || organization === undefined) throw new HttpError(401, BAD_SIGNATURE)
    return db.transaction().execute(async (tx) => {
      const now = clock.now()
      const events: EventContext = {
        organizationId: organization.organization.id,
        userId: null,
        requestId: request.id,
        apiKeyId: null,
        now: formatTimestamp(now),
        sink: request.server.eventSink,
      }
      return store({
        tx,
        dialect,
        organization,
        webhookId: state.request.id,
        events,
        now: events.now,
        viewer: { appUrl: config.appUrl, who: { offsetHours: 0, now } },
      })
    })
  }

  /** A report the telephony side signs, whose body `store` writes. */
  const signedRoute = <B extends TSchema>(
    url: string,
    summary: string,
    body: B,
    store: (w: InboundWrite, body: Static<B>) => Promise<InboundAnswer>,
  ) =>
    app.post(
      url,
      {
        config: { public: true, countsOwnRequests: true },
        schema: {
          tags,
          summary,
          description: SIGNED_DESCRIPTION,
          security: [],
          headers: signedHeaders,
          body,
          response: { 200: inboundAnswer },
        },
      },
      (request) => write(request, (w) => store(w, request.body)),
    )

  signedRoute(
    '/inbound/sms/',
    'A text message the organization’s telephony received (signed)',
    inboundSmsBody,
    storeSms,
  )
  signedRoute(
    '/inbound/call/',
    'A call the organization’s telephony took or placed, first reported or changed (signed)',
    inboundCallBody,
    storeCall,
  )
}
