import { once } from 'node:events'
import { Worker } from 'node:worker_threads'
import { describe, expect, it } from 'vitest'
import { threadExecArgv } from './import-thread-host.js'

// The import thread is started with the api's node flags; an api started as npm start starts it (decision 0079)
// carries V8 heap flags, which Node refuses for a worker.

const API_FLAGS = [
  '--max-semi-space-size=4',
  '--max_old_space_size=300',
  '--expose-gc',
  '--heap-growing-percent=50',
  '--conditions',
  'development',
  '--enable-source-maps',
]

describe('threadExecArgv', () => {
  it("keeps the api's Node flags and leaves out V8's heap flags and --conditions", () => {
    expect(threadExecArgv(API_FLAGS)).toEqual(['--enable-source-maps'])
    expect(threadExecArgv(['--cpu-prof', '--cpu-prof-dir=prof', '-C=x'])).toEqual(['--cpu-prof', '--cpu-prof-dir=prof'])
  })

  it('gives flags a worker starts with, where the api flags themselves are refused', async () => {
    expect(() => new Worker('0', { eval: true, execArgv: API_FLAGS.slice(0, 1) })).toThrow(
      expect.objectContaining({ code: 'ERR_WORKER_INVALID_EXEC_ARGV' }),
    )
    const worker = new Worker('0', { eval: true, execArgv: threadExecArgv(API_FLAGS) })
    const [code] = await once(worker, 'exit')
    expect(code).toBe(0)
  })
})
