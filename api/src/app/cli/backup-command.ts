import { resolve } from 'node:path'
import { BackupRefused, backupDatabase, restoreDatabase, type BackupResult } from '../../platform/data/backup.js'
import { leadlineCommand, required, UsageError } from './cli-command.js'

async function refusedAsUsage(work: () => Promise<BackupResult>): Promise<BackupResult> {
  try {
    return await work()
  } catch (error) {
    throw error instanceof BackupRefused ? new UsageError(error.message) : error
  }
}

function json(result: BackupResult): Record<string, unknown> {
  return { file: result.file, kind: result.kind, bytes: result.bytes, migrations: result.migrations }
}

export function backupCommand() {
  return leadlineCommand({
    name: 'backup',
    usage: 'FILE',
    summary: 'copy the database into FILE while the api serves',
    argument: ['FILE', 'a new file for the copy (refused if it exists)'],
    notes: `SQLite: the online backup API copies every page in one read, a consistent copy however the api writes,
checked by SQLite before it is named FILE. Postgres: pg_dump's custom format (one snapshot); without pg_dump on the
PATH it prints the command to run. Keep LEADLINE_SECRET_KEY with the copy: the secrets stored in it are sealed
under that key. Prints {"file","kind","bytes","migrations"}.`,
    async run(input) {
      const file = resolve(required(input.args[0], 'FILE'))
      const result = await refusedAsUsage(() => backupDatabase(input.databaseUrl(), file))
      return {
        json: json(result),
        text: `Backed up to ${result.file} (${result.kind}, ${String(result.bytes)} bytes).`,
      }
    },
  })
}

export function restoreCommand() {
  return leadlineCommand({
    name: 'restore',
    usage: 'FILE',
    summary: 'restore a copy made by "leadline backup" into an empty database',
    argument: ['FILE', 'a copy made by "leadline backup"'],
    notes: `The database (--db) must be empty: a new SQLite file, or a Postgres database with no tables. A SQLite copy
goes into a sqlite: database, a pg_dump archive into a postgres:// one (with pg_restore; without it on the PATH the
command to run is printed). Start the api with the LEADLINE_SECRET_KEY the copy was made under; it applies the
migrations of a newer build at start. Prints {"file","kind","bytes","migrations"}.`,
    async run(input) {
      const file = resolve(required(input.args[0], 'FILE'))
      const result = await refusedAsUsage(() => restoreDatabase(input.databaseUrl(), file))
      return {
        json: json(result),
        text: `Restored ${result.file} (${result.kind}, ${String(result.migrations)} migrations).`,
      }
    },
  })
}
