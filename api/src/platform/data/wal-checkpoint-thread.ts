import { parentPort, workerData } from 'node:worker_threads'
import SqliteDatabase from 'better-sqlite3'
import type { FromWalCheckpointThread, WalCheckpointData } from './wal-checkpointer.js'

// The WAL checkpointer's thread (wal-checkpointer.ts starts it, decision 0085): a connection of its own to the file,
// copying what the write-ahead log holds into the database every interval, beside the writers rather than inside
// their commits. Nothing else runs here: no schema, no application module.

const port = parentPort
if (port === null) throw new Error('wal-checkpoint-thread.js runs as a worker thread (wal-checkpointer.ts starts it).')
// Given by our own starter (wal-checkpointer.ts), not read from outside: its type is the starter's.
const data = workerData as WalCheckpointData

const post = (message: FromWalCheckpointThread) => {
  port.postMessage(message)
}

function open(): SqliteDatabase.Database | undefined {
  try {
    const connection = new SqliteDatabase(data.file, { fileMustExist: true })
    // A passive checkpoint waits for no one; the connection should not either, should SQLite ask it to.
    connection.pragma('busy_timeout = 0')
    return connection
  } catch (error) {
    post({ type: 'error', message: error instanceof Error ? error.message : String(error) })
    return undefined
  }
}

const opened = open()
// Not opened (a file that is not there): said above; the thread ends, and its starter hears that it did.
if (opened === undefined) port.close()
const db = opened

let failures = 0
function checkpoint(): void {
  if (db === undefined) return
  try {
    // Passive: copies the frames no reader still needs, never waiting on a reader or a writer.
    db.pragma('wal_checkpoint(PASSIVE)')
    failures = 0
  } catch (error) {
    // Busy or locked: another connection is checkpointing, or the file is being switched out of WAL; next time.
    const code = (error as { code?: unknown }).code
    if (code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED') return
    failures += 1
    // Said once, not every interval: a file that went away fails every time.
    if (failures === 1) post({ type: 'error', message: error instanceof Error ? error.message : String(error) })
  }
}

if (db !== undefined) {
  const timer = setInterval(checkpoint, data.intervalMs)
  // The one message there is (ToWalCheckpointThread): stop.
  port.on('message', () => {
    clearInterval(timer)
    checkpoint()
    db.close()
    port.close()
  })
  post({ type: 'started' })
}
