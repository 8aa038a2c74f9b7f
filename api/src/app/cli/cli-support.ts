import { loadConfig } from '../../platform/config.js'
import { findOrganization } from '../../crm/organizations/organization-repo.js'
import { isEmail } from '../../platform/text/text.js'
import { openDatabase, type Db, type Dialect, type OpenOptions } from '../../platform/data/database.js'
import { migrateToLatest } from '../../platform/data/migrate.js'
import { secretBoxFrom, type SecretBox } from '../../platform/security/secret-box.js'
import { required, UsageError } from './cli-command.js'

/** Runs `body`, reporting what it throws (a bad setting, say) as bad input. */
export function asUsage<T>(body: () => T): T {
  try {
    return body()
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error))
  }
}

export function email(value: string | undefined): string {
  const address = required(value, '--email EMAIL')
  if (!isEmail(address)) throw new UsageError(`--email: "${address}" is not a valid email address`)
  return address
}

/** `--org ORG_ID`: the organization a command acts in. */
export const ORG_OPTION: [flags: string, description: string] = ['--org <ORG_ID>', 'the organization (orga_…)']

/** The organization's id `--org` gives; it is required. */
export function orgId(value: string | undefined): string {
  return required(value, '--org ORG_ID')
}

export const NAME_OPTIONS: [flags: string, description: string][] = [
  ['--first-name <F>', "the user's first name, for a new user"],
  ['--last-name <L>', "the user's last name, for a new user"],
]

export function optionalName(value: string | undefined): string | null {
  const name = value?.trim() ?? ''
  return name === '' ? null : name
}

export function role(value: string | undefined): 'admin' | 'user' {
  if (value === undefined || value === 'user') return 'user'
  if (value === 'admin') return 'admin'
  throw new UsageError(`--role must be admin or user, got "${value}"`)
}

export function nonNegativeInt(value: string | undefined, flag: string, fallback: number, max: number): number {
  if (value === undefined) return fallback
  const n = Number(value)
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(n) || n > max) {
    throw new UsageError(`${flag} must be an integer from 0 to ${max}, got "${value}"`)
  }
  return n
}

/** The web app's base URL the links Leadline emails point into (LEADLINE_APP_URL). */
export function appUrl(env: NodeJS.ProcessEnv): string {
  return asUsage(() => loadConfig(env).appUrl)
}

export function secretBox(env: NodeJS.ProcessEnv): SecretBox | null {
  return asUsage(() => secretBoxFrom(env))
}

/** Aligned columns, indented by two spaces. */
export function table(rows: string[][]): string {
  const widths = rows[0]?.map((_, column) => Math.max(...rows.map((row) => row[column]?.length ?? 0))) ?? []
  return rows
    .map((row) => `  ${row.map((cell, column) => cell.padEnd(widths[column] ?? 0)).join('  ')}`.trimEnd())
    .join('\n')
}

/** Opens and migrates the database, runs `body`, and always closes the database. */
export async function withDatabase<T>(
  url: string,
  body: (db: Db, applied: string[], dialect: Dialect) => Promise<T>,
  options: OpenOptions = {},
): Promise<T> {
  const database = openDatabase(url, options)
  try {
    const applied = await migrateToLatest(database.db)
    return await body(database.db, applied, database.dialect)
  } finally {
    await database.close()
  }
}

export async function requireOrganization(db: Db, id: string): Promise<void> {
  if ((await findOrganization(db, id)) === undefined) throw new UsageError(`unknown organization "${id}"`)
}

/**
 * Reports a long job's progress on stderr, so `--json` output on stdout stays clean: a live line on a terminal,
 * every tenth elsewhere (nothing with --json).
 */
export function progress(json: boolean, doing: string, did: string): (done: number, total: number) => void {
  let shownTenth = -1
  return (done, total) => {
    if (process.stderr.isTTY) {
      process.stderr.write(`\r${doing} leads: ${done}/${total}${done === total ? '\n' : ''}`)
      return
    }
    const tenth = Math.floor((done * 10) / total)
    if (!json && tenth !== shownTenth) {
      shownTenth = tenth
      process.stderr.write(`${did} ${done}/${total} leads\n`)
    }
  }
}
