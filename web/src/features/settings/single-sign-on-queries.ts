import { queryOptions } from '@tanstack/react-query'
import { api } from '../../lib/api'

/** The organization's single sign-on provider as `GET /auth/sso/` answers it: never the client secret. */
export interface SingleSignOn {
  enabled: boolean
  required: boolean
  issuer: string
  client_id: string
  has_client_secret: boolean
  domains: string[]
  redirect_uri: string
}

export const singleSignOnQueries = {
  config: () =>
    queryOptions({ queryKey: ['single-sign-on'] as const, queryFn: () => api.get<SingleSignOn>('auth/sso/') }),
}
