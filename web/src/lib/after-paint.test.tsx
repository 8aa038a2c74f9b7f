// @vitest-environment jsdom
import { act, cleanup, render, screen } from '@testing-library/react'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { afterNextPaint, usePainted } from './after-paint'

// Frames are run by hand: each test decides when the browser paints.
let frames: Map<number, FrameRequestCallback>
let nextFrame: number

function paint(): void {
  const due = [...frames.values()]
  frames.clear()
  for (const callback of due) callback(performance.now())
}

beforeEach(() => {
  frames = new Map()
  nextFrame = 1
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] })
  vi.stubGlobal('requestAnimationFrame', (callback: FrameRequestCallback) => {
    const id = nextFrame++
    frames.set(id, callback)
    return id
  })
  vi.stubGlobal('cancelAnimationFrame', (id: number) => frames.delete(id))
})

afterEach(() => {
  cleanup()
  vi.useRealTimers()
  vi.unstubAllGlobals()
})

describe('afterNextPaint', () => {
  it('runs after the next frame has been painted, not before', () => {
    const run = vi.fn()
    afterNextPaint(run)
    vi.runAllTimers()
    expect(run).not.toHaveBeenCalled()
    paint()
    // The frame callback runs before the paint: the task it queued runs after it.
    expect(run).not.toHaveBeenCalled()
    vi.runAllTimers()
    expect(run).toHaveBeenCalledOnce()
  })

  it('never runs once cancelled, before the frame or between the frame and the task', () => {
    const early = vi.fn()
    afterNextPaint(early)()
    paint()
    vi.runAllTimers()
    expect(early).not.toHaveBeenCalled()

    const late = vi.fn()
    const cancel = afterNextPaint(late)
    paint()
    cancel()
    vi.runAllTimers()
    expect(late).not.toHaveBeenCalled()
  })
})

function Flag() {
  return <p>{usePainted() ? 'painted' : 'not yet'}</p>
}

describe('usePainted', () => {
  it('is false on the first render and true once its first frame is painted, and stays so', () => {
    const { rerender } = render(<Flag />)
    expect(screen.getByText('not yet')).toBeDefined()
    act(() => {
      paint()
      vi.runAllTimers()
    })
    expect(screen.getByText('painted')).toBeDefined()
    rerender(<Flag />)
    expect(screen.getByText('painted')).toBeDefined()
    expect(frames.size).toBe(0)
  })

  it('asks nothing more of the browser after it unmounts', () => {
    const { unmount } = render(<Flag />)
    expect(frames.size).toBe(1)
    unmount()
    expect(frames.size).toBe(0)
  })
})
