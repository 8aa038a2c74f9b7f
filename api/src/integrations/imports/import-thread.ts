import { parentPort, workerData } from 'node:worker_threads'
import { openDatabase } from '../../platform/data/database.js'
import { systemClock } from '../../platform/data/time.js'
import { walAutocheckpoint } from '../../platform/data/wal-checkpointer.js'
import { outboxSink } from '../outbox/outbox-writer.js'
import { createImportWorker, importRequested } from './import-worker.js'
import type { FromImportThread, ImportThreadData, ToImportThread } from './import-thread-host.js'

// The import thread (decision 0053): the import worker of an api process, on a thread of its own with its own
// database connection and a bounded heap (import-thread-host.ts starts it, and starts it again if it dies). What it
// writes goes through the same worker, sink and lease as in-process; only the messages below cross the thread.

const port = parentPort
if (port === null) throw new Error('import-thread.js runs as a worker thread (import-thread-host.ts starts it).')
// Given by our own host (import-thread-host.ts), not read from outside: its type is the host's.
const data = workerData as ImportThreadData

const post = (message: FromImportThread) => {
  port.postMessage(message)
}

const database = openDatabase(data.databaseUrl, {
  sqliteCacheMb: data.sqliteCacheMb,
  ...(data.writeLockBuffer === undefined
    ? {}
    : { writeLock: { buffer: data.writeLockBuffer, party: 'import' as const } }),
})
// Statement journals in memory: a statement that deletes or updates rows with triggers and cascades (an undo's lead
// delete, an update run's lead) keeps a copy of each page it changes until it ends, and past 64 KiB SQLite writes that
// copy to a temporary file it creates and removes each time. An undo of 20,000 leads took 34.5 s that way and 25.8 s
// with them in memory. This connection runs only bounded statements (a batch's rows, a lead's delete), so no sort of
// it holds much either.
database.sqlite?.prepare('pragma temp_store = memory').run([])
// A checkpointer thread copies the log into the file beside this one (decision 0085); this connection's commits do
// so themselves only past the backstop. A setting of this connection alone, set on it straight (not behind the write
// lock, which a busy api could hold for long).
if (database.sqlite !== undefined && data.walBackstopPages !== undefined) {
  walAutocheckpoint(database.sqlite, data.walBackstopPages)
}
const worker = createImportWorker({
  db: database.db,
  dialect: database.dialect,
  reader: database.reader,
  clock: systemClock,
  appUrl: data.appUrl,
  owner: data.owner,
  ...(data.batchSize === undefined ? {} : { batchSize: data.batchSize }),
  // The outbox writer, as app.ts gives the api's requests: the events of a batch go out in its transaction.
  sink: outboxSink(data.leadWebhookUrl),
  onError: (error, what) => {
    post({
      type: 'error',
      what,
      message: error instanceof Error ? error.message : String(error),
      stack: error instanceof Error ? error.stack : undefined,
    })
  },
})

let stopping: Promise<void> | undefined
port.on('message', (message: ToImportThread) => {
  if (message.type === 'requested') importRequested()
  else {
    // The job under way gives its lease back; the connection closes; then the thread ends by itself.
    stopping ??= worker
      .stop()
      .finally(() => database.close())
      .then(() => {
        post({ type: 'stopped' })
        port.close()
      })
  }
})
worker.start()
post({ type: 'started' })
