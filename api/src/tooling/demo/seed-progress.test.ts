import { describe, expect, it } from 'vitest'
import { progressBar, progressLine, seedProgress } from './seed-progress.js'

function recorder(isTTY: boolean) {
  const written: string[] = []
  return { isTTY, written, write: (text: string) => written.push(text) }
}

describe('the seed progress bar', () => {
  it('shows leads done of the total, the rate and the time left', () => {
    expect(progressBar(25_000, 100_000, 5_000)).toBe(
      'seeding ██████░░░░░░░░░░░░░░░░░░ 25,000/100,000 leads  5,000 leads/s  ETA 15 s',
    )
    expect(progressBar(100_000, 100_000, 80_000)).toBe(
      'seeding ████████████████████████ 100,000/100,000 leads  1,250 leads/s  1 min 20 s elapsed',
    )
    expect(progressBar(0, 10, 0)).toContain('0/10 leads  0 leads/s  ETA ?')
  })

  it('redraws one line on a terminal at most every 100 ms, always at the end, and gives the line back', () => {
    const stream = recorder(true)
    let clock = 0
    const progress = seedProgress(stream, () => clock)
    clock = 1000
    progress.onProgress(4000, 10_000)
    clock = 1050
    progress.onProgress(8000, 10_000)
    clock = 1060
    progress.onProgress(10_000, 10_000)
    progress.onFinishing()
    progress.end()
    expect(stream.written).toEqual([
      `\r${progressBar(4000, 10_000, 1000)}\x1b[K`,
      `\r${progressBar(10_000, 10_000, 1060)}\x1b[K`,
      '  building indexes and statistics…',
      '\n',
    ])
  })

  it('writes a plain line every tenth of the way elsewhere', () => {
    const stream = recorder(false)
    let clock = 0
    const progress = seedProgress(stream, () => clock)
    for (let done = 4000; done <= 100_000; done += 4000) {
      clock = done / 2
      progress.onProgress(done, 100_000)
    }
    progress.onFinishing()
    progress.end()
    expect(stream.written).toHaveLength(12)
    expect(stream.written[0]).toBe(`${progressLine(4000, 100_000, 2000)}\n`)
    expect(stream.written[0]).toBe('seeded 4,000/100,000 leads (2,000 leads/s, about 48 s left)\n')
    expect(stream.written[10]).toBe('seeded 100,000/100,000 leads (2,000 leads/s)\n')
    expect(stream.written[11]).toBe('building indexes and statistics…\n')
  })

  it('gives a terminal nothing to clean up when nothing was drawn', () => {
    const stream = recorder(true)
    seedProgress(stream).end()
    expect(stream.written).toEqual([])
  })
})
