import { Type } from '@sinclair/typebox'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyBaseLogger } from 'fastify'
import type * as Oidc from 'openid-client'
import type { Deps } from '../crm/deps.js'
import { auditContext, recordAudit } from '../integrations/events/audit-repo.js'
import { formatTimestamp } from '../platform/data/time.js'
import { isUniqueViolation } from '../platform/data/db-errors.js'
import { HttpError, NotFoundError, ValidationError } from '../platform/http/errors.js'
import { outboundPrivateAllowed } from '../platform/config.js'
import { privateAddressOf, type Resolver } from '../platform/security/host-check.js'
import { requireAdmin } from '../platform/security/roles.js'
import { linkTokenHash } from '../platform/security/single-use-link.js'
import { StoredSecretError } from '../platform/security/stored-secrets.js'
import { findUserByEmail } from '../crm/users/user-repo.js'
import {
  clientSecretOf,
  domainsTakenElsewhere,
  findSingleSignOn,
  organizationForDomain,
  recordLogin,
  saveSingleSignOn,
  sealClientSecret,
  takeLogin,
  type SingleSignOnConfig,
} from './single-sign-on-repo.js'
import {
  INVITATION_INVALID,
  joinByInvitation,
  memberOf,
  pendingInvitationByHash,
  pendingInvitationByToken,
} from './invitation-repo.js'
import { NAME_MAX } from './profile-routes.js'
import { mintSessionKey, refuseWhenThrottled, signInAnswerSchema, sessionTerms } from './session-routes.js'
import { clearAccountFailures, recordFailure, SIGN_IN_LIMITS, throttleKeys } from './sign-in-throttle.js'

// Single sign-on by OpenID Connect (decision 0045): the api is the client and holds the secret; the BFF only
// sends the browser to the provider and hands back the URL it returned to.

const tags = ['sign-in']

const MAX_DOMAINS = 20
const DISCOVERY_TIMEOUT_SECONDS = 10
export const NO_MEMBER = 'No member of this organization uses that address; ask an admin for an invitation.'
const LOGIN_GONE = 'This single sign-on has expired or was already used; start again.'

const configSchema = Type.Object({
  enabled: Type.Boolean(),
  required: Type.Boolean({ description: 'Password sign-in is refused to every member but admins.' }),
  issuer: Type.String(),
  client_id: Type.String(),
  has_client_secret: Type.Boolean(),
  domains: Type.Array(Type.String()),
  redirect_uri: Type.String({ description: 'Register this at the provider as the client’s redirect URI.' }),
})

const configBody = Type.Object(
  {
    enabled: Type.Boolean(),
    required: Type.Boolean(),
    issuer: Type.String({ maxLength: 500, description: 'https (http only on a loopback address).' }),
    client_id: Type.String({ maxLength: 500 }),
    client_secret: Type.Optional(
      Type.String({ maxLength: 2000, description: 'Omitted or empty: the stored secret is kept.' }),
    ),
    domains: Type.Array(Type.String({ maxLength: 300 }), { maxItems: 100 }),
  },
  { additionalProperties: false },
)

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]'])
// One label of a host name: no backtracking (fixed repetition bounds, nothing nested).
const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/

export function isDomain(value: string): boolean {
  if (value.length > 253) return false
  const labels = value.split('.')
  return labels.length >= 2 && labels.every((label) => LABEL.test(label)) && !/^\d+$/.test(labels.at(-1) ?? '')
}

function domainOf(email: string): string | undefined {
  const at = email.lastIndexOf('@')
  if (at < 1) return undefined
  const domain = email
    .slice(at + 1)
    .trim()
    .toLowerCase()
  return isDomain(domain) ? domain : undefined
}

/** The issuer as a URL: https, or http on this machine where the api may reach private addresses; else why not. */
function checkedIssuer(value: string, allowPrivate: boolean): URL | string {
  let url: URL
  try {
    url = new URL(value.trim())
  } catch {
    return 'Enter the issuer’s URL, e.g. https://accounts.example.com.'
  }
  if (url.protocol === 'https:') return url
  if (url.protocol === 'http:' && LOOPBACK.has(url.hostname) && allowPrivate) return url
  return 'The issuer’s URL must start with https://.'
}

function isLoopbackHttp(url: URL): boolean {
  return url.protocol === 'http:' && LOOPBACK.has(url.hostname)
}

let loadedOidc: typeof Oidc | undefined

/** openid-client, loaded when single sign-on is first used: an organization without it never holds the module. */
async function openidClient(): Promise<typeof Oidc> {
  loadedOidc ??= await import('openid-client')
  return loadedOidc
}

/**
 * fetch for the provider's endpoints (discovery, token, userinfo, keys), which an admin's configuration names:
 * a host that resolves to a private address (loopback, private ranges, link-local, cloud metadata) is refused, as
 * webhooks are, unless LEADLINE_OUTBOUND_ALLOW_PRIVATE lets the api reach them. Redirects are not followed.
 */
function guardedFetch(allowPrivate: boolean, resolve: Resolver): Oidc.CustomFetch {
  return async (url, options) => {
    const host = new URL(url).hostname.replace(/^\[(.*)\]$/, '$1')
    const inside = allowPrivate ? undefined : await privateAddressOf(host, resolve)
    if (inside !== undefined) throw new Error(`${host} is a private address (${inside}), which the api does not reach`)
    return fetch(url, { ...options, redirect: 'manual' })
  }
}

/** The provider's metadata, fetched from its discovery document; openid-client checks that it names the issuer. */
async function discover(
  issuer: string,
  clientId: string,
  secret: string | undefined,
  guard: { allowPrivate: boolean; resolve: Resolver },
): Promise<Oidc.Configuration> {
  const oidc = await openidClient()
  const url = new URL(issuer)
  const auth = secret === undefined ? oidc.None() : oidc.ClientSecretBasic(secret)
  const config = await oidc.discovery(url, clientId, undefined, auth, {
    timeout: DISCOVERY_TIMEOUT_SECONDS,
    [oidc.customFetch]: guardedFetch(guard.allowPrivate, guard.resolve),
    // Plain http reaches a provider on this machine only (checkedIssuer): local development and the tests.
    // eslint-disable-next-line @typescript-eslint/no-deprecated -- deprecated only to stand out; loopback needs it
    ...(isLoopbackHttp(url) ? { execute: [oidc.allowInsecureRequests] } : {}),
  })
  // Discovery sets it for its own request only: the token, userinfo and key requests are guarded too.
  config[oidc.customFetch] = guardedFetch(guard.allowPrivate, guard.resolve)
  return config
}

function describe(error: unknown): string {
  // openid-client's own errors exist only once it is loaded.
  const oidc = loadedOidc
  if (oidc !== undefined && error instanceof oidc.AuthorizationResponseError)
    return error.error_description ?? error.error
  if (oidc !== undefined && error instanceof oidc.ResponseBodyError) return error.error_description ?? error.error
  if (!(error instanceof Error)) return String(error)
  // openid-client wraps what failed underneath ("something went wrong"): the cause says what.
  return error.cause instanceof Error ? error.cause.message : error.message
}

export const singleSignOnRoutes: FastifyPluginAsyncTypebox<Deps> = async (
  app,
  { db, clock, config, resolve, dialect },
) => {
  const redirectUri = `${config.appUrl}/auth/sso/callback`
  const allowPrivate = outboundPrivateAllowed(config)
  const guard = { allowPrivate, resolve }

  /** The provider of a turned-on configuration, with its secret opened. */
  const providerOf = async (sso: SingleSignOnConfig, log: FastifyBaseLogger) => {
    let secret: string | undefined
    try {
      secret = clientSecretOf(config.secretBox, sso)
    } catch (error) {
      if (!(error instanceof StoredSecretError)) throw error
      log.error({ err: error }, 'single sign-on secret does not open')
      throw new HttpError(503, 'Single sign-on is not available: the server cannot open its client secret.')
    }
    try {
      return await discover(sso.issuer, sso.clientId, secret, guard)
    } catch (error) {
      log.warn({ err: error }, 'single sign-on discovery failed')
      throw new HttpError(502, 'The identity provider could not be reached; try again later.')
    }
  }

  const view = (sso: SingleSignOnConfig | undefined) => ({
    enabled: sso?.enabled ?? false,
    required: sso?.required ?? false,
    issuer: sso?.issuer ?? '',
    client_id: sso?.clientId ?? '',
    has_client_secret: sso?.sealedSecret != null,
    domains: sso?.domains ?? [],
    redirect_uri: redirectUri,
  })

  app.get(
    '/auth/sso/',
    {
      schema: {
        tags,
        summary: 'The organization’s single sign-on provider (admin); never its client secret',
        response: { 200: configSchema },
      },
    },
    async (request) => {
      const me = requireAdmin(request)
      const sso = await findSingleSignOn(db, me.organizationId)
      return view(sso)
    },
  )

  app.put(
    '/auth/sso/',
    {
      schema: {
        tags,
        summary: 'Set the organization’s single sign-on provider (admin)',
        description:
          'The issuer’s discovery document is fetched, and a failure is an error on `issuer`. A domain belongs to one ' +
          'organization at most. The client secret is stored sealed under LEADLINE_SECRET_KEY: without one it cannot ' +
          'be stored.',
        body: configBody,
        response: { 200: configSchema },
      },
    },
    async (request) => {
      const me = requireAdmin(request)
      const body = request.body
      const errors: Record<string, string> = {}
      const issuer = checkedIssuer(body.issuer, allowPrivate)
      if (typeof issuer === 'string') errors.issuer = issuer
      const clientId = body.client_id.trim()
      if (clientId === '') errors.client_id = 'Enter the client ID the provider gave you.'
      const domains = [...new Set(body.domains.map((d) => d.trim().toLowerCase()).filter((d) => d !== ''))]
      const bad = domains.find((d) => !isDomain(d))
      if (bad !== undefined) errors.domains = `“${bad.slice(0, 100)}” is not a domain name, e.g. example.com.`
      else if (domains.length > MAX_DOMAINS) errors.domains = `At most ${String(MAX_DOMAINS)} domains.`
      else if (body.enabled && domains.length === 0) errors.domains = 'Enter the email domains the provider signs in.'
      const newSecret = body.client_secret?.trim() ?? ''
      if (newSecret !== '' && config.secretBox === null) {
        errors.client_secret =
          'This server has no LEADLINE_SECRET_KEY, so it cannot store a client secret; set one and restart it.'
      }
      const stored = await findSingleSignOn(db, me.organizationId)
      if (body.enabled && newSecret === '' && stored?.sealedSecret == null && errors.client_secret === undefined) {
        errors.client_secret = 'Enter the client secret the provider gave you.'
      }
      if (errors.domains === undefined) {
        const taken = await domainsTakenElsewhere(db, me.organizationId, domains)
        if (taken.length > 0) errors.domains = `Another organization’s single sign-on covers ${taken.join(', ')}.`
      }
      if (typeof issuer !== 'string' && errors.client_id === undefined) {
        try {
          await discover(issuer.href, clientId, undefined, guard)
        } catch (error) {
          errors.issuer = `No OpenID Connect provider answers there (${describe(error).slice(0, 200)}).`
        }
      }
      if (Object.keys(errors).length > 0 || typeof issuer === 'string') throw new ValidationError(errors)
      const box = config.secretBox
      const write = {
        issuer: issuer.href.replace(/\/$/, ''),
        clientId,
        sealedSecret:
          newSecret === '' || box === null ? undefined : sealClientSecret(box, me.organizationId, newSecret),
        enabled: body.enabled,
        required: body.required,
        domains,
      }
      try {
        await db.transaction().execute(async (tx) => {
          const now = clock.now()
          await saveSingleSignOn(tx, me.organizationId, write, now)
          // What was set, never the client secret: only whether a new one was given.
          await recordAudit(tx, auditContext(request, formatTimestamp(now)), [
            {
              action: 'single_sign_on_changed',
              objectType: 'single_sign_on',
              objectId: me.organizationId,
              details: {
                issuer: write.issuer,
                client_id: write.clientId,
                enabled: write.enabled,
                required: write.required,
                domains: write.domains,
                new_client_secret: write.sealedSecret !== undefined,
              },
            },
          ])
        })
      } catch (error) {
        if (isUniqueViolation(error))
          throw ValidationError.field('domains', 'Another organization’s single sign-on covers one of these domains.')
        throw error
      }
      return view(await findSingleSignOn(db, me.organizationId))
    },
  )

  app.get(
    '/auth/sso/available/',
    {
      config: { public: true },
      schema: {
        tags,
        security: [],
        summary: 'Whether single sign-on is offered for an email’s domain (says nothing about accounts)',
        querystring: Type.Object({ email: Type.String({ maxLength: 320 }) }),
        response: { 200: Type.Object({ available: Type.Boolean() }) },
      },
    },
    async (request) => {
      const domain = domainOf(request.query.email)
      return { available: domain !== undefined && (await organizationForDomain(db, domain)) !== undefined }
    },
  )

  app.post(
    '/auth/sso/start/',
    {
      config: { public: true },
      schema: {
        tags,
        security: [],
        summary: 'Begin a single sign-on: the provider’s URL to send the browser to',
        description:
          'By the email’s domain, by organization, or by an invitation’s link (whose organization it is; finishing ' +
          'accepts the invitation). The URL carries a state, a nonce and a PKCE challenge; the sign-in must be ' +
          'finished within 10 minutes.',
        body: Type.Object(
          {
            email: Type.Optional(Type.String({ maxLength: 320 })),
            organization_id: Type.Optional(Type.String({ maxLength: 100 })),
            invitation: Type.Optional(Type.String({ maxLength: 100, description: 'The token of an invitation link.' })),
          },
          { additionalProperties: false },
        ),
        response: { 200: Type.Object({ authorization_url: Type.String() }) },
      },
    },
    async (request) => {
      const { email, organization_id: organizationId, invitation: token } = request.body
      // An address refused too often at `finish` begins no more sign-ins until its window ends.
      await refuseWhenThrottled(db, addressKeysOf(request.ip), clock.now())
      let orgId: string | undefined
      let invitationTokenHash: string | undefined
      if (token !== undefined) {
        const invitation = await pendingInvitationByToken(db, token, clock.now())
        if (invitation === undefined) throw new HttpError(400, INVITATION_INVALID)
        orgId = invitation.organization_id
        invitationTokenHash = linkTokenHash(token)
      } else if (email !== undefined) {
        const domain = domainOf(email)
        if (domain === undefined) throw ValidationError.field('email', 'Enter your work email.')
        orgId = await organizationForDomain(db, domain)
        if (orgId === undefined) throw ValidationError.field('email', `Single sign-on is not set up for ${domain}.`)
      } else if (organizationId !== undefined) {
        orgId = organizationId
      } else {
        throw ValidationError.field('email', 'Enter your work email.')
      }
      const sso = await findSingleSignOn(db, orgId)
      if (sso?.enabled !== true) throw new NotFoundError('Single sign-on')
      const provider = await providerOf(sso, request.log)
      const oidc = await openidClient()
      const state = oidc.randomState()
      const nonce = oidc.randomNonce()
      const codeVerifier = oidc.randomPKCECodeVerifier()
      await recordLogin(db, { state, organizationId: orgId, nonce, codeVerifier, invitationTokenHash }, clock.now())
      const url = oidc.buildAuthorizationUrl(provider, {
        redirect_uri: redirectUri,
        scope: 'openid email profile',
        state,
        nonce,
        code_challenge: await oidc.calculatePKCECodeChallenge(codeVerifier),
        code_challenge_method: 'S256',
      })
      return { authorization_url: url.href }
    },
  )

  app.post(
    '/auth/sso/finish/',
    {
      config: { public: true },
      schema: {
        tags,
        security: [],
        summary: 'Finish a single sign-on: the URL the provider sent the browser back to, for a session key',
        description:
          'The state must be one this api began, unused and under 10 minutes old; the code is exchanged with its PKCE ' +
          'verifier and the ID token checked (issuer, audience, nonce). The person is the member of that ' +
          'organization with the provider’s verified email; begun from an invitation, that email must be the ' +
          'invitation’s, and the person joins (a new user takes their names from the provider and has no password). ' +
          '401 when refused; 429 as sign-in throttles.',
        body: Type.Object(
          { callback_url: Type.String({ minLength: 1, maxLength: 8000 }), ...sessionTerms },
          { additionalProperties: false },
        ),
        response: { 200: signInAnswerSchema },
      },
    },
    async (request) => {
      const now = clock.now()
      const address = request.ip
      // Until the provider names the person, failures count against the address alone.
      const addressKeys = addressKeysOf(address)
      await refuseWhenThrottled(db, addressKeys, now)
      const refuse = async (message: string, keys = addressKeys): Promise<never> => {
        await recordFailure(db, keys, SIGN_IN_LIMITS, now)
        throw new HttpError(401, message)
      }
      let returned: URL
      try {
        returned = new URL(request.body.callback_url)
      } catch {
        throw ValidationError.field('callback_url', 'Send the full URL the browser came back to.')
      }
      const state = returned.searchParams.get('state')
      const login = state === null || state.length > 200 ? undefined : await takeLogin(db, state, now)
      if (state === null || login === undefined) return refuse(LOGIN_GONE)
      const sso = await findSingleSignOn(db, login.organization_id)
      if (sso?.enabled !== true) return refuse('Single sign-on is turned off for this organization.')
      const provider = await providerOf(sso, request.log)
      const oidc = await openidClient()
      // The provider was given our redirect URI: the code is exchanged for that one, whatever host the BFF saw.
      const current = new URL(redirectUri)
      current.search = returned.search
      let claims: Record<string, unknown>
      try {
        const tokens = await oidc.authorizationCodeGrant(provider, current, {
          pkceCodeVerifier: login.code_verifier,
          expectedState: state,
          expectedNonce: login.nonce,
          idTokenExpected: true,
        })
        const idClaims = tokens.claims()
        if (idClaims === undefined) return await refuse('The identity provider sent no ID token.')
        claims = { ...idClaims }
        if (
          (claims.email === undefined || claims.email_verified === undefined) &&
          provider.serverMetadata().userinfo_endpoint
        ) {
          claims = { ...(await oidc.fetchUserInfo(provider, tokens.access_token, idClaims.sub)), ...idClaims }
        }
      } catch (error) {
        if (error instanceof HttpError) throw error
        request.log.warn({ err: error }, 'single sign-on refused')
        return refuse(`The identity provider’s answer was not accepted: ${describe(error).slice(0, 200)}`)
      }
      const email = typeof claims.email === 'string' ? claims.email.trim().toLowerCase() : ''
      if (email === '') return refuse('The identity provider did not say which email address you use.')
      if (claims.email_verified !== true) return refuse('The identity provider has not verified your email address.')
      const keys = throttleKeys(email, address)
      await refuseWhenThrottled(db, keys, now)
      const invitationHash = login.invitation_token_hash
      if (invitationHash !== null) {
        const invitation = await pendingInvitationByHash(db, invitationHash, now)
        if (invitation?.organization_id !== login.organization_id || (await memberOf(db, invitation)) !== undefined)
          throw new HttpError(400, INVITATION_INVALID)
        if (invitation.email_lower !== email)
          return refuse(
            `The identity provider signed you in as ${email}, but the invitation is for ${invitation.email}.`,
            keys,
          )
        await clearAccountFailures(db, keys)
        const newUser =
          (await findUserByEmail(db, email)) === undefined
            ? { firstName: nameClaim(claims.given_name), lastName: nameClaim(claims.family_name), passwordHash: null }
            : undefined
        const joined = await db
          .transaction()
          .execute((tx) => joinByInvitation(tx, dialect, clock, invitation, invitationHash, newUser))
        return mintSessionKey(db, clock, joined, request.body, { request, method: 'single_sign_on' })
      }
      const member = await memberOf(db, { organization_id: login.organization_id, email_lower: email })
      if (member?.status !== 'active') return refuse(NO_MEMBER, keys)
      await clearAccountFailures(db, keys)
      return mintSessionKey(
        db,
        clock,
        { organizationId: login.organization_id, userId: member.user_id, membershipId: member.id },
        request.body,
        { request, method: 'single_sign_on' },
      )
    },
  )
}

/** A name the provider gave (given_name, family_name), as a user's name is stored: trimmed, plain, null if none. */
function nameClaim(value: unknown): string | null {
  if (typeof value !== 'string') return null
  // Control characters are dropped, as the profile refuses them.
  // eslint-disable-next-line no-control-regex -- they are what is matched
  const plain = value.replace(/[\u0000-\u001f\u007f]/g, '')
  const name = plain.trim().slice(0, NAME_MAX)
  return name === '' ? null : name
}

/** The throttle keys of a single sign-on before the provider has named anyone: the address's alone. */
function addressKeysOf(address: string) {
  return throttleKeys(`single-sign-on:${address}`, address)
}
