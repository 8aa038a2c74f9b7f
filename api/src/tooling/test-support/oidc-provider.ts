import { once } from 'node:events'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import Provider from 'oidc-provider'

// A real OpenID Connect provider (oidc-provider) on a loopback port, and a browser played with fetch: it follows the
// provider's redirects and submits its development login and consent forms as a person would.

export interface TestAccount {
  email: string
  email_verified: boolean
  given_name?: string
  family_name?: string
}

export interface TestProvider {
  issuer: string
  clientId: string
  clientSecret: string
  /** Who may sign in at the provider, by the login typed into its form. */
  accounts: Map<string, TestAccount>
  /** Signs in as `login` starting at the authorization URL; the URL the provider sends the browser back to. */
  signIn(authorizationUrl: string, login: string): Promise<string>
  close(): Promise<void>
}

export async function startTestProvider(redirectUri: string): Promise<TestProvider> {
  const accounts = new Map<string, TestAccount>()
  const clientId = 'leadline-test'
  const clientSecret = 'a-test-client-secret-that-is-long-enough'
  const server: Server = createServer()
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const issuer = `http://127.0.0.1:${String((server.address() as AddressInfo).port)}`
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: [redirectUri],
        grant_types: ['authorization_code'],
        response_types: ['code'],
      },
    ],
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['given_name', 'family_name'] },
    cookies: { keys: ['a-test-cookie-key-for-the-provider'] },
    ttl: { AccessToken: 600, AuthorizationCode: 60, Grant: 600, IdToken: 600, Interaction: 600, Session: 600 },
    findAccount: (_ctx, sub) => {
      const account = accounts.get(sub)
      if (account === undefined) return undefined
      return { accountId: sub, claims: () => ({ sub, ...account }) }
    },
  })
  const handle = provider.callback()
  server.on('request', (req, res) => {
    void handle(req, res)
  })

  async function signIn(authorizationUrl: string, login: string): Promise<string> {
    const jar = new Map<string, string>()
    let url = new URL(authorizationUrl)
    let form: URLSearchParams | undefined
    for (let step = 0; step < 20; step++) {
      const res = await fetch(url, {
        redirect: 'manual',
        method: form === undefined ? 'GET' : 'POST',
        headers: {
          cookie: [...jar].map(([name, value]) => `${name}=${value}`).join('; '),
          ...(form === undefined ? {} : { 'content-type': 'application/x-www-form-urlencoded' }),
        },
        ...(form === undefined ? {} : { body: form.toString() }),
      })
      for (const cookie of res.headers.getSetCookie()) {
        const [pair = ''] = cookie.split(';')
        const eq = pair.indexOf('=')
        jar.set(pair.slice(0, eq), pair.slice(eq + 1))
      }
      form = undefined
      const location = res.headers.get('location')
      if (res.status >= 300 && res.status < 400 && location !== null) {
        url = new URL(location, url)
        if (url.href.startsWith(redirectUri)) return url.href
        continue
      }
      const html = await res.text()
      const action = /action="([^"]+)"/.exec(html)?.[1]
      const prompt = /name="prompt" value="(\w+)"/.exec(html)?.[1]
      if (res.status !== 200 || action === undefined || prompt === undefined) {
        throw new Error(`The provider answered ${String(res.status)}: ${html.slice(0, 500)}`)
      }
      url = new URL(action, url)
      form = new URLSearchParams(prompt === 'login' ? { prompt, login, password: 'any' } : { prompt })
    }
    throw new Error('The provider never sent the browser back')
  }

  return {
    issuer,
    clientId,
    clientSecret,
    accounts,
    signIn,
    close: async () => {
      server.closeAllConnections()
      server.close()
      await once(server, 'close')
    },
  }
}
