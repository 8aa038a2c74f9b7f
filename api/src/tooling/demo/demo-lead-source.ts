import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { Worker } from 'node:worker_threads'
import { demoLeadGenerator, type DemoLeadBatch, type DemoLeadSetting } from './demo-lead-rows.js'

// Generating a lead's rows and its search row costs about half as much as writing them. On a worker thread it
// overlaps with the writes.

/** Asks the worker for the next `size` leads; every request carries the setting, the first one uses it. */
export interface DemoLeadRequest {
  setting: DemoLeadSetting
  size: number
}

/** The demo leads of one seed, a batch at a time, in order. */
export interface DemoLeadSource {
  next(size: number): Promise<DemoLeadBatch>
  close(): Promise<void>
}

const workerFile = fileURLToPath(new URL('./demo-lead-worker.js', import.meta.url))

/**
 * Leads generated on a worker thread when this module runs compiled (the worker is its sibling .js file). Run from
 * the TypeScript sources, as the tests do, they are generated on the calling thread: a worker cannot load
 * TypeScript. Either way they come from `demoLeadGenerator`.
 */
export function demoLeadSource(setting: DemoLeadSetting): DemoLeadSource {
  return existsSync(workerFile) ? workerSource(setting) : inThreadSource(setting)
}

export function inThreadSource(setting: DemoLeadSetting): DemoLeadSource {
  const next = demoLeadGenerator(setting)
  return {
    next: (size) => Promise.resolve(next(size)),
    close: () => Promise.resolve(),
  }
}

function workerSource(setting: DemoLeadSetting): DemoLeadSource {
  const worker = new Worker(workerFile)
  // Replies come in the order of the requests.
  const waiting: { resolve: (batch: DemoLeadBatch) => void; reject: (error: Error) => void }[] = []
  let failure: Error | undefined
  const fail = (error: Error) => {
    failure ??= error
    for (const request of waiting.splice(0)) request.reject(error)
  }
  worker.on('message', (batch: DemoLeadBatch) => waiting.shift()?.resolve(batch))
  worker.on('error', fail)
  worker.on('exit', (code) => {
    fail(new Error(`the demo lead worker stopped (exit code ${String(code)})`))
  })
  return {
    next: (size) =>
      new Promise((resolve, reject) => {
        if (failure !== undefined) {
          reject(failure)
          return
        }
        waiting.push({ resolve, reject })
        const request: DemoLeadRequest = { setting, size }
        worker.postMessage(request)
      }),
    close: async () => {
      await worker.terminate()
    },
  }
}
