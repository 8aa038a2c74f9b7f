import { timingSafeEqual } from 'node:crypto'
import { parseCookie, stringifySetCookie } from 'cookie'
import { Router, type Request, type Response } from 'express'
import {
  clientAddress,
  errorMessage,
  refuseWhenLimited,
  sessionKeyFrom,
  sessionTerms,
  startSession,
  type AuthDeps,
} from './auth-routes.js'
import { HttpError, upstreamJson } from './crm-proxy.js'
import { isTimeZone } from '@leadline/shared/tz-offset'

// Single sign-on (decision 0045): the api is the OpenID Connect client; the BFF sends the browser to the provider and
// hands the URL it came back to to the api. These are full-page navigations, so they are served before the
// X-Requested-With check; the sign-in is bound to this browser by a cookie holding its state, so a callback URL
// carried to another browser (login CSRF) is refused there.

const MAX_ERROR_LENGTH = 200
const LOGIN_MAX_AGE_SECONDS = 10 * 60
const NO_TIME_ZONE = 'UTC'

function loginCookieName(deps: AuthDeps): string {
  return deps.config.insecureCookies ? 'leadline_sso' : '__Host-leadline_sso'
}

/** Lax, not Strict: the provider's redirect back is a cross-site navigation, which Strict cookies do not follow. */
function setLoginCookie(res: Response, deps: AuthDeps, value: string, clear = false): void {
  res.append(
    'set-cookie',
    stringifySetCookie(loginCookieName(deps), value, {
      httpOnly: true,
      secure: !deps.config.insecureCookies,
      sameSite: 'lax',
      path: '/',
      ...(clear ? { maxAge: 0, expires: new Date(0) } : { maxAge: LOGIN_MAX_AGE_SECONDS }),
    }),
  )
}

/** The state and time zone of the sign-in this browser began, from its cookie. */
function loginOf(req: Request, deps: AuthDeps): { state: string; timeZone: string } | undefined {
  const header = req.headers.cookie
  const value = header === undefined ? undefined : parseCookie(header)[loginCookieName(deps)]
  const [state, timeZone] = value?.split(' ') ?? []
  if (state === undefined || timeZone === undefined || !/^[A-Za-z0-9_-]{1,200}$/.test(state)) return undefined
  return { state, timeZone: isTimeZone(timeZone) ? timeZone : NO_TIME_ZONE }
}

function sameText(a: string, b: string): boolean {
  const left = Buffer.from(a)
  const right = Buffer.from(b)
  return left.length === right.length && timingSafeEqual(left, right)
}

/** Back to the sign-in page, which shows why. */
function backToSignIn(res: Response, message: string): void {
  res.redirect(302, `/sign-in?${new URLSearchParams({ sso_error: message.slice(0, MAX_ERROR_LENGTH) }).toString()}`)
}

function messageOf(error: unknown): string {
  if (error instanceof HttpError) return error.message
  if (error instanceof Error && error.name === 'FieldError') return error.message
  return 'Single sign-on failed; try again.'
}

function queryText(req: Request, name: string): string | undefined {
  const value = req.query[name]
  return typeof value === 'string' && value.length <= 320 ? value.trim() : undefined
}

export function ssoRoutes(deps: AuthDeps): Router {
  const router = Router()
  router.use((_req, res, next) => {
    res.setHeader('cache-control', 'no-store')
    next()
  })

  router.get('/available', async (req, res) => {
    const email = queryText(req, 'email') ?? ''
    const answer = await upstreamJson(
      deps.pool,
      `/api/v1/auth/sso/available/?${new URLSearchParams({ email }).toString()}`,
      undefined,
      NO_TIME_ZONE,
      deps.now(),
      deps.config.apiTimeoutMs,
      { origin: res },
    )
    if (answer.status !== 200) throw new HttpError(502, 'The CRM service gave an unexpected answer.')
    res.json(answer.body)
  })

  router.get('/start', async (req, res) => {
    try {
      await refuseWhenLimited(req, res, deps)
      // From the sign-in page by work email, or from an invitation's page by its link's token.
      const invitation = queryText(req, 'invitation')
      const email = queryText(req, 'email')
      let begin: { invitation: string } | { email: string }
      if (invitation !== undefined && invitation !== '') begin = { invitation }
      else if (email !== undefined && email !== '') begin = { email }
      else throw new HttpError(400, 'Enter your work email first.')
      const zone = queryText(req, 'time_zone')
      const timeZone = zone !== undefined && isTimeZone(zone) ? zone : NO_TIME_ZONE
      const answer = await upstreamJson(
        deps.pool,
        '/api/v1/auth/sso/start/',
        undefined,
        timeZone,
        deps.now(),
        deps.config.apiTimeoutMs,
        { method: 'POST', body: begin, forwardedFor: clientAddress(req), origin: res },
      )
      const body = answer.body
      const url =
        answer.status === 200 && typeof body === 'object' && body !== null && 'authorization_url' in body
          ? body.authorization_url
          : undefined
      if (typeof url !== 'string') throw new HttpError(answer.status, startRefusal(body))
      const state = new URL(url).searchParams.get('state')
      if (state === null) throw new HttpError(502, 'The CRM service gave an unexpected answer.')
      setLoginCookie(res, deps, `${state} ${timeZone}`)
      res.redirect(302, url)
    } catch (error) {
      backToSignIn(res, messageOf(error))
    }
  })

  router.get('/callback', async (req, res) => {
    const login = loginOf(req, deps)
    setLoginCookie(res, deps, '', true)
    try {
      await refuseWhenLimited(req, res, deps)
      const state = queryText(req, 'state')
      if (login === undefined || state === undefined || !sameText(state, login.state)) {
        await deps.limiter.recordFailure(clientAddress(req), deps.now())
        throw new HttpError(401, 'This single sign-on was not started in this browser; start again.')
      }
      const callbackUrl = `${req.protocol}://${req.get('host') ?? 'localhost'}${req.originalUrl}`
      const answer = await upstreamJson(
        deps.pool,
        '/api/v1/auth/sso/finish/',
        undefined,
        login.timeZone,
        deps.now(),
        deps.config.apiTimeoutMs,
        {
          method: 'POST',
          body: { callback_url: callbackUrl, ...sessionTerms(req, deps) },
          forwardedFor: clientAddress(req),
          origin: res,
        },
      )
      if (answer.status === 401) {
        await deps.limiter.recordFailure(clientAddress(req), deps.now())
        throw new HttpError(401, errorMessage(answer.body) ?? 'Single sign-on was refused.')
      }
      const { key, twoFactorSetupRequired } = sessionKeyFrom(answer, res)
      await startSession(req, res, deps, key, login.timeZone)
      // An organization that requires two-factor sign-in holds the session until it is on: the profile turns it on.
      res.redirect(302, twoFactorSetupRequired ? '/settings/profile' : '/')
    } catch (error) {
      backToSignIn(res, messageOf(error))
    }
  })

  return router
}

function startRefusal(body: unknown): string {
  const message = errorMessage(body)
  if (message !== undefined) return message
  if (typeof body === 'object' && body !== null && 'field-errors' in body) {
    const fields: unknown = body['field-errors']
    const first: unknown = typeof fields === 'object' && fields !== null ? Object.values(fields)[0] : undefined
    if (typeof first === 'string') return first
  }
  return 'Single sign-on could not be started.'
}
