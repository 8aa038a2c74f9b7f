import type { ChildProcess } from 'node:child_process'
import { expect, startStack, test, withStack } from '../fixtures.js'

// The stack every journey signs in to: whatever fails, no process it started outlives it.
const exited = (child: ChildProcess) => child.exitCode !== null || child.signalCode !== null

test('when the bff cannot start, the api started before it is stopped too', async () => {
  let processes: ChildProcess[] = []
  const failing = withStack(
    (dir, started) => {
      processes = started
      return startStack(dir, started, { bffEnv: { LOG_LEVEL: 'loud' } })
    },
    () => Promise.resolve(),
  )
  await expect(failing).rejects.toThrow(/exited/)
  expect(processes).toHaveLength(2)
  expect(processes.filter(exited)).toHaveLength(2)
})

test('when a journey fails, the api and the bff are stopped', async () => {
  let processes: ChildProcess[] = []
  const failing = withStack(
    (dir, started) => {
      processes = started
      return startStack(dir, started)
    },
    async (stack) => {
      expect((await fetch(`${stack.baseURL}/healthz`)).status).toBe(200)
      throw new Error('the journey failed')
    },
  )
  await expect(failing).rejects.toThrow('the journey failed')
  expect(processes).toHaveLength(2)
  expect(processes.filter(exited)).toHaveLength(2)
})
