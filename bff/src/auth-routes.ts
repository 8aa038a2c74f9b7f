import { readFile } from 'node:fs/promises'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { parseCookie, stringifySetCookie } from 'cookie'
import { Router, type Request, type Response } from 'express'
import type { Pool } from 'undici'
import { isTimeZone } from '@leadline/shared/tz-offset'
import type { BffConfig } from './env.js'
import { HttpError, upstreamJson } from './crm-proxy.js'
import type { Session, SessionProfile, SessionStore } from './session.js'
import type { SignInLimiter } from './sign-in-limiter.js'

export interface AuthDeps {
  config: BffConfig
  store: SessionStore
  pool: Pool
  now: () => Date
  /** The demo seed file when one-click demo sign-in is allowed (`demoSeedFileInUse`), else undefined. */
  demoSeedFile: string | undefined
  limiter: SignInLimiter
  /** Told when a session ends here (sign-out, a new sign-in in its place): its live-update streams end. */
  onSessionEnded?: (id: string) => void
  /** Told when a session begins here (the BFF's metrics count sign-ins). */
  onSignedIn?: () => void
}

/** A 400 answered like the API's validation errors: `{"errors": [], "field-errors": {…}}`. */
export class FieldError extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message)
    this.name = 'FieldError'
  }
}

const NOT_SIGNED_IN = 'You are not signed in.'

export function cookieName(config: BffConfig): string {
  // The __Host- prefix is only honoured with Secure, so plain-http deployments use a plain name.
  return config.insecureCookies ? 'leadline_session' : '__Host-leadline_session'
}

function setSessionCookie(res: Response, config: BffConfig, value: string, clear = false): void {
  res.append(
    'set-cookie',
    stringifySetCookie(cookieName(config), value, {
      httpOnly: true,
      secure: !config.insecureCookies,
      sameSite: 'strict',
      path: '/',
      ...(clear ? { maxAge: 0, expires: new Date(0) } : {}),
    }),
  )
}

function cookieValue(req: IncomingMessage, config: BffConfig): string | undefined {
  const header = req.headers.cookie
  if (header === undefined) return undefined
  const value = parseCookie(header)[cookieName(config)]
  return value !== undefined && /^[A-Za-z0-9_-]{43}$/.test(value) ? value : undefined
}

export interface CurrentSession {
  id: string
  session: Session
  apiKey: string
}

/** The caller's live session, or undefined (and the stale cookie cleared) when there is none. */
export async function currentSession(req: Request, res: Response, deps: AuthDeps): Promise<CurrentSession | undefined> {
  const id = cookieValue(req, deps.config)
  if (id === undefined) return undefined
  const current = await openSession(id, deps)
  if (current === undefined) {
    await deps.store.delete(id)
    setSessionCookie(res, deps.config, '', true)
  }
  return current
}

/**
 * The caller's live session with its key, or undefined; unlike currentSession it leaves a stale cookie and its row as
 * they are (the app's fast lane hands such a request on to currentSession).
 */
export async function liveSession(req: IncomingMessage, deps: AuthDeps): Promise<CurrentSession | undefined> {
  const id = cookieValue(req, deps.config)
  return id === undefined ? undefined : openSession(id, deps, true)
}

/** With `reuse` (the fast lane's reads of the API only), a row read within SessionStore's ROW_REUSE_MS may answer. */
async function openSession(id: string, deps: AuthDeps, reuse = false): Promise<CurrentSession | undefined> {
  const session = await deps.store.get(id, deps.now(), { reuse })
  const apiKey = session === undefined ? undefined : deps.store.apiKey(id, session)
  return session === undefined || apiKey === undefined ? undefined : { id, session, apiKey }
}

async function endSession(deps: AuthDeps, id: string): Promise<void> {
  await deps.store.delete(id)
  deps.onSessionEnded?.(id)
}

/** What the browser learns about its session: never the key. */
export function sessionView(profile: SessionProfile) {
  return {
    user: {
      id: profile.userId,
      first_name: profile.firstName,
      last_name: profile.lastName,
      email: profile.email,
      display_name: profile.displayName,
    },
    organization: { id: profile.organizationId, name: profile.organizationName },
    role: profile.role,
    time_zone: profile.timeZone,
  }
}

export function authRoutes(deps: AuthDeps): Router {
  const { config, store } = deps
  const router = Router()

  router.post('/session', async (req, res) => {
    await refuseWhenLimited(req, res, deps)
    const body: unknown = req.body
    const record = requireObject(body)
    const timeZone = requireTimeZone(record)
    if (record.api_key !== undefined) {
      const apiKey = requireString(record, 'api_key', 'Enter an API key.')
      await signIn(req, res, deps, await sessionKeyForApiKey(req, res, deps, apiKey, timeZone), timeZone)
      return
    }
    const email = requireString(record, 'email', 'Enter your email.')
    const password = record.password
    if (typeof password !== 'string' || password === '') throw new FieldError('password', 'Enter your password.')
    const code = optionalCode(record)
    await signIn(
      req,
      res,
      deps,
      await sessionKeyForPassword(req, res, deps, { email, password, code }, timeZone),
      timeZone,
    )
  })

  router.get('/session', async (req, res) => {
    const current = await currentSession(req, res, deps)
    if (current === undefined) throw new HttpError(401, NOT_SIGNED_IN)
    res.json(sessionView(current.session))
  })

  // A new zone, and who the person is now: their name or role may have changed since they signed in.
  router.put('/session', async (req, res) => {
    const body: unknown = req.body
    const timeZone = requireTimeZone(requireObject(body))
    const current = await currentSession(req, res, deps)
    if (current === undefined) throw new HttpError(401, NOT_SIGNED_IN)
    const me = await upstreamJson(deps.pool, '/api/v1/me/', current.apiKey, timeZone, deps.now(), config.apiTimeoutMs, {
      origin: res,
    })
    if (me.status === 401) {
      await endSession(deps, current.id)
      setSessionCookie(res, config, '', true)
      throw new HttpError(401, NOT_SIGNED_IN)
    }
    const profile = me.status === 200 ? profileFromMe(me.body, timeZone) : undefined
    // The api unreachable or busy: the zone still changes, and who they are is read again next time.
    if (profile === undefined) {
      await store.setTimeZone(current.id, timeZone)
      res.json(sessionView({ ...current.session, timeZone }))
      return
    }
    await store.updateProfile(current.id, profile)
    res.json(sessionView({ ...current.session, ...profile }))
  })

  router.delete('/session', async (req, res) => {
    const id = cookieValue(req, config)
    if (id !== undefined) await signOut(deps, id, res)
    setSessionCookie(res, config, '', true)
    res.status(204).end()
  })

  // Invitations and password resets: the api answers, the browser hears it as it is; an accepted invitation signs in.
  router.post('/invitation/lookup', async (req, res) => {
    await refuseWhenLimited(req, res, deps)
    const record = requireObject(req.body)
    await relay(req, res, deps, await publicCall(req, deps, '/api/v1/auth/invitation/lookup/', { token: record.token }))
  })

  router.post('/invitation/accept', async (req, res) => {
    await refuseWhenLimited(req, res, deps)
    const record = requireObject(req.body)
    // The page may not know the browser's zone yet: UTC until the app sets it (PUT /auth/session).
    const timeZone = record.time_zone === undefined ? 'UTC' : requireTimeZone(record)
    const { token, first_name, last_name, password } = record
    const answer = await publicCall(req, deps, '/api/v1/auth/invitation/accept/', {
      token,
      first_name,
      last_name,
      password,
      ...sessionTerms(req, deps),
    })
    if (answer.status !== 200) {
      await relay(req, res, deps, answer)
      return
    }
    await signIn(req, res, deps, sessionKeyFrom(answer, res), timeZone)
  })

  router.post('/password-reset', async (req, res) => {
    await refuseWhenLimited(req, res, deps)
    const record = requireObject(req.body)
    await relay(req, res, deps, await publicCall(req, deps, '/api/v1/auth/password_reset/', { email: record.email }))
  })

  router.post('/password-reset/complete', async (req, res) => {
    await refuseWhenLimited(req, res, deps)
    const record = requireObject(req.body)
    const body = { token: record.token, password: record.password }
    await relay(req, res, deps, await publicCall(req, deps, '/api/v1/auth/password_reset/complete/', body))
  })

  router.get('/demo-users', async (req, res) => {
    const users = await demoUsers(req, deps)
    res.json(users.map((u) => ({ email: u.email, title: u.title, role: u.role, display_name: demoDisplayName(u) })))
  })

  router.post('/demo-session', async (req, res) => {
    await refuseWhenLimited(req, res, deps)
    const users = await demoUsers(req, deps)
    const body: unknown = req.body
    const record = requireObject(body)
    const email = requireString(record, 'email', 'Choose a demo user.')
    const timeZone = requireTimeZone(record)
    const user = users.find((u) => u.email.toLowerCase() === email.toLowerCase())
    if (user === undefined) throw new HttpError(404, 'There is no demo user with that email.')
    await signIn(req, res, deps, await sessionKeyForApiKey(req, res, deps, user.api_key, timeZone), timeZone)
  })

  router.use((_req, res) => {
    res.status(404).json({ error: 'Not found.' })
  })
  return router
}

/** The address sign-in attempts are counted against: the socket's, or the proxy's client when it is trusted. */
export function clientAddress(req: Request): string {
  return req.ip ?? req.socket.remoteAddress ?? 'unknown'
}

export async function refuseWhenLimited(req: Request, res: Response, deps: AuthDeps): Promise<void> {
  const wait = await deps.limiter.retryAfterSeconds(clientAddress(req), deps.now())
  if (wait === 0) return
  res.setHeader('retry-after', String(wait))
  throw new HttpError(429, `Too many failed sign-ins; try again in ${Math.ceil(wait / 60)} minute(s).`)
}

async function keyRefused(req: Request, deps: AuthDeps): Promise<HttpError> {
  await deps.limiter.recordFailure(clientAddress(req), deps.now())
  return new HttpError(401, 'That API key was not accepted.')
}

/** What the session key is asked for: as long as a session here may last, and idle as long. */
export function sessionTerms(req: Request, deps: AuthDeps) {
  return {
    description: browserName(req.get('user-agent') ?? ''),
    expires_in: Math.floor(deps.config.sessionMaxAgeMs / 1000),
    idle_seconds: Math.max(60, Math.floor(deps.config.sessionIdleMs / 1000)),
  }
}

/** "Firefox on Linux": enough for someone to tell their sessions apart (plain substring checks, no parsing). */
export function browserName(userAgent: string): string {
  const agent = userAgent.slice(0, 512)
  const browser = [
    ['Edg/', 'Edge'],
    ['Firefox/', 'Firefox'],
    ['Chrome/', 'Chrome'],
    ['Safari/', 'Safari'],
  ].find(([mark]) => mark !== undefined && agent.includes(mark))?.[1]
  const system = [
    ['Android', 'Android'],
    ['iPhone', 'iOS'],
    ['iPad', 'iPadOS'],
    ['Windows', 'Windows'],
    ['Mac OS', 'macOS'],
    ['CrOS', 'ChromeOS'],
    ['Linux', 'Linux'],
  ].find(([mark]) => mark !== undefined && agent.includes(mark))?.[1]
  if (browser === undefined) return system === undefined ? 'A browser' : `A browser on ${system}`
  return system === undefined ? browser : `${browser} on ${system}`
}

/** A pasted key (or a demo user's), checked and exchanged for a key for this session alone: the pasted one is not kept. */
async function sessionKeyForApiKey(
  req: Request,
  res: Response,
  deps: AuthDeps,
  apiKey: string,
  timeZone: string,
): Promise<SessionKey> {
  // Keys are printable ASCII; anything else cannot be a key and must not be smuggled into a header.
  if (!/^[\x21-\x7e]{1,256}$/.test(apiKey) || apiKey.includes(':')) throw await keyRefused(req, deps)
  const minted = await upstreamJson(
    deps.pool,
    '/api/v1/auth/session/',
    apiKey,
    timeZone,
    deps.now(),
    deps.config.apiTimeoutMs,
    {
      method: 'POST',
      body: sessionTerms(req, deps),
      origin: res,
    },
  )
  // 403: a session's own key, which makes no other session; to the person it is a key that was not accepted.
  if (minted.status === 401 || minted.status === 403) throw await keyRefused(req, deps)
  return sessionKeyFrom(minted, res)
}

/** The longest two-factor code passed on: the api refuses longer ones too. */
const MAX_CODE_LENGTH = 32

/** The two-factor code of a sign-in, when one was sent (blank is none). */
function optionalCode(record: Record<string, unknown>): string | undefined {
  const code = record.code
  if (code === undefined || code === null) return undefined
  if (typeof code !== 'string' || code.length > MAX_CODE_LENGTH)
    throw new FieldError('code', 'Enter the code from your authenticator app, or a recovery code.')
  return code.trim() === '' ? undefined : code.trim()
}

/**
 * Email and password (and a two-factor code), checked by the api, which counts failures per account and per address:
 * a session key. The api's "a code is needed" answer is passed on with its `two_factor` field, counted here only when
 * a code was sent: asking for one is the first step of every two-factor sign-in.
 */
async function sessionKeyForPassword(
  req: Request,
  res: Response,
  deps: AuthDeps,
  credentials: { email: string; password: string; code: string | undefined },
  timeZone: string,
): Promise<SessionKey> {
  const { email, password, code } = credentials
  const answer = await upstreamJson(
    deps.pool,
    '/api/v1/auth/sign_in/',
    undefined,
    timeZone,
    deps.now(),
    deps.config.apiTimeoutMs,
    {
      method: 'POST',
      body: { email, password, ...(code === undefined ? {} : { code }), ...sessionTerms(req, deps) },
      forwardedFor: clientAddress(req),
      origin: res,
    },
  )
  if (answer.status === 401) {
    const twoFactor = isRecord(answer.body) && answer.body.two_factor === 'required'
    if (!twoFactor || code !== undefined) await deps.limiter.recordFailure(clientAddress(req), deps.now())
    throw new HttpError(
      401,
      errorMessage(answer.body) ?? 'That email and password do not match an account.',
      twoFactor ? { two_factor: 'required' } : {},
    )
  }
  return sessionKeyFrom(answer, res)
}

/** A public auth route of the api (no key), told who is asking so that it counts attempts by their address. */
function publicCall(req: Request, deps: AuthDeps, path: string, body: Record<string, unknown>) {
  return upstreamJson(deps.pool, path, undefined, 'UTC', deps.now(), deps.config.apiTimeoutMs, {
    method: 'POST',
    body,
    forwardedFor: clientAddress(req),
    origin: req.res,
  })
}

/**
 * The api's answer as it is, with its status (and `Retry-After`); a refused link counts as a failed attempt, so no
 * one tries tokens faster than passwords. An answer that is not the api's JSON is a 502.
 */
async function relay(
  req: Request,
  res: Response,
  deps: AuthDeps,
  answer: { status: number; body: unknown; headers: Record<string, unknown> },
): Promise<void> {
  if (answer.status >= 500 || !isRecord(answer.body))
    throw new HttpError(502, 'The CRM service gave an unexpected answer.')
  if (answer.status === 400 && typeof answer.body.error === 'string')
    await deps.limiter.recordFailure(clientAddress(req), deps.now())
  const retry = answer.headers['retry-after']
  if (typeof retry === 'string') res.setHeader('retry-after', retry)
  res.status(answer.status).json(answer.body)
}

/** A session key, and whether its organization holds it until two-factor sign-in is turned on. */
interface SessionKey {
  key: string
  twoFactorSetupRequired: boolean
}

/** The key of a session-key answer; the api's refusals as the browser should see them. */
export function sessionKeyFrom(
  answer: { status: number; body: unknown; headers: Record<string, unknown> },
  res: Response,
): SessionKey {
  if (answer.status === 429) {
    const retry = answer.headers['retry-after']
    if (typeof retry === 'string') res.setHeader('retry-after', retry)
    throw new HttpError(429, errorMessage(answer.body) ?? 'Too many attempts; try again later.')
  }
  if (answer.status === 400 && isRecord(answer.body) && isRecord(answer.body['field-errors'])) {
    const [field, message] = Object.entries(answer.body['field-errors'])[0] ?? []
    if (typeof field === 'string' && typeof message === 'string') throw new FieldError(field, message)
  }
  const body = answer.status === 200 && isRecord(answer.body) ? answer.body : undefined
  const key = body?.api_key
  if (typeof key !== 'string') throw new HttpError(502, 'The CRM service gave an unexpected answer.')
  return { key, twoFactorSetupRequired: body?.two_factor_setup_required === true }
}

export function errorMessage(body: unknown): string | undefined {
  return isRecord(body) && typeof body.error === 'string' ? body.error : undefined
}

async function signIn(
  req: Request,
  res: Response,
  deps: AuthDeps,
  { key: sessionKey, twoFactorSetupRequired }: SessionKey,
  timeZone: string,
): Promise<void> {
  const profile = await startSession(req, res, deps, sessionKey, timeZone)
  // Until it is on, the organization lets the session do little but turn two-factor on: the app goes there first.
  res.json({ ...sessionView(profile), two_factor_setup_required: twoFactorSetupRequired })
}

/** A session here for a new session key (the previous one in this browser ended): its cookie is set on `res`. */
export async function startSession(
  req: Request,
  res: Response,
  deps: AuthDeps,
  sessionKey: string,
  timeZone: string,
): Promise<SessionProfile> {
  const now = deps.now()
  const me = await upstreamJson(deps.pool, '/api/v1/me/', sessionKey, timeZone, now, deps.config.apiTimeoutMs, {
    origin: res,
  })
  if (me.status === 429) throw new HttpError(429, 'Too many requests; try again in a moment.')
  const profile = me.status === 200 ? profileFromMe(me.body, timeZone) : undefined
  if (profile === undefined) {
    await revokeSessionKey(deps, sessionKey, timeZone, res)
    throw new HttpError(502, 'The CRM service gave an unexpected answer.')
  }

  const previous = cookieValue(req, deps.config)
  if (previous !== undefined) await signOut(deps, previous, res)
  const id = await deps.store.create(profile, sessionKey, now)
  setSessionCookie(res, deps.config, id)
  deps.onSignedIn?.()
  return profile
}

/**
 * Ends a session here and its key at the api: the key is refused from then on, by every api process within seconds.
 * The call to the api carries the id (and trace) of the request `origin` answers.
 */
async function signOut(deps: AuthDeps, id: string, origin: ServerResponse): Promise<void> {
  const session = await deps.store.get(id, deps.now())
  const sessionKey = session === undefined ? undefined : deps.store.apiKey(id, session)
  await endSession(deps, id)
  if (session !== undefined && sessionKey !== undefined)
    await revokeSessionKey(deps, sessionKey, session.timeZone, origin)
}

async function revokeSessionKey(
  deps: AuthDeps,
  sessionKey: string,
  timeZone: string,
  origin: ServerResponse,
): Promise<void> {
  const keyId = sessionKey.slice(0, Math.max(0, sessionKey.indexOf('.')))
  try {
    await upstreamJson(
      deps.pool,
      `/api/v1/auth/session/${encodeURIComponent(keyId)}/`,
      sessionKey,
      timeZone,
      deps.now(),
      deps.config.apiTimeoutMs,
      { method: 'DELETE', origin },
    )
  } catch {
    // The api is unreachable: the key still ends at its idle time, which is the session's here.
  }
}

function profileFromMe(body: unknown, timeZone: string): SessionProfile | undefined {
  if (!isRecord(body)) return undefined
  const { id, email, first_name, last_name, display_name, organizations, memberships, time_zone } = body
  if (typeof id !== 'string' || typeof email !== 'string') return undefined
  if (!Array.isArray(organizations) || !Array.isArray(memberships)) return undefined
  const organization: unknown = organizations[0]
  if (!isRecord(organization) || typeof organization.id !== 'string' || typeof organization.name !== 'string')
    return undefined
  const organizationId = organization.id
  const membership: unknown = memberships.find(
    (m: unknown) => isRecord(m) && m.organization_id === organizationId && m.user_id === id,
  )
  if (!isRecord(membership) || typeof membership.role !== 'string') return undefined
  const firstName = typeof first_name === 'string' ? first_name : ''
  const lastName = typeof last_name === 'string' ? last_name : ''
  return {
    userId: id,
    email,
    firstName,
    lastName,
    displayName:
      typeof display_name === 'string' && display_name !== ''
        ? display_name
        : `${firstName} ${lastName}`.trim() || email,
    organizationId,
    organizationName: organization.name,
    role: membership.role,
    // The zone chosen on the Profile wins over the browser's.
    timeZone: typeof time_zone === 'string' && isTimeZone(time_zone) ? time_zone : timeZone,
  }
}

interface DemoUser {
  email: string
  first_name: string
  last_name: string
  role: string
  title: string
  api_key: string
}

// A reverse proxy on this machine would make every visitor look local to the loopback check in env.ts.
const PROXY_HEADERS = ['x-forwarded-for', 'forwarded', 'x-real-ip'] as const

/** Read on each request, so a re-seeded demo organization is picked up without a restart. */
async function demoUsers(req: Request, deps: AuthDeps): Promise<DemoUser[]> {
  const seedFile = deps.demoSeedFile
  if (seedFile === undefined) throw new HttpError(404, 'Demo sign-in is not enabled.')
  if (deps.config.demoSignIn !== 'on' && PROXY_HEADERS.some((name) => req.headers[name] !== undefined))
    throw new HttpError(404, 'Demo sign-in is not offered through a proxy (LEADLINE_DEMO_SIGN_IN=1 allows it).')
  let parsed: unknown
  try {
    parsed = JSON.parse(await readFile(seedFile, 'utf8'))
  } catch {
    throw new HttpError(503, 'The demo users are not available.')
  }
  if (!isRecord(parsed) || !Array.isArray(parsed.users)) throw new HttpError(503, 'The demo users are not available.')
  return parsed.users.filter(isDemoUser)
}

function isDemoUser(value: unknown): value is DemoUser {
  return (
    isRecord(value) &&
    typeof value.email === 'string' &&
    typeof value.api_key === 'string' &&
    typeof value.role === 'string' &&
    typeof value.first_name === 'string' &&
    typeof value.last_name === 'string' &&
    typeof value.title === 'string'
  )
}

function demoDisplayName(user: DemoUser): string {
  return `${user.first_name} ${user.last_name}`.trim() || user.email
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function requireObject(body: unknown): Record<string, unknown> {
  if (!isRecord(body)) throw new HttpError(400, 'Send a JSON object with Content-Type: application/json.')
  return body
}

function requireString(record: Record<string, unknown>, field: string, message: string): string {
  const value = record[field]
  if (typeof value !== 'string' || value.trim() === '') throw new FieldError(field, message)
  return value.trim()
}

function requireTimeZone(record: Record<string, unknown>): string {
  const value = requireString(record, 'time_zone', 'Send the IANA time zone, e.g. Europe/Paris.')
  // Kept as the browser names it: ICU would canonicalize some names backwards (Asia/Kolkata → Asia/Calcutta).
  if (!isTimeZone(value)) throw new FieldError('time_zone', `"${value.slice(0, 64)}" is not a known IANA time zone.`)
  return value
}
