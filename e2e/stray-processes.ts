import type { ChildProcess } from 'node:child_process'
import { appendFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

// The processes the stacks start, noted by pid so that the run's teardown can kill any a killed worker left behind.
// The runner (which outlives its workers) sets the file in its global setup; the workers inherit it.

const ENV = 'LEADLINE_E2E_PIDS'

/** The kernel's start time of a process (field 22 of /proc/<pid>/stat): with the pid, it names one process. */
function startTime(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${String(pid)}/stat`, 'utf8')
    // The command name (field 2) may hold spaces; the fields after its closing parenthesis do not.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]
  } catch {
    return undefined
  }
}

export function noteStarted(child: ChildProcess): void {
  const file = process.env[ENV]
  const { pid } = child
  if (file === undefined || pid === undefined) return
  const started = startTime(pid)
  if (started !== undefined) appendFileSync(file, `${String(pid)} ${started}\n`)
}

/** The run's global setup: makes the file, and answers the teardown that kills what is still running. */
export function watchStrayProcesses(): () => void {
  const dir = mkdtempSync(join(tmpdir(), 'leadline-e2e-pids-'))
  const file = join(dir, 'pids')
  process.env[ENV] = file
  return () => {
    let lines: string[] = []
    try {
      lines = readFileSync(file, 'utf8').split('\n')
    } catch {
      // No stack was started.
    }
    for (const line of lines) {
      const [pid, started] = line.split(' ')
      if (pid === undefined || started === undefined || startTime(Number(pid)) !== started) continue
      process.stderr.write(`stopping process ${pid}, left running by a journey's worker\n`)
      process.kill(Number(pid), 'SIGKILL')
    }
    rmSync(dir, { recursive: true, force: true })
  }
}
