import { createRawServer } from './raw-server.js'

// Runs the raw limit server (raw-server.ts) as a process of its own, so it does not share the load generator's
// thread. Prints {"url"} on stdout once listening; SIGTERM stops it.

const file = process.env.LEADLINE_BENCH_RAW_DB
const authorization = process.env.LEADLINE_BENCH_AUTHORIZATION
if (file === undefined || authorization === undefined) {
  process.stderr.write('raw-server-main needs LEADLINE_BENCH_RAW_DB and LEADLINE_BENCH_AUTHORIZATION\n')
  process.exit(2)
}
const server = createRawServer(file, authorization)
server.listen(0, '127.0.0.1', () => {
  const address = server.address()
  const port = typeof address === 'object' && address !== null ? address.port : 0
  process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${String(port)}` })}\n`)
})
process.on('SIGTERM', () => {
  server.close()
  server.closeAllConnections()
})
