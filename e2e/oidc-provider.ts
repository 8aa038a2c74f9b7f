import { once } from 'node:events'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import Provider from 'oidc-provider'

// An organization's identity provider for the single sign-on journey: oidc-provider on a loopback port, whose own
// development login and consent pages the browser goes through. Whoever logs in as `login` gets that email, verified.

export interface JourneyProvider {
  issuer: string
  clientId: string
  clientSecret: string
  close(): Promise<void>
}

export async function startJourneyProvider(
  redirectUri: string,
  emails: Record<string, string>,
): Promise<JourneyProvider> {
  const clientId = 'leadline-journey'
  const clientSecret = 'the-journey-client-secret-long-enough'
  const server = createServer()
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const issuer = `http://127.0.0.1:${String((server.address() as AddressInfo).port)}`
  const provider = new Provider(issuer, {
    clients: [{ client_id: clientId, client_secret: clientSecret, redirect_uris: [redirectUri] }],
    claims: { openid: ['sub'], email: ['email', 'email_verified'] },
    cookies: { keys: ['the-journey-provider-cookie-key'] },
    findAccount: (_ctx, sub) => {
      const email = emails[sub]
      return email === undefined ? undefined : { accountId: sub, claims: () => ({ sub, email, email_verified: true }) }
    },
  })
  const handle = provider.callback()
  server.on('request', (req, res) => {
    void handle(req, res)
  })
  return {
    issuer,
    clientId,
    clientSecret,
    close: async () => {
      server.closeAllConnections()
      server.close()
      await once(server, 'close')
    },
  }
}
