import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { TEST_SECRET_KEY, TEST_STREAM_SECRET } from './test-app.js'

/** The built CLI: tests of several real api processes need `pnpm -r build` first. */
export const cliPath = fileURLToPath(new URL('../../../dist/app/cli/cli.js', import.meta.url))

export interface CliRun {
  code: number | null
  stdout: string
  stderr: string
}

/**
 * Runs the built CLI once with `args`, `env` over this process's environment (a variable given as undefined is left
 * out), and collects what it prints.
 */
export function runCli(args: string[], env: Record<string, string | undefined> = {}): Promise<CliRun> {
  const merged = Object.entries({ ...process.env, ...env }).filter(
    (entry): entry is [string, string] => entry[1] !== undefined,
  )
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cliPath, ...args], { env: Object.fromEntries(merged) })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()))
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
    child.on('error', reject)
    child.on('close', (code) => {
      resolve({ code, stdout, stderr })
    })
  })
}

export interface ApiProcess {
  child: ChildProcess
  /** The bound origin, e.g. `http://127.0.0.1:41234`. */
  url: string
}

/** Starts `leadline serve --json` on a free port; resolves once it prints its URL. */
export function startApiProcess(databaseUrl: string, env: NodeJS.ProcessEnv = {}): Promise<ApiProcess> {
  if (!existsSync(cliPath)) throw new Error(`${cliPath} is missing: build the api package first (pnpm -r build)`)
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cliPath, 'serve', '--port', '0', '--db', databaseUrl, '--json'], {
      env: {
        ...process.env,
        LOG_LEVEL: 'warn',
        LEADLINE_STREAM_SECRET: TEST_STREAM_SECRET,
        LEADLINE_SECRET_KEY: TEST_SECRET_KEY,
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString()
      const match = /"url":"(http:\/\/[^"]+)"/.exec(stdout)
      if (match?.[1] !== undefined) resolve({ child, url: match[1].replace(/\/$/, '') })
    })
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString()
    })
    child.on('exit', (code) => {
      reject(new Error(`api process exited with ${String(code)} before listening:\n${stdout}${stderr}`))
    })
  })
}

/** Stops the processes and waits until each has exited. */
export async function stopApiProcesses(processes: ApiProcess[]): Promise<void> {
  await Promise.all(
    processes.map((p) => {
      // Killed by a signal, a process has no exit code, only its signal: it has exited all the same.
      if (p.child.exitCode !== null || p.child.signalCode !== null) return Promise.resolve()
      const exited = new Promise((resolve) => p.child.once('exit', resolve))
      p.child.kill('SIGTERM')
      return exited
    }),
  )
}
