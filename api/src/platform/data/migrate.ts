import { setTimeout as sleep } from 'node:timers/promises'
import { Migrator, sql, type Migration, type MigrationProvider, type MigrationResultSet } from 'kysely'
import type { Db } from './database.js'
import * as m0001 from './migrations/0001-foundation.js'
import * as m0002 from './migrations/0002-leads.js'
import * as m0003 from './migrations/0003-org-scoped-indexes.js'
import * as m0004 from './migrations/0004-app-state.js'
import * as m0005 from './migrations/0005-cache-versions.js'
import * as m0006 from './migrations/0006-lead-search-fields.js'
import * as m0007 from './migrations/0007-lead-counts.js'
import * as m0008 from './migrations/0008-rate-limit-leases.js'
import * as m0009 from './migrations/0009-opportunities.js'
import * as m0010 from './migrations/0010-opportunity-rollup.js'
import * as m0011 from './migrations/0011-pipeline-authors.js'
import * as m0012 from './migrations/0012-tasks.js'
import * as m0013 from './migrations/0013-events.js'
import * as m0014 from './migrations/0014-webhook-subscriptions.js'
import * as m0015 from './migrations/0015-outbox.js'
import * as m0016 from './migrations/0016-event-object-type.js'
import * as m0017 from './migrations/0017-outcomes.js'
import * as m0019 from './migrations/0019-inbound.js'
import * as m0020 from './migrations/0020-email-accounts.js'
import * as m0021 from './migrations/0021-email-templates.js'
import * as m0022 from './migrations/0022-emails.js'
import * as m0023 from './migrations/0023-email-attachments.js'
import * as m0024 from './migrations/0024-email-attachment-uploads.js'
import * as m0025 from './migrations/0025-email-address-owners.js'
import * as m0026 from './migrations/0026-email-sender-check.js'
import * as m0027 from './migrations/0027-sealed-secrets.js'
import * as m0028 from './migrations/0028-accounts.js'
import * as m0029 from './migrations/0029-invitations.js'
import * as m0030 from './migrations/0030-two-factor.js'
import * as m0031 from './migrations/0031-single-sign-on.js'
import * as m0032 from './migrations/0032-user-time-zone.js'
import * as m0033 from './migrations/0033-outcome-order.js'
import * as m0034 from './migrations/0034-custom-field-positions.js'
import * as m0035 from './migrations/0035-email-account-last-error.js'
import * as m0036 from './migrations/0036-contact-order.js'
import * as m0037 from './migrations/0037-event-meta.js'
import * as m0038 from './migrations/0038-exports.js'
import * as m0039 from './migrations/0039-imports.js'
import * as m0040 from './migrations/0040-import-mappings.js'
import * as m0041 from './migrations/0041-saved-searches.js'
import * as m0042 from './migrations/0042-bulk-actions.js'
import * as m0043 from './migrations/0043-lead-duplicates.js'
import * as m0044 from './migrations/0044-lead-last-activity.js'
import * as m0045 from './migrations/0045-lead-changes.js'
import * as m0046 from './migrations/0046-lead-tombstone-pruning.js'
import * as m0047 from './migrations/0047-opportunity-rollup-by-day.js'
import * as m0048 from './migrations/0048-lead-activity-changes.js'
import * as m0049 from './migrations/0049-task-inbox-covering.js'
import * as m0050 from './migrations/0050-audit-log.js'
import * as m0051 from './migrations/0051-lead-search-phones.js'
import * as m0052 from './migrations/0052-phone-lookup-covering.js'
import * as m0053 from './migrations/0053-activity-last-of-lead.js'
import * as m0054 from './migrations/0054-activity-type-order.js'
import * as m0055 from './migrations/0055-activity-contact-task-indexes.js'
import * as m0056 from './migrations/0056-opportunity-order-indexes.js'
import * as m0057 from './migrations/0057-opportunity-status-order-index.js'
import * as m0058 from './migrations/0058-opportunity-rollup-totals.js'
import * as m0059 from './migrations/0059-foreign-key-indexes.js'
import * as m0060 from './migrations/0060-search-index-merges.js'

// Migrations are listed here rather than read from the folder so the built CLI needs no file-system lookups.
const migrations: Record<string, Migration> = {
  '0001-foundation': m0001,
  '0002-leads': m0002,
  '0003-org-scoped-indexes': m0003,
  '0004-app-state': m0004,
  '0005-cache-versions': m0005,
  '0006-lead-search-fields': m0006,
  '0007-lead-counts': m0007,
  '0008-rate-limit-leases': m0008,
  '0009-opportunities': m0009,
  '0010-opportunity-rollup': m0010,
  '0011-pipeline-authors': m0011,
  '0012-tasks': m0012,
  '0013-events': m0013,
  '0014-webhook-subscriptions': m0014,
  '0015-outbox': m0015,
  '0016-event-object-type': m0016,
  '0017-outcomes': m0017,
  '0019-inbound': m0019,
  '0020-email-accounts': m0020,
  '0021-email-templates': m0021,
  '0022-emails': m0022,
  '0023-email-attachments': m0023,
  '0024-email-attachment-uploads': m0024,
  '0025-email-address-owners': m0025,
  '0026-email-sender-check': m0026,
  '0027-sealed-secrets': m0027,
  '0028-accounts': m0028,
  '0029-invitations': m0029,
  '0030-two-factor': m0030,
  '0031-single-sign-on': m0031,
  '0032-user-time-zone': m0032,
  '0033-outcome-order': m0033,
  '0034-custom-field-positions': m0034,
  '0035-email-account-last-error': m0035,
  '0036-contact-order': m0036,
  '0037-event-meta': m0037,
  '0038-exports': m0038,
  '0039-imports': m0039,
  '0040-import-mappings': m0040,
  '0041-saved-searches': m0041,
  '0042-bulk-actions': m0042,
  '0043-lead-duplicates': m0043,
  '0044-lead-last-activity': m0044,
  '0045-lead-changes': m0045,
  '0046-lead-tombstone-pruning': m0046,
  '0047-opportunity-rollup-by-day': m0047,
  '0048-lead-activity-changes': m0048,
  '0049-task-inbox-covering': m0049,
  '0050-audit-log': m0050,
  '0051-lead-search-phones': m0051,
  '0052-phone-lookup-covering': m0052,
  '0053-activity-last-of-lead': m0053,
  '0054-activity-type-order': m0054,
  '0055-activity-contact-task-indexes': m0055,
  '0056-opportunity-order-indexes': m0056,
  '0057-opportunity-status-order-index': m0057,
  '0058-opportunity-rollup-totals': m0058,
  '0059-foreign-key-indexes': m0059,
  '0060-search-index-merges': m0060,
}

const provider: MigrationProvider = { getMigrations: () => Promise.resolve(migrations) }

function migrator(db: Db): Migrator {
  return new Migrator({
    db,
    provider,
    migrationTableName: 'leadline_migration',
    migrationLockTableName: 'leadline_migration_lock',
  })
}

function applied({ error, results }: MigrationResultSet): string[] {
  if (error !== undefined) throw error instanceof Error ? error : new Error('Migration failed', { cause: error })
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName)
}

/** How long a process waits for another's migrations of the same SQLite file (a large file's may take minutes). */
const SQLITE_MIGRATION_WAIT_MS = 15 * 60_000

/** `begin immediate`, again while another process holds the file's write lock (each try waits busy_timeout). */
async function beginImmediate(connection: Db, waitMs: number): Promise<void> {
  const until = Date.now() + waitMs
  for (;;) {
    try {
      await sql`begin immediate`.execute(connection)
      return
    } catch (error) {
      const busy = error instanceof Error && 'code' in error && String(error.code).startsWith('SQLITE_BUSY')
      if (!busy || Date.now() >= until) throw error
      await sleep(50)
    }
  }
}

/**
 * Runs a migrator's step. On Postgres Kysely runs it in one transaction under an advisory lock. On SQLite Kysely
 * takes no lock (it counts on one process), so two api processes starting on one new file both applied the same
 * migration and one failed ("duplicate column name": 19 of 60 `leadline migrate` runs two at a time): there the
 * step runs in one `begin immediate` transaction, which another process waits for and then finds nothing left to
 * do. A failing migration is rolled back with those before it in the same run, so no half of one stays.
 */
async function migrating(db: Db, step: (migrator: Migrator) => Promise<MigrationResultSet>): Promise<string[]> {
  if (db.getExecutor().adapter.supportsTransactionalDdl) return applied(await step(migrator(db)))
  return db.connection().execute(async (connection) => {
    await beginImmediate(connection, SQLITE_MIGRATION_WAIT_MS)
    let result: MigrationResultSet
    try {
      result = await step(migrator(connection))
    } catch (error) {
      await sql`rollback`.execute(connection)
      throw error
    }
    await (result.error === undefined ? sql`commit` : sql`rollback`).execute(connection)
    return applied(result)
  })
}

export async function migrateToLatest(db: Db): Promise<string[]> {
  return migrating(db, (m) => m.migrateToLatest())
}

/** Migrates up to `name` and no further: a test of a migration fills the schema before it first. */
export async function migrateUpTo(db: Db, name: string): Promise<string[]> {
  return migrating(db, (m) => m.migrateTo(name))
}

/**
 * How the database's migrations compare with this build's: `pending`, this build's not yet applied; `unknown`,
 * applied by a newer build this one does not know (for `/readyz`: either means this process should not serve).
 */
export async function migrationState(db: Db): Promise<{ pending: string[]; unknown: string[] }> {
  const { rows } = await sql<{ name: string }>`select name from leadline_migration`.execute(db)
  const applied = new Set(rows.map((row) => row.name))
  return {
    pending: Object.keys(migrations).filter((name) => !applied.has(name)),
    unknown: [...applied].filter((name) => !(name in migrations)).sort(),
  }
}
