import { expect, test } from 'vitest'
import { withDeadline } from './deadline.js'

test('the work’s answer when it comes in time, the late value when it does not, and its rejection as it is', async () => {
  expect(await withDeadline(Promise.resolve('done'), 1000, 'late')).toBe('done')
  expect(await withDeadline(new Promise(() => undefined), 20, 'late')).toBe('late')
  const slow = new Promise((resolve) => setTimeout(resolve, 200, 'slow'))
  expect(await withDeadline(slow, 20, undefined)).toBeUndefined()
  await expect(withDeadline(Promise.reject(new Error('broken')), 1000, 'late')).rejects.toThrow('broken')
})
