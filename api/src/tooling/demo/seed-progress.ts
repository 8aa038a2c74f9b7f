// How a seed reports its progress on stderr: a bar redrawn in place on a terminal (leads done of the total, the
// rate, the time left), a plain line every tenth of the way anywhere else (a log, a pipe, CI).

/** Where progress goes: a terminal gets the bar. */
export interface ProgressStream {
  isTTY?: boolean
  write(text: string): unknown
}

export interface SeedProgress {
  /** The leads written so far, of `total`. */
  onProgress: (done: number, total: number) => void
  /** Every lead is written; the indexes and the planner's statistics are being built. */
  onFinishing: () => void
  /** The seed is over (also after a failure): a terminal gets its line back. */
  end: () => void
}

const BAR_WIDTH = 24
/** A terminal is redrawn at most this often, in ms. */
const REDRAW_MS = 100

function duration(seconds: number): string {
  if (!Number.isFinite(seconds)) return '?'
  if (seconds < 60) return `${String(Math.max(0, Math.round(seconds)))} s`
  const minutes = Math.floor(seconds / 60)
  return `${String(minutes)} min ${String(Math.round(seconds - minutes * 60)).padStart(2, '0')} s`
}

function count(n: number): string {
  return n.toLocaleString('en-US')
}

/** The figures of one report: `done` of `total` leads after `elapsedMs`. */
export function progressFigures(done: number, total: number, elapsedMs: number) {
  const seconds = elapsedMs / 1000
  const rate = seconds > 0 ? done / seconds : 0
  return {
    fraction: total > 0 ? Math.min(1, done / total) : 1,
    rate,
    secondsLeft: rate > 0 ? (total - done) / rate : Number.POSITIVE_INFINITY,
  }
}

/** One line of the bar, as drawn on a terminal. */
export function progressBar(done: number, total: number, elapsedMs: number): string {
  const { fraction, rate, secondsLeft } = progressFigures(done, total, elapsedMs)
  const filled = Math.round(fraction * BAR_WIDTH)
  const bar = `${'█'.repeat(filled)}${'░'.repeat(BAR_WIDTH - filled)}`
  const eta = done >= total ? `${duration(elapsedMs / 1000)} elapsed` : `ETA ${duration(secondsLeft)}`
  return `seeding ${bar} ${count(done)}/${count(total)} leads  ${count(Math.round(rate))} leads/s  ${eta}`
}

/** One plain line, for logs. */
export function progressLine(done: number, total: number, elapsedMs: number): string {
  const { rate, secondsLeft } = progressFigures(done, total, elapsedMs)
  const left = done >= total ? '' : `, about ${duration(secondsLeft)} left`
  return `seeded ${count(done)}/${count(total)} leads (${count(Math.round(rate))} leads/s${left})`
}

export function seedProgress(stream: ProgressStream, now: () => number = () => performance.now()): SeedProgress {
  const started = now()
  const terminal = stream.isTTY === true
  let drawnAt = Number.NEGATIVE_INFINITY
  let shownTenth = -1
  let open = false
  return {
    onProgress: (done, total) => {
      const at = now()
      if (terminal) {
        if (done < total && at - drawnAt < REDRAW_MS) return
        drawnAt = at
        open = true
        // \x1b[K clears what a longer earlier line left to the right.
        stream.write(`\r${progressBar(done, total, at - started)}\x1b[K`)
        return
      }
      const tenth = Math.floor((done * 10) / Math.max(1, total))
      if (tenth === shownTenth) return
      shownTenth = tenth
      stream.write(`${progressLine(done, total, at - started)}\n`)
    },
    onFinishing: () => {
      const text = 'building indexes and statistics…'
      stream.write(terminal ? `  ${text}` : `${text}\n`)
    },
    end: () => {
      if (terminal && open) stream.write('\n')
      open = false
    },
  }
}
