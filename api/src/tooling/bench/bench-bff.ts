import { spawn, type ChildProcessByStdio } from 'node:child_process'
import { existsSync } from 'node:fs'
import { createServer } from 'node:net'
import type { Readable } from 'node:stream'
import { setTimeout as sleep } from 'node:timers/promises'

// The BFF in the bench (issue 34: what the BFF costs a request): a real BFF process in front of the bench's api,
// signed in with the bench organization's key as the web app signs in with a pasted one, and the headers a browser
// then sends with each request (its session cookie, X-Requested-With).

export interface BenchBff {
  child: ChildProcessByStdio<null, Readable, null>
  url: string
  headers: Record<string, string>
}

/** A TCP port nothing listens on now (the BFF logs the one it took only at info, which the bench turns off). */
async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', resolve)
  })
  const address = server.address()
  await new Promise((resolve) => server.close(resolve))
  if (address === null || typeof address === 'string') throw new Error('no port for the BFF')
  return address.port
}

/**
 * `env` with glibc's arenas capped at two, as `npm start` (scripts/start.mjs) starts the api and the BFF, unless
 * `env` sets it (docs/decisions/0071-two-malloc-arenas.md): the bench measures the servers as they are run.
 */
export function withNpmStartAllocator(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return { ...env, MALLOC_ARENA_MAX: env.MALLOC_ARENA_MAX ?? '2' }
}

/**
 * The node flags `npm start` (scripts/start.mjs) starts the api with: a young generation of 8 MB a semi-space rather
 * than V8's 16 (docs/decisions/0079-a-small-young-generation.md). The bench gives them to every server it starts in
 * the api's place (the raw limit's too, so that the two are compared alike); flags given after them win.
 */
export const API_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=8']

/** Starts the built BFF (`bffMain`) against `apiUrl`, its sessions under `dataDir`, and signs in with `apiKey`. */
export async function startBenchBff(options: {
  bffMain: string
  apiUrl: string
  dataDir: string
  apiKey: string
  nodeArgs: readonly string[]
  /** The built web app the BFF serves (LEADLINE_WEB_DIST), for the screens' paint. */
  webDist?: string
}): Promise<BenchBff> {
  if (!existsSync(options.bffMain)) {
    throw new Error(`the BFF is not built (${options.bffMain}): run corepack pnpm --filter @leadline/bff build`)
  }
  const port = await freePort()
  const env = withNpmStartAllocator({
    ...process.env,
    PORT: String(port),
    HOST: '127.0.0.1',
    LEADLINE_API_URL: options.apiUrl,
    LEADLINE_BFF_DATA_DIR: options.dataDir,
    LEADLINE_BFF_INSECURE_COOKIES: '1',
    LOG_LEVEL: 'warn',
    ...(options.webDist === undefined ? {} : { LEADLINE_WEB_DIST: options.webDist }),
  })
  const child = spawn(process.execPath, [...options.nodeArgs, options.bffMain], {
    env,
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  child.stdout.resume()
  try {
    return await signIn(child, `http://127.0.0.1:${String(port)}`, options.apiKey)
  } catch (error) {
    // Not left running: nothing else would stop it.
    child.kill('SIGTERM')
    throw error
  }
}

async function signIn(child: BenchBff['child'], url: string, apiKey: string): Promise<BenchBff> {
  for (let tries = 0; ; tries++) {
    if (child.exitCode !== null) throw new Error(`the BFF exited with ${String(child.exitCode)}`)
    try {
      if ((await fetch(`${url}/healthz`)).ok) break
    } catch {
      // Not listening yet.
    }
    if (tries > 200) throw new Error('the BFF did not start within 20 s')
    await sleep(100)
  }
  const signedIn = await fetch(`${url}/auth/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-requested-with': 'leadline' },
    body: JSON.stringify({ api_key: apiKey, time_zone: 'UTC' }),
  })
  const cookie = signedIn.headers.getSetCookie()[0]?.split(';')[0]
  if (!signedIn.ok || cookie === undefined) {
    throw new Error(`signing in to the BFF answered ${String(signedIn.status)}: ${await signedIn.text()}`)
  }
  // As a browser sends them: answers over the BFF's threshold come back compressed, as they do to the web app.
  return { child, url, headers: { cookie, 'x-requested-with': 'leadline', 'accept-encoding': 'gzip, deflate, br' } }
}
