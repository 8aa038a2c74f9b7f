import { loadConfig } from '../../platform/config.js'
import { openDatabase } from '../../platform/data/database.js'
import { migrateToLatest } from '../../platform/data/migrate.js'
import { systemClock } from '../../platform/data/time.js'
import { importFromClose, IMPORT_KINDS, type ImportReport } from '../../tooling/close-import/close-import.js'
import { closeSource } from '../../tooling/close-import/close-source.js'
import { leadlineCommand, required, UsageError } from './cli-command.js'
import { asUsage, orgId, requireOrganization, table } from './cli-support.js'

export const CLOSE_BASE_URL = 'https://api.close.com/api/v1'
// Enough to see what went wrong; --json lists every one.
const PROBLEMS_SHOWN = 50

function baseUrl(value: string | undefined): string {
  if (value === undefined) return CLOSE_BASE_URL
  const given = required(value, '--base-url URL')
  let url: URL
  try {
    url = new URL(given)
  } catch {
    throw new UsageError(`--base-url: "${given}" is not a URL`)
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new UsageError(`--base-url: "${given}" is not an http or https URL`)
  }
  if (url.search !== '' || url.hash !== '') throw new UsageError(`--base-url: "${given}" has a query or fragment`)
  return given.replace(/\/+$/, '')
}

function reportText(report: ImportReport): string {
  const rows = [
    ['kind', 'created', 'updated', 'already there', 'failed', 'not copied'],
    ...IMPORT_KINDS.map((kind) => {
      const c = report.kinds[kind]
      return [kind, c.created, c.updated, c.unchanged, c.failed, c.not_copied].map(String)
    }),
  ]
  const lines = [`Copied ${report.source} into ${report.organization_id}:`, table(rows)]
  lines.push(
    report.users.unmatched.length === 0
      ? `Users: all ${report.users.matched} matched to members by email.`
      : `Users: ${report.users.matched} matched by email; not members here (their objects were written as ${report.imported_as}, with no user where Leadline allows none): ${report.users.unmatched.join(', ')}.`,
  )
  if (report.problems.length === 0) {
    lines.push('Everything was copied.')
  } else {
    lines.push(`Not brought (${report.problems.length}):`)
    for (const p of report.problems.slice(0, PROBLEMS_SHOWN)) lines.push(`  ${p.kind} ${p.source_id}: ${p.reason}`)
    if (report.problems.length > PROBLEMS_SHOWN) {
      lines.push(`  … and ${report.problems.length - PROBLEMS_SHOWN} more (--json lists them all)`)
    }
  }
  return lines.join('\n')
}

export function importCloseCommand() {
  return leadlineCommand({
    name: 'close',
    usage: '--api-key-env VAR [--base-url URL] --org ORG_ID',
    summary: 'copy an organization from Close, or any Close-compatible API, into one here',
    options: [
      ['--api-key-env <VAR>', 'the environment variable holding the source API key (never on the command line)'],
      ['--base-url <URL>', `the source API; default ${CLOSE_BASE_URL}`],
      ['--org <ORG_ID>', 'the organization to copy into (orga_…), as every command names one'],
    ],
    notes: `Copies users (matched by email to the organization's members), lead statuses, pipelines with their
opportunity statuses, custom fields (by name), leads with contacts, addresses and custom values, opportunities, tasks,
notes, calls and emails, through Leadline's own write paths. Run it again and nothing is doubled: what a run copied is
remembered per source, leads and contacts are updated, the rest is left as it is. Progress goes to stderr; at the end
a report of what was copied and what could not be, and why. Waits as the source asks on 429, retries 5xx, stops at
once on 401. Exit code 0 when everything was copied, 1 when something could not be.
Prints {"organization_id","source","imported_as","users":{"matched","unmatched"},"kinds":{KIND:{"created",
"updated","unchanged","failed","not_copied"}},"problems":[{"kind","source_id","reason"}]}.`,
    async run(input) {
      const organizationId = orgId(input.string('--org'))
      const keyVar = required(input.string('--api-key-env'), '--api-key-env VAR')
      const apiKey = input.env[keyVar]
      if (apiKey === undefined || apiKey.trim() === '') {
        throw new UsageError(`--api-key-env ${keyVar}: that environment variable is not set`)
      }
      const base = baseUrl(input.string('--base-url'))
      const config = asUsage(() => ({ ...loadConfig(input.env), databaseUrl: input.databaseUrl() }))
      const log = (line: string) => process.stderr.write(`${line}\n`)
      const database = openDatabase(config.databaseUrl)
      let report: ImportReport
      try {
        await migrateToLatest(database.db)
        await requireOrganization(database.db, organizationId)
        report = await importFromClose({
          database,
          config,
          clock: systemClock,
          organizationId,
          source: closeSource({ baseUrl: base, apiKey: apiKey.trim(), onWait: log }),
          log,
        })
      } finally {
        await database.close()
      }
      return {
        json: { ...report },
        text: reportText(report),
        ...(report.problems.length > 0 ? { exitCode: 1 } : {}),
      }
    },
  })
}
