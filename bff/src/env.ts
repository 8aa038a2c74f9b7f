/** The BFF's configuration, read once from the environment at start-up. */
export interface BffConfig {
  port: number
  host: string
  apiUrl: string
}

export function loadBffConfig(env: NodeJS.ProcessEnv = process.env): BffConfig {
  const port = Number(env.PORT ?? '3000')
  if (!Number.isInteger(port) || port <= 0 || port > 65535)
    throw new Error(`PORT must be a TCP port, got "${env.PORT ?? ''}"`)
  const apiUrl = new URL(env.LEADLINE_API_URL ?? 'http://127.0.0.1:4000')
  if (apiUrl.protocol !== 'http:' && apiUrl.protocol !== 'https:')
    throw new Error('LEADLINE_API_URL must be an http(s) URL')
  return { port, host: env.HOST ?? '127.0.0.1', apiUrl: apiUrl.origin }
}
