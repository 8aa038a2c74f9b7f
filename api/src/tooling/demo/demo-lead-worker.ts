import { parentPort } from 'node:worker_threads'
import { demoLeadGenerator, type DemoLeadBatch } from './demo-lead-rows.js'
import type { DemoLeadRequest } from './demo-lead-source.js'

// Generates demo leads on a thread of its own, a batch per request (demo-lead-source.ts).

const port = parentPort
if (port === null) throw new Error('demo-lead-worker runs as a worker thread')
let next: ((size: number) => DemoLeadBatch) | undefined
port.on('message', (request: DemoLeadRequest) => {
  next ??= demoLeadGenerator(request.setting)
  port.postMessage(next(request.size))
})
