#!/usr/bin/env node
import { randomBytes } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { parseArgs, type ParseArgsConfig } from 'node:util'
import { createApiKey, revokeApiKey } from '../../platform/security/api-key-repo.js'
import { loadConfig, type Config } from '../../platform/config.js'
import { DEFAULT_DATABASE_URL, inTransaction, openDatabase, type Db } from '../../platform/data/database.js'
import { migrateToLatest } from '../../platform/data/migrate.js'
import { seedDemoLeads } from '../../tooling/demo/demo-leads.js'
import { seedDemoOrganization } from '../../tooling/demo/demo-seed.js'
import { seedDemoTasks } from '../../tooling/demo/demo-tasks.js'
import { seedProgress } from '../../tooling/demo/seed-progress.js'
import {
  ensureLeadSearchCurrent,
  rebuildLeadSearch,
  SEARCH_DOCUMENT_VERSION,
} from '../../crm/leads/lead-search-index.js'
import { closeOnSignals, serve } from '../main.js'
import { findOrganization } from '../../crm/organizations/organization-repo.js'
import { provisionMember, provisionOrganization } from '../../crm/organizations/provision.js'
import { ValidationError } from '../../platform/http/errors.js'
import {
  clearLeadWebhookUrl,
  leadWebhookSigningKey,
  parseLeadWebhookUrl,
  readLeadWebhook,
  resetLeadWebhookUrl,
  setLeadWebhookUrl,
  type LeadWebhookSetting,
} from '../../integrations/outbox/lead-webhook.js'
import { standardWebhooksSecret } from '../../integrations/outbox/outbox-signing.js'
import { inboundSecret, inboundSecretView, rotateInboundSecret } from '../../telephony/inbound/inbound-secret.js'
import type { InboundSecretTable } from '../../platform/data/database.js'
import { checkedForMember, checkedPassword } from '../../email/accounts/email-account-input.js'
import {
  AddressTakenError,
  DuplicateEmailAccountError,
  explainAddressConflict,
  emailAccountsQuery,
  emailAccountViews,
  insertEmailAccount,
} from '../../email/accounts/email-account-repo.js'
import { secretBoxFrom, type SecretBox } from '../../platform/security/secret-box.js'
import { resealSecrets } from '../../platform/security/stored-secrets.js'
import { formatTimestamp, systemClock } from '../../platform/data/time.js'
import { startMailCatcher } from '../../email/send/mail-catcher.js'
import { isEmail } from '../../platform/text/text.js'

/** Bad input: reported with the command's usage hint, exit code 2. */
class UsageError extends Error {
  override name = 'UsageError'
}

/** What a command prints: `json` with `--json`, `text` otherwise. */
interface Output {
  json: Record<string, unknown>
  text: string
}

interface Command {
  usage: string
  summary: string
  details: string
  /** Resolves to undefined when the command keeps running (serve, mail-catcher). */
  run(args: string[], env: NodeJS.ProcessEnv): Promise<Output | undefined>
}

const common = {
  db: { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const

const COMMON_HELP = `  --db URL   sqlite:<path> or postgres://…; default $DATABASE_URL, else ${DEFAULT_DATABASE_URL}
  --json     print exactly one JSON object on stdout
  --help     show this help`

function parse<T extends ParseArgsConfig>(config: T): ReturnType<typeof parseArgs<T>> {
  try {
    return parseArgs(config)
  } catch (error) {
    // parseArgs reports bad flags as TypeErrors with ERR_PARSE_ARGS_* codes.
    if (error instanceof TypeError && 'code' in error && String(error.code).startsWith('ERR_PARSE_ARGS')) {
      const option = /'(-[^' ]+)/.exec(error.message)?.[1]
      throw new UsageError(
        error.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && option !== undefined
          ? `unknown option ${option}`
          : error.message,
      )
    }
    throw error
  }
}

function noPositionals(positionals: string[]): void {
  const [extra] = positionals
  if (extra !== undefined) throw new UsageError(`unexpected argument "${extra}"`)
}

function required(value: string | undefined, flag: string): string {
  if (value === undefined || value.trim() === '') throw new UsageError(`missing required option ${flag}`)
  return value.trim()
}

function email(value: string | undefined): string {
  const address = required(value, '--email EMAIL')
  if (!isEmail(address)) throw new UsageError(`--email: "${address}" is not a valid email address`)
  return address
}

function optionalName(value: string | undefined): string | null {
  const name = value?.trim() ?? ''
  return name === '' ? null : name
}

function role(value: string | undefined): 'admin' | 'user' {
  if (value === undefined || value === 'user') return 'user'
  if (value === 'admin') return 'admin'
  throw new UsageError(`--role must be admin or user, got "${value}"`)
}

function nonNegativeInt(value: string | undefined, flag: string, fallback: number, max: number): number {
  if (value === undefined) return fallback
  const n = Number(value)
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(n) || n > max) {
    throw new UsageError(`${flag} must be an integer from 0 to ${max}, got "${value}"`)
  }
  return n
}

function databaseUrl(flag: string | undefined, env: NodeJS.ProcessEnv): string {
  if (flag !== undefined) return required(flag, '--db URL')
  const fromEnv = env.DATABASE_URL
  return fromEnv === undefined || fromEnv === '' ? DEFAULT_DATABASE_URL : fromEnv
}

/** Aligned columns, indented by two spaces. */
function table(rows: string[][]): string {
  const widths = rows[0]?.map((_, column) => Math.max(...rows.map((row) => row[column]?.length ?? 0))) ?? []
  return rows
    .map((row) => `  ${row.map((cell, column) => cell.padEnd(widths[column] ?? 0)).join('  ')}`.trimEnd())
    .join('\n')
}

/** Opens and migrates the database, runs `body`, and always closes the database. */
async function withDatabase<T>(url: string, body: (db: Db, applied: string[]) => Promise<T>): Promise<T> {
  const database = openDatabase(url)
  try {
    const applied = await migrateToLatest(database.db)
    return await body(database.db, applied)
  } finally {
    await database.close()
  }
}

/**
 * Reports a long job's progress on stderr, so `--json` output on stdout stays clean: a live line on a terminal,
 * every tenth elsewhere (nothing with --json).
 */
function progress(json: boolean, doing: string, did: string): (done: number, total: number) => void {
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

function rebuiltText(leads: number): string {
  return `Rebuilt the search documents of ${leads} ${leads === 1 ? 'lead' : 'leads'} (format ${SEARCH_DOCUMENT_VERSION}).`
}

async function requireOrganization(db: Db, id: string): Promise<void> {
  if ((await findOrganization(db, id)) === undefined) throw new UsageError(`unknown organization "${id}"`)
}

const serveCommand: Command = {
  usage: 'leadline serve [--port N] [--host H]',
  summary: 'run the API server',
  details: `  --port N   port to listen on (0 picks a free one); default $API_PORT, else 4000
  --host H   address to bind; default $HOST, else 127.0.0.1

Migrates the database first. Logs "listening on <url>" when ready; with --json the log goes to stderr and
stdout gets {"url"}. SIGTERM or SIGINT finishes in-flight requests and exits 0; a second signal exits at once.`,
  async run(args, env) {
    const { values, positionals } = parse({
      args,
      options: { ...common, port: { type: 'string' }, host: { type: 'string' } },
      allowPositionals: true,
    })
    noPositionals(positionals)
    const port = values.port === undefined ? undefined : nonNegativeInt(values.port, '--port', 0, 65535)
    const host = values.host === undefined ? undefined : required(values.host, '--host H')
    let config: Config
    try {
      config = { ...loadConfig(env), databaseUrl: databaseUrl(values.db, env) }
    } catch (error) {
      throw new UsageError(error instanceof Error ? error.message : String(error))
    }
    const json = values.json === true
    const server = await serve({
      config,
      ...(port === undefined ? {} : { port }),
      ...(host === undefined ? {} : { host }),
      logTo: json ? 'stderr' : 'stdout',
    })
    closeOnSignals(server)
    if (json) process.stdout.write(`${JSON.stringify({ url: server.url })}\n`)
    return undefined
  },
}

const mailCatcherCommand: Command = {
  usage: 'leadline mail-catcher [--port N] [--host H] [--dir D]',
  summary: 'catch outgoing email in files instead of delivering it (for the demo and development)',
  details: `  --port N   port to listen on (0 picks a free one); default 2525
  --host H   address to bind; default 127.0.0.1
  --dir D    where each message is written as an .eml file; default data/mail

An SMTP server that takes every message, for any recipient, with or without a password, and writes it whole into
D; it prints one line per message (with --json, {"url","dir"} first and one JSON object per message). Point an
email account at it, and let the api reach it: LEADLINE_SMTP_ALLOW_HOSTS=localhost:2525. Runs until SIGTERM or
SIGINT.`,
  async run(args) {
    const { values, positionals } = parse({
      args,
      options: { ...common, port: { type: 'string' }, host: { type: 'string' }, dir: { type: 'string' } },
      allowPositionals: true,
    })
    noPositionals(positionals)
    const port = values.port === undefined ? 2525 : nonNegativeInt(values.port, '--port', 0, 65535)
    const host = values.host === undefined ? '127.0.0.1' : required(values.host, '--host H')
    const dir = resolve(values.dir === undefined ? 'data/mail' : required(values.dir, '--dir D'))
    const json = values.json === true
    const catcher = await startMailCatcher({
      host,
      port,
      dir,
      onMail(mail) {
        const line = json
          ? JSON.stringify(mail)
          : `caught ${mail.subject === '' ? '(no subject)' : JSON.stringify(mail.subject)} from ${mail.from} to ${mail.to.join(', ')}: ${mail.file}`
        process.stdout.write(`${line}\n`)
      },
    })
    process.stdout.write(
      json ? `${JSON.stringify({ url: catcher.url, dir })}\n` : `catching mail on ${catcher.url} into ${dir}\n`,
    )
    for (const signal of ['SIGTERM', 'SIGINT'] as const) {
      process.once(signal, () => {
        void catcher.close().then(() => process.exit(0))
      })
    }
    return undefined
  },
}

const migrateCommand: Command = {
  usage: 'leadline migrate',
  summary: 'bring the database schema up to date',
  details: `Applies the migrations the database does not have yet, then rebuilds the leads' search documents if they
are in an older format than this version writes; running it again changes nothing.
Prints {"applied":[names],"reindexed_leads":N}.`,
  async run(args, env) {
    const { values, positionals } = parse({ args, options: common, allowPositionals: true })
    noPositionals(positionals)
    const onProgress = progress(values.json === true, 'reindexing', 'reindexed')
    const { applied, reindexed } = await withDatabase(databaseUrl(values.db, env), async (db, names) => ({
      applied: names,
      reindexed: (await ensureLeadSearchCurrent(db, { onProgress })) ?? 0,
    }))
    const lines = [applied.length === 0 ? 'The database is up to date.' : `Applied migrations: ${applied.join(', ')}`]
    if (reindexed > 0) lines.push(rebuiltText(reindexed))
    return { json: { applied, reindexed_leads: reindexed }, text: lines.join('\n') }
  },
}

const initCommand: Command = {
  usage: 'leadline init --org NAME --email EMAIL [--first-name F] [--last-name L]',
  summary: 'create an organization with its first admin and an API key',
  details: `  --org NAME         the organization's name
  --email EMAIL      the admin's email (an existing user with this email is reused)
  --first-name F, --last-name L   the admin's name, for a new user

Prints {"organization_id","user_id","membership_id","api_key"}. The key is shown only once.`,
  async run(args, env) {
    const { values, positionals } = parse({
      args,
      options: {
        ...common,
        org: { type: 'string' },
        email: { type: 'string' },
        'first-name': { type: 'string' },
        'last-name': { type: 'string' },
      },
      allowPositionals: true,
    })
    noPositionals(positionals)
    const name = required(values.org, '--org NAME')
    if (name.length > 200) throw new UsageError('--org: the name may have at most 200 characters')
    const input = {
      name,
      email: email(values.email),
      firstName: optionalName(values['first-name']),
      lastName: optionalName(values['last-name']),
    }
    const created = await withDatabase(databaseUrl(values.db, env), (db) =>
      provisionOrganization(db, systemClock, input),
    )
    return {
      json: {
        organization_id: created.organization_id,
        user_id: created.user_id,
        membership_id: created.membership_id,
        api_key: created.api_key,
      },
      text: `Created organization "${name}" (${created.organization_id}).
Admin: ${input.email} (${created.user_id}, membership ${created.membership_id})
API key: ${created.api_key}
Keep the key secret; it is not shown again.`,
    }
  },
}

const userAddCommand: Command = {
  usage: 'leadline user add --org ORG_ID --email EMAIL [--role admin|user] [--first-name F] [--last-name L]',
  summary: 'add a user to an organization and issue their API key',
  details: `  --org ORG_ID       the organization (orga_…)
  --email EMAIL      the user's email (an existing user with this email is reused)
  --role admin|user  default user
  --first-name F, --last-name L   the user's name, for a new user

Prints {"user_id","membership_id","api_key"}. The key is shown only once.`,
  async run(args, env) {
    const { values, positionals } = parse({
      args,
      options: {
        ...common,
        org: { type: 'string' },
        email: { type: 'string' },
        role: { type: 'string' },
        'first-name': { type: 'string' },
        'last-name': { type: 'string' },
      },
      allowPositionals: true,
    })
    noPositionals(positionals)
    const input = {
      organizationId: required(values.org, '--org ORG_ID'),
      email: email(values.email),
      role: role(values.role),
      firstName: optionalName(values['first-name']),
      lastName: optionalName(values['last-name']),
    }
    const added = await withDatabase(databaseUrl(values.db, env), async (db) => {
      await requireOrganization(db, input.organizationId)
      return provisionMember(db, systemClock, input)
    })
    return {
      json: { user_id: added.user_id, membership_id: added.membership_id, api_key: added.api_key },
      text: `Added ${input.email} (${added.user_id}) to ${input.organizationId} as ${input.role} (membership ${added.membership_id}).
API key: ${added.api_key}
Keep the key secret; it is not shown again.`,
    }
  },
}

const keyCreateCommand: Command = {
  usage: 'leadline key create --org ORG_ID --user USER_ID',
  summary: 'issue another API key to a member of an organization',
  details: `  --org ORG_ID    the organization (orga_…)
  --user USER_ID  a member of that organization (user_…)

Prints {"api_key_id","api_key"}. The key is shown only once.`,
  async run(args, env) {
    const { values, positionals } = parse({
      args,
      options: { ...common, org: { type: 'string' }, user: { type: 'string' } },
      allowPositionals: true,
    })
    noPositionals(positionals)
    const organizationId = required(values.org, '--org ORG_ID')
    const userId = required(values.user, '--user USER_ID')
    const key = await withDatabase(databaseUrl(values.db, env), async (db) => {
      await requireOrganization(db, organizationId)
      const user = await db.selectFrom('user').select('id').where('id', '=', userId).executeTakeFirst()
      if (user === undefined) throw new UsageError(`unknown user "${userId}"`)
      const membership = await db
        .selectFrom('membership')
        .select('id')
        .where('organization_id', '=', organizationId)
        .where('user_id', '=', userId)
        .executeTakeFirst()
      if (membership === undefined) {
        throw new UsageError(`user "${userId}" is not a member of organization "${organizationId}"`)
      }
      return createApiKey(db, systemClock, { organizationId, userId, membershipId: membership.id })
    })
    return {
      json: { api_key_id: key.api_key_id, api_key: key.api_key },
      text: `Created API key ${key.api_key_id} for ${userId} in ${organizationId}.
API key: ${key.api_key}
Keep the key secret; it is not shown again.`,
    }
  },
}

const keyRevokeCommand: Command = {
  usage: 'leadline key revoke ID',
  summary: 'revoke an API key; every api process refuses it within 5 seconds',
  details: `  ID   the key's id (key_…, the part of the key before the dot)

Prints {"api_key_id","revoked":true}. Revoking a revoked key again is harmless.`,
  async run(args, env) {
    const { values, positionals } = parse({ args, options: common, allowPositionals: true })
    const [given, ...rest] = positionals
    noPositionals(rest)
    // Accept a whole key too: its id is the part before the dot; the secret is never used.
    const id = required(given, 'ID (the API key id)').split('.')[0] ?? ''
    const found = await withDatabase(databaseUrl(values.db, env), (db) => revokeApiKey(db, systemClock, id))
    if (!found) throw new UsageError(`unknown API key "${id}"`)
    return { json: { api_key_id: id, revoked: true }, text: `Revoked API key ${id}.` }
  },
}

const seedDemoCommand: Command = {
  usage: 'leadline seed demo [--leads N]',
  summary: 'create the demo organization with an admin, a manager and two reps',
  details: `  --leads N   how many demo leads to create (default 0), with contacts, addresses, custom values, notes,
              status changes, on about 60 % of them opportunities, and on some each user's tasks. Progress
              goes to stderr: a bar on a terminal, a line every tenth of the way elsewhere.

Prints {"organization_id","organization_name","users":[{"user_id","membership_id","email","first_name",
"last_name","role","title","api_key"}]}. Running it again creates another demo organization with new keys.`,
  async run(args, env) {
    const { values, positionals } = parse({
      args,
      options: { ...common, leads: { type: 'string' } },
      allowPositionals: true,
    })
    noPositionals(positionals)
    const leads = nonNegativeInt(values.leads, '--leads', 0, 1_000_000)
    const json = values.json === true
    const { demo, leadsCreated } = await withDatabase(databaseUrl(values.db, env), async (db) => {
      // The seeded leads get current documents: older ones are rebuilt first, so the version recorded holds for all.
      await ensureLeadSearchCurrent(db, { onProgress: progress(json, 'reindexing', 'reindexed') })
      const report = seedProgress(process.stderr)
      try {
        // One transaction: an interrupted seed leaves no demo organization without its leads.
        return await inTransaction(db, async (tx) => {
          const organization = await seedDemoOrganization(tx, systemClock)
          const created = await seedDemoLeads(tx, systemClock, organization.organization_id, leads, {
            onProgress: report.onProgress,
            onFinishing: report.onFinishing,
          })
          await seedDemoTasks(tx, systemClock, organization)
          return { demo: organization, leadsCreated: created }
        })
      } finally {
        report.end()
      }
    })
    const rows = table(demo.users.map((u) => [u.title, u.role, `${u.first_name} ${u.last_name}`, u.email, u.api_key]))
    return {
      json: { organization_id: demo.organization_id, organization_name: demo.organization_name, users: demo.users },
      text: `Created "${demo.organization_name}" (${demo.organization_id}) with ${leadsCreated} leads and these users:
${rows}
Keep the keys secret; they are not shown again.`,
    }
  },
}

const reindexCommand: Command = {
  usage: 'leadline reindex',
  summary: "rebuild every lead's free-text search document",
  details: `Rebuilds the documents free-text search looks in, for every lead of every organization, a batch at a time
(the api can keep serving). Start-up and "leadline migrate" do this by themselves when the documents are in an older
format; run it by hand only if they are suspected wrong. Prints {"reindexed_leads":N,"search_document_version":V}.`,
  async run(args, env) {
    const { values, positionals } = parse({ args, options: common, allowPositionals: true })
    noPositionals(positionals)
    const onProgress = progress(values.json === true, 'reindexing', 'reindexed')
    const leads = await withDatabase(databaseUrl(values.db, env), (db) => rebuildLeadSearch(db, { onProgress }))
    return {
      json: { reindexed_leads: leads, search_document_version: SEARCH_DOCUMENT_VERSION },
      text: rebuiltText(leads),
    }
  },
}

/** The lead webhook as this command's environment sees it, and the key its requests are signed with. */
async function leadWebhookOutput(db: Db, env: NodeJS.ProcessEnv): Promise<Output> {
  let envUrl: string | null
  try {
    envUrl = loadConfig(env).leadWebhookUrl
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error))
  }
  const setting: LeadWebhookSetting = await readLeadWebhook(db, envUrl)
  const key = setting.url === null ? null : await leadWebhookSigningKey(db, secretBox(env))
  const where = {
    cli: 'stored with "leadline lead-webhook set" (it wins over LEADLINE_LEAD_WEBHOOK_URL)',
    env: 'from LEADLINE_LEAD_WEBHOOK_URL',
    none: 'none set',
  }[setting.source]
  const lines = [
    setting.url === null
      ? `No lead webhook: lead changes are not posted anywhere (${setting.source === 'cli' ? 'cleared with "leadline lead-webhook clear"' : where}).`
      : `Lead changes are posted to ${setting.url} (${where}).`,
  ]
  if (key !== null)
    lines.push(
      `Requests are signed with the key ${key} (as a Standard Webhooks secret: ${standardWebhooksSecret(key)}).`,
    )
  return { json: { url: setting.url, source: setting.source, signature_key: key }, text: lines.join('\n') }
}

const LEAD_WEBHOOK_JSON =
  'Prints {"url","source","signature_key"}: the URL in force (null when none), where it comes from (cli, env or none) and the key requests are signed with.'

const leadWebhookSetCommand: Command = {
  usage: 'leadline lead-webhook set URL',
  summary: 'post every lead created, updated, deleted or merged to URL',
  details: `  URL   an https URL, not to this machine or a private network (http and private addresses only with
        LEADLINE_OUTBOUND_ALLOW_PRIVATE=1, for development and tests)

Stored in the database, it wins over LEADLINE_LEAD_WEBHOOK_URL in every api process. Each change is POSTed as
{"model":"lead","event":"create"|"update"|"delete"|"merge","data":…}, up to 3 times 5 minutes apart
(LEADLINE_LEAD_WEBHOOK_RETRY_SECONDS), signed like webhook subscriptions with this installation's key.
${LEAD_WEBHOOK_JSON}`,
  async run(args, env) {
    const { values, positionals } = parse({ args, options: common, allowPositionals: true })
    const [given, ...rest] = positionals
    noPositionals(rest)
    let url: string
    try {
      url = parseLeadWebhookUrl(required(given, 'URL'), loadConfig(env).outboundAllowPrivate)
    } catch (error) {
      throw new UsageError(error instanceof Error ? error.message : String(error))
    }
    return withDatabase(databaseUrl(values.db, env), async (db) => {
      await setLeadWebhookUrl(db, url)
      return leadWebhookOutput(db, env)
    })
  },
}

/** A lead-webhook command without arguments: `change` (if any) on the database, then what is in force. */
function leadWebhookCommand(
  usage: string,
  summary: string,
  details: string,
  change: (db: Db) => Promise<void>,
): Command {
  return {
    usage,
    summary,
    details: `${details} ${LEAD_WEBHOOK_JSON}`,
    async run(args, env) {
      const { values, positionals } = parse({ args, options: common, allowPositionals: true })
      noPositionals(positionals)
      return withDatabase(databaseUrl(values.db, env), async (db) => {
        await change(db)
        return leadWebhookOutput(db, env)
      })
    },
  }
}

const leadWebhookClearCommand = leadWebhookCommand(
  'leadline lead-webhook clear',
  'post lead changes nowhere, whatever LEADLINE_LEAD_WEBHOOK_URL says',
  `Stores "no lead webhook", which wins over LEADLINE_LEAD_WEBHOOK_URL; deliveries still waiting are dropped.
"leadline lead-webhook reset" lets the environment's URL apply again.`,
  clearLeadWebhookUrl,
)

const leadWebhookResetCommand = leadWebhookCommand(
  'leadline lead-webhook reset',
  'forget the stored lead webhook, so LEADLINE_LEAD_WEBHOOK_URL applies again',
  'Removes what "set" or "clear" stored.',
  resetLeadWebhookUrl,
)

const leadWebhookShowCommand = leadWebhookCommand(
  'leadline lead-webhook show',
  'say where lead changes are posted and the key their requests are signed with',
  "The environment read is this command's: run it with the api's LEADLINE_LEAD_WEBHOOK_URL.",
  () => Promise.resolve(),
)

/** An inbound-secret command: `secretOf` the organization named by --org, printed as admins see it. */
function inboundSecretCommand(
  verb: string,
  summary: string,
  details: string,
  secretOf: (db: Db, box: SecretBox | null, organizationId: string, now: string) => Promise<InboundSecretTable>,
): Command {
  return {
    usage: `leadline inbound-secret ${verb} --org ORG_ID`,
    summary,
    details: `  --org ORG_ID   the organization (orga_…)

${details}
Prints {"organization_id","secret","date_created"}: the secret as Standard Webhooks libraries take it (whsec_…).`,
    async run(args, env) {
      const { values, positionals } = parse({
        args,
        options: { ...common, org: { type: 'string' } },
        allowPositionals: true,
      })
      noPositionals(positionals)
      const organizationId = required(values.org, '--org ORG_ID')
      const box = secretBox(env)
      const secret = await withDatabase(databaseUrl(values.db, env), async (db) => {
        await requireOrganization(db, organizationId)
        return secretOf(db, box, organizationId, formatTimestamp(systemClock.now()))
      })
      const view = inboundSecretView(secret)
      return {
        json: { ...view },
        text: `The inbound secret of ${organizationId} (since ${view.date_created}): ${view.secret}
The telephony side signs its requests to /api/v1/inbound/sms/ and /api/v1/inbound/call/ with it. Keep it secret.`,
      }
    },
  }
}

const inboundSecretShowCommand = inboundSecretCommand(
  'show',
  "show the secret the organization's telephony signs incoming calls and texts with (made on first use)",
  'The same secret admins see at GET /api/v1/inbound/secret/.',
  inboundSecret,
)

const inboundSecretRotateCommand = inboundSecretCommand(
  'rotate',
  "replace the organization's inbound secret; requests signed with the old one are refused at once",
  'Give the new secret to the telephony side: until it signs with it, its requests are refused (401).',
  rotateInboundSecret,
)

// The API's field names as `email-account add` spells them.
const EMAIL_ACCOUNT_FLAGS: Record<string, string> = {
  user_id: '--user',
  email: '--email',
  'smtp.host': '--smtp-host',
  'smtp.port': '--smtp-port',
  'smtp.username': '--smtp-user',
  'smtp.password': '--smtp-password-env',
}

function secretBox(env: NodeJS.ProcessEnv): SecretBox | null {
  try {
    return secretBoxFrom(env)
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error))
  }
}

/** The new key of `secret-key rotate`: read from --new-key-file, or made (and then printed: the only copy). */
function newSecretKey(file: string | undefined, generate: boolean): { box: SecretBox; shown: string | null } {
  if ((file === undefined) === !generate) throw new UsageError('give either --new-key-file FILE or --generate')
  let text: string
  if (file === undefined) text = randomBytes(32).toString('hex')
  else {
    try {
      text = readFileSync(file, 'utf8')
    } catch (error) {
      throw new UsageError(`--new-key-file: ${error instanceof Error ? error.message : String(error)}`)
    }
  }
  let box: SecretBox | null
  try {
    box = secretBoxFrom({ LEADLINE_SECRET_KEY: text })
  } catch {
    throw new UsageError('--new-key-file: the key must be 32 random bytes as 64 hex characters or as base64')
  }
  if (box === null) throw new UsageError('--new-key-file: the file is empty')
  return { box, shown: generate ? text : null }
}

const secretKeyRotateCommand: Command = {
  usage: 'leadline secret-key rotate (--new-key-file FILE | --generate)',
  summary: 'seal every stored secret under a new LEADLINE_SECRET_KEY, in one transaction',
  details: `  --new-key-file FILE   the new key: 32 random bytes as 64 hex characters or base64, as LEADLINE_SECRET_KEY
                        takes it (e.g. \`openssl rand -hex 32 > FILE\`); never printed
  --generate            make a new random key instead, and print it: it is the only copy

The current key is this command's LEADLINE_SECRET_KEY (the api's; unset on a server that had none, when only
values stored in the clear can be sealed). Webhook signature keys, inbound secrets, the lead webhook's signature key
and SMTP passwords are opened with it and sealed under the new key; if one does not open, nothing changes. Then give
the api the new key as LEADLINE_SECRET_KEY (with npm start: write it to data/secret-key) and restart it: until
then it cannot open what was sealed, and the old key opens nothing.
Prints {"resealed":{"webhook_signature_keys","inbound_secrets","lead_webhook_signature_key","smtp_passwords"}}
(counts), with "new_key" added under --generate.`,
  async run(args, env) {
    const { values, positionals } = parse({
      args,
      options: { ...common, 'new-key-file': { type: 'string' }, generate: { type: 'boolean' } },
      allowPositionals: true,
    })
    noPositionals(positionals)
    const current = secretBox(env)
    const next = newSecretKey(values['new-key-file'], values.generate === true)
    const resealed = await withDatabase(databaseUrl(values.db, env), (db) =>
      db.transaction().execute((tx) => resealSecrets(tx, current, next.box)),
    )
    const total = Object.values(resealed).reduce((sum, n) => sum + n, 0)
    const lines = [
      `Sealed ${String(total)} secrets under the new key (${Object.entries(resealed)
        .map(([kind, n]) => `${kind.replace(/_/g, ' ')}: ${String(n)}`)
        .join(', ')}).`,
      'Give the api the new key as LEADLINE_SECRET_KEY and restart it.',
    ]
    if (next.shown !== null) lines.push(`The new key (its only copy): ${next.shown}`)
    return {
      json: { resealed, ...(next.shown === null ? {} : { new_key: next.shown }) },
      text: lines.join('\n'),
    }
  },
}

const emailAccountAddCommand: Command = {
  usage:
    'leadline email-account add --org ORG_ID --user USER_ID --email E --smtp-host H --smtp-port P [--smtp-user U] [--smtp-password-env VAR] [--no-ssl]',
  summary: 'add an email account a user sends through: its address and SMTP server',
  details: `  --org ORG_ID             the organization (orga_…)
  --user USER_ID           a member of that organization (user_…), whose account it is
  --email E                the address it sends as; one account per address in an organization
  --smtp-host H            the SMTP server: a host name or an IP address
  --smtp-port P            its port, 1 to 65535
  --smtp-user U            the login, if the server wants one
  --smtp-password-env VAR  the name of an environment variable holding the password (never the password itself:
                           arguments show in process lists); stored encrypted under LEADLINE_SECRET_KEY, which
                           must be the api's
  --no-ssl                 plain SMTP (upgraded by STARTTLS when offered) instead of TLS from the start

Prints {"email_account_id"}.`,
  async run(args, env) {
    const { values, positionals } = parse({
      args,
      options: {
        ...common,
        org: { type: 'string' },
        user: { type: 'string' },
        email: { type: 'string' },
        'smtp-host': { type: 'string' },
        'smtp-port': { type: 'string' },
        'smtp-user': { type: 'string' },
        'smtp-password-env': { type: 'string' },
        'no-ssl': { type: 'boolean' },
      },
      allowPositionals: true,
    })
    noPositionals(positionals)
    const organizationId = required(values.org, '--org ORG_ID')
    const userId = required(values.user, '--user USER_ID')
    const address = required(values.email, '--email E')
    const host = required(values['smtp-host'], '--smtp-host H')
    const port = Number(required(values['smtp-port'], '--smtp-port P'))
    let password: string | null = null
    if (values['smtp-password-env'] !== undefined) {
      const variable = required(values['smtp-password-env'], '--smtp-password-env VAR')
      password = env[variable] ?? ''
      if (password === '')
        throw new UsageError(`--smtp-password-env: the environment variable ${variable} is empty or not set`)
    }
    const box = secretBox(env)
    const row = await withDatabase(databaseUrl(values.db, env), async (db) => {
      await requireOrganization(db, organizationId)
      try {
        const fields = await checkedForMember(db, organizationId, userId, {
          email: address,
          identities: [],
          smtp: {
            host,
            port,
            username: values['smtp-user'] ?? null,
            use_ssl: values['no-ssl'] !== true,
          },
        })
        return await insertEmailAccount(
          db,
          box,
          // The operator's word is an admin's: the account's own address is trusted (decision 0038).
          { organizationId, userId, fields, password: checkedPassword(password, box) ?? null, trusted: [fields.email] },
          { actorId: null, now: formatTimestamp(systemClock.now()) },
        )
      } catch (failure) {
        const error = await explainAddressConflict(db, failure)
        if (error instanceof AddressTakenError && !error.sameOrganization) {
          throw new UsageError(`--email: ${address} is in use by another email account`)
        }
        if (error instanceof DuplicateEmailAccountError || error instanceof AddressTakenError) {
          throw new UsageError(`--email: organization "${organizationId}" already has an email account for ${address}`)
        }
        if (error instanceof ValidationError) {
          const problems = Object.entries(error.fieldErrors).map(
            ([field, message]) => `${EMAIL_ACCOUNT_FLAGS[field] ?? field}: ${message}`,
          )
          throw new UsageError(problems.join('; '))
        }
        throw error
      }
    })
    const ssl = row.smtp_use_ssl === 1 ? 'TLS' : 'no TLS'
    return {
      json: { email_account_id: row.id },
      text: `Added email account ${row.email} (${row.id}) for ${userId} in ${organizationId}: it sends through ${row.smtp_host}:${row.smtp_port} (${ssl})${password === null ? ', without a password' : ', with the password encrypted'}.`,
    }
  },
}

const emailAccountListCommand: Command = {
  usage: 'leadline email-account list --org ORG_ID',
  summary: "list an organization's email accounts",
  details: `  --org ORG_ID   the organization (orga_…)

Prints {"data":[…]}: each account as GET /api/v1/email_account/ shows it (never a password, only has_password).`,
  async run(args, env) {
    const { values, positionals } = parse({
      args,
      options: { ...common, org: { type: 'string' } },
      allowPositionals: true,
    })
    noPositionals(positionals)
    const organizationId = required(values.org, '--org ORG_ID')
    const accounts = await withDatabase(databaseUrl(values.db, env), async (db) => {
      await requireOrganization(db, organizationId)
      return emailAccountViews(db, await emailAccountsQuery(db, organizationId).execute())
    })
    const rows = accounts.map((a) => [
      a.id,
      a.user_id,
      a.email,
      `${a.smtp.host}:${a.smtp.port}`,
      a.smtp.use_ssl ? 'TLS' : 'no TLS',
      a.smtp.has_password ? 'password' : 'no password',
    ])
    return {
      json: { data: accounts },
      text: accounts.length === 0 ? `${organizationId} has no email accounts.` : table(rows),
    }
  },
}

const COMMANDS: Record<string, Command> = {
  serve: serveCommand,
  migrate: migrateCommand,
  init: initCommand,
  'user add': userAddCommand,
  'key create': keyCreateCommand,
  'key revoke': keyRevokeCommand,
  'seed demo': seedDemoCommand,
  reindex: reindexCommand,
  'lead-webhook set': leadWebhookSetCommand,
  'lead-webhook clear': leadWebhookClearCommand,
  'lead-webhook reset': leadWebhookResetCommand,
  'lead-webhook show': leadWebhookShowCommand,
  'inbound-secret show': inboundSecretShowCommand,
  'inbound-secret rotate': inboundSecretRotateCommand,
  'secret-key rotate': secretKeyRotateCommand,
  'email-account add': emailAccountAddCommand,
  'email-account list': emailAccountListCommand,
  'mail-catcher': mailCatcherCommand,
}

function generalHelp(): string {
  const width = Math.max(...Object.keys(COMMANDS).map((name) => name.length))
  const lines = Object.entries(COMMANDS).map(([name, command]) => `  ${name.padEnd(width)}  ${command.summary}`)
  return `Usage: leadline <command> [options]

Commands:
${lines.join('\n')}

Every command takes:
${COMMON_HELP}

Run "leadline <command> --help" for a command's options.
`
}

function commandHelp(command: Command): string {
  return `Usage: ${command.usage} [--db URL] [--json]

${command.summary[0]?.toUpperCase() ?? ''}${command.summary.slice(1)}.

${command.details}

${COMMON_HELP}
`
}

/** Finds the command named by the leading words of `argv`; the rest are its arguments. */
function findCommand(argv: string[]): { name: string; command: Command; args: string[] } {
  const [first, second] = argv
  if (first === undefined || first.startsWith('-')) {
    throw new UsageError(first === undefined ? 'missing command' : `expected a command before "${first}"`)
  }
  const two = `${first} ${second ?? ''}`
  const pair = COMMANDS[two]
  if (pair !== undefined) return { name: two, command: pair, args: argv.slice(2) }
  const single = COMMANDS[first]
  if (single !== undefined) return { name: first, command: single, args: argv.slice(1) }
  const subcommands = Object.keys(COMMANDS).filter((name) => name.startsWith(`${first} `))
  if (subcommands.length > 0) {
    const choices = subcommands.map((name) => `"leadline ${name}"`).join(' or ')
    const what = second === undefined || second.startsWith('-') ? 'missing subcommand' : `unknown command "${two}"`
    throw new UsageError(`${what}; expected ${choices}`)
  }
  throw new UsageError(`unknown command "${first}"`)
}

function describe(error: unknown): string {
  if (error instanceof ValidationError) return Object.values(error.fieldErrors).concat(error.errors).join(' ')
  if (error instanceof AggregateError && error.message === '') {
    return error.errors.map((inner) => describe(inner)).join('; ')
  }
  if (error instanceof Error) return error.message === '' ? String(error) : error.message
  return String(error)
}

/** Runs the CLI; resolves to the exit code, or undefined when the command keeps running (serve). */
async function runCli(argv: string[], env: NodeJS.ProcessEnv): Promise<number | undefined> {
  if (argv.length === 0 || ['--help', '-h', 'help'].includes(argv[0] ?? '')) {
    const stream = argv.length === 0 ? process.stderr : process.stdout
    stream.write(generalHelp())
    return argv.length === 0 ? 2 : 0
  }
  let name = 'leadline'
  try {
    const found = findCommand(argv)
    name = `leadline ${found.name}`
    if (found.args.includes('--help') || found.args.includes('-h')) {
      process.stdout.write(commandHelp(found.command))
      return 0
    }
    const output = await found.command.run(found.args, env)
    if (output === undefined) return undefined
    const json = found.args.includes('--json')
    process.stdout.write(json ? `${JSON.stringify(output.json)}\n` : `${output.text}\n`)
    return 0
  } catch (error) {
    if (error instanceof UsageError || error instanceof ValidationError) {
      const hint = name === 'leadline' ? 'leadline --help' : `${name} --help`
      process.stderr.write(`${name}: ${describe(error)}\nRun "${hint}" for usage.\n`)
      return 2
    }
    process.stderr.write(`${name}: ${describe(error)}\n`)
    return 1
  }
}

const code = await runCli(process.argv.slice(2), process.env)
if (code !== undefined) process.exitCode = code
