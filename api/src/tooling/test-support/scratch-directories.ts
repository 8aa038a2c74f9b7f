import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/** Temporary directories of a test file, for its own database files and the like. */
export interface ScratchDirectories {
  /** A new empty directory, `leadline-<prefix>-…` under the system's temporary directory. */
  make(): string
  /** Removes every directory made so far, with what is in them: after the handles on their files are closed. */
  removeAll(): void
}

/** Directories for a test file's scratch files, made one at a time and removed together (in an after hook). */
export function scratchDirectories(prefix: string): ScratchDirectories {
  const made: string[] = []
  return {
    make() {
      const dir = mkdtempSync(join(tmpdir(), `leadline-${prefix}-`))
      made.push(dir)
      return dir
    },
    removeAll() {
      for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true })
    },
  }
}
