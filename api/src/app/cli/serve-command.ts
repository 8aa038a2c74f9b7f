import { setFlagsFromString } from 'node:v8'
import { loadConfig, type Config } from '../../platform/config.js'
import { closeOnSignals, serve } from '../main.js'
import { leadlineCommand, required } from './cli-command.js'
import { asUsage, nonNegativeInt } from './cli-support.js'

export function serveCommand() {
  return leadlineCommand({
    name: 'serve',
    usage: '[--port N] [--host H]',
    summary: 'run the API server',
    options: [
      ['--port <N>', 'port to listen on (0 picks a free one); default $API_PORT, else 4000'],
      ['--host <H>', 'address to bind; default $HOST, else 127.0.0.1'],
    ],
    notes: `Migrates the database first. Logs "listening on <url>" when ready; with --json the log goes to stderr and
stdout gets {"url"}. GET /healthz and /readyz answer load balancers; /readyz is 503 until the lead search indexes
are built ($LEADLINE_LEAD_INDEX_WARMUP, default 1). SIGTERM or SIGINT turns /readyz 503, serves on
for $LEADLINE_DRAIN_SECONDS (default 0), finishes in-flight requests and exits 0; a second signal exits at once.`,
    async run(input) {
      const givenPort = input.string('--port')
      const givenHost = input.string('--host')
      const port = givenPort === undefined ? undefined : nonNegativeInt(givenPort, '--port', 0, 65535)
      const host = givenHost === undefined ? undefined : required(givenHost, '--host H')
      const config: Config = asUsage(() => ({ ...loadConfig(input.env), databaseUrl: input.databaseUrl() }))
      // This process's own garbage collector, set here and not in `serve` (which tests run inside their workers).
      if (config.heapGrowthPercent !== 'v8') {
        setFlagsFromString(`--heap-growing-percent=${String(config.heapGrowthPercent)}`)
      }
      const server = await serve({
        config,
        ...(port === undefined ? {} : { port }),
        ...(host === undefined ? {} : { host }),
        logTo: input.json ? 'stderr' : 'stdout',
      })
      closeOnSignals(server)
      if (input.json) process.stdout.write(`${JSON.stringify({ url: server.url })}\n`)
      return undefined
    },
  })
}
