import { Command, CommanderError } from 'commander'
import { ValidationError } from '../../platform/http/errors.js'
import { COMMON_OPTIONS, CommandFailure, commandGroup, UsageError } from './cli-command.js'
import { emailAccountAddCommand } from './email-account-add-command.js'
import { emailAccountListCommand } from './email-account-list-command.js'
import { inboundSecretCommands } from './inbound-secret-command.js'
import { importCloseCommand } from './import-close-command.js'
import { initCommand } from './init-command.js'
import { keyCreateCommand } from './key-create-command.js'
import { keyRevokeCommand } from './key-revoke-command.js'
import { leadWebhookCommands } from './lead-webhook-command.js'
import { mailCatcherCommand } from './mail-catcher-command.js'
import { migrateCommand } from './migrate-command.js'
import { reindexCommand } from './reindex-command.js'
import { secretKeyRotateCommand } from './secret-key-rotate-command.js'
import { seedDemoCommand } from './seed-demo-command.js'
import { serveCommand } from './serve-command.js'
import { userAddCommand } from './user-add-command.js'
import { userInviteCommand } from './user-invite-command.js'
import { userResetPasswordCommand } from './user-reset-password-command.js'
import { backupCommand, restoreCommand } from './backup-command.js'

/** Every command that does something, by its full name ("user add"), in the order `leadline --help` lists them. */
function leaves(command: Command, prefix = ''): [string, Command][] {
  return command.commands.flatMap((sub) =>
    sub.commands.length === 0 ? [[`${prefix}${sub.name()}`, sub]] : leaves(sub, `${prefix}${sub.name()} `),
  )
}

function generalHelp(program: Command): string {
  const commands = leaves(program)
  const width = Math.max(...commands.map(([name]) => name.length))
  const common = [...COMMON_OPTIONS, ['--help', 'show this help'] as const].map(
    ([flags, description]) => [flags.replace(/ <(\w+)>$/, ' $1'), description] as const,
  )
  const flagWidth = Math.max(...common.map(([flags]) => flags.length))
  return `Usage: leadline <command> [options]

Commands:
${commands.map(([name, command]) => `  ${name.padEnd(width)}  ${command.summary()}`).join('\n')}

Every command takes:
${common.map(([flags, description]) => `  ${flags.padEnd(flagWidth)}   ${description}`).join('\n')}

Run "leadline <command> --help" for a command's options.
`
}

function commandName(command: Command): string {
  return command.parent === null ? command.name() : `${commandName(command.parent)} ${command.name()}`
}

/** Commander's own errors, in the words this CLI has always used (those of node's parseArgs). */
function usageMessage(command: Command, error: CommanderError): string {
  const flag = /'(-[^' ]+)'/.exec(error.message)?.[1]
  if (flag !== undefined && error.code === 'commander.unknownOption') {
    const [name = flag] = flag.split('=')
    const known = command.options.some((option) => option.long === name)
    return known ? `Option '${name}' does not take an argument` : `unknown option ${name}`
  }
  if (flag !== undefined && error.code === 'commander.optionMissingArgument') {
    return `Option '${flag}' argument missing`.replace(/ <\w+>'/, " <value>'")
  }
  return error.message.replace(/^error: /, '')
}

const NEGATIVE_NUMBER = /^-(\d+|\d*\.\d+)(e[+-]?\d+)?$/

/**
 * Refuses what parseArgs refused and commander takes: a value that looks like an option (`--leads -1`; write
 * `--leads=-1`), and a negative number as an argument.
 */
function refuseOptionLikeValues(command: Command, argv: string[]): void {
  const end = argv.indexOf('--')
  const args = end === -1 ? argv : argv.slice(0, end)
  for (let i = 0; i < args.length; i += 1) {
    const arg = args[i] ?? ''
    if (command.options.some((option) => option.required && option.long === arg)) {
      const value = args[i + 1] ?? ''
      if (value.length > 1 && value.startsWith('-')) {
        throw new UsageError(`Option '${arg}' argument is ambiguous.
Did you forget to specify the option argument for '${arg}'?
To specify an option argument starting with a dash use '${arg}=-XYZ'.`)
      }
      i += 1
    } else if (NEGATIVE_NUMBER.test(arg)) {
      throw new UsageError(`unknown option ${arg}`)
    }
  }
}

/** Commander reports through exceptions, never exits, and leaves the wording of errors to `runCli`. */
function reportThroughExceptions(command: Command): void {
  command
    .exitOverride((error) => {
      throw new CommandFailure(command, error)
    })
    .configureOutput({ outputError: () => undefined })
    .showSuggestionAfterError(false)
  for (const sub of command.commands) reportThroughExceptions(sub)
}

function leadlineProgram(argv: string[]): Command {
  const program = new Command('leadline')
    .argument('[command]')
    .allowUnknownOption()
    .allowExcessArguments()
    .helpCommand(true)
    .action(() => {
      const [first = ''] = program.args
      throw new UsageError(
        first.startsWith('-') ? `expected a command before "${first}"` : `unknown command "${first}"`,
      )
    })
    .addCommand(serveCommand())
    .addCommand(migrateCommand())
    .addCommand(initCommand())
    .addCommand(
      commandGroup('user', 'manage the users of an organization', [
        userAddCommand(),
        userInviteCommand(),
        userResetPasswordCommand(),
      ]),
    )
    .addCommand(commandGroup('key', "manage a member's API keys", [keyCreateCommand(), keyRevokeCommand()]))
    .addCommand(commandGroup('seed', 'create sample data', [seedDemoCommand()]))
    .addCommand(commandGroup('import', 'bring an organization in from another CRM', [importCloseCommand()]))
    .addCommand(reindexCommand())
    .addCommand(backupCommand())
    .addCommand(restoreCommand())
    .addCommand(leadWebhookCommands())
    .addCommand(inboundSecretCommands())
    .addCommand(commandGroup('secret-key', 'manage the key stored secrets are sealed with', [secretKeyRotateCommand()]))
    .addCommand(
      commandGroup('email-account', 'manage the accounts users send email through', [
        emailAccountAddCommand(),
        emailAccountListCommand(),
      ]),
    )
    .addCommand(mailCatcherCommand())
  program.configureHelp({ formatHelp: () => generalHelp(program) })
  program.hook('preAction', (_program, action) => {
    if (action.commands.length > 0) return
    try {
      refuseOptionLikeValues(action, argv)
    } catch (error) {
      throw new CommandFailure(action, error)
    }
  })
  reportThroughExceptions(program)
  return program
}

function describe(error: unknown): string {
  if (error instanceof ValidationError) return Object.values(error.fieldErrors).concat(error.errors).join(' ')
  if (error instanceof AggregateError && error.message === '') {
    return error.errors.map((inner) => describe(inner)).join('; ')
  }
  if (error instanceof Error) return error.message === '' ? String(error) : error.message
  return String(error)
}

/** Runs the CLI; resolves to the exit code, or undefined when it is 0 or the command keeps running (serve). */
export async function runCli(argv: string[]): Promise<number | undefined> {
  const program = leadlineProgram(argv)
  if (argv.length === 0) {
    process.stderr.write(program.helpInformation())
    return 2
  }
  try {
    await program.parseAsync(argv, { from: 'user' })
    return undefined
  } catch (error) {
    const { command, failure } = error instanceof CommandFailure ? error : { command: program, failure: error }
    if (failure instanceof CommanderError && failure.exitCode === 0) return 0
    const name = commandName(command)
    if (failure instanceof CommanderError) {
      process.stderr.write(`${name}: ${usageMessage(command, failure)}\nRun "${name} --help" for usage.\n`)
      return 2
    }
    if (failure instanceof UsageError || failure instanceof ValidationError) {
      process.stderr.write(`${name}: ${describe(failure)}\nRun "${name} --help" for usage.\n`)
      return 2
    }
    process.stderr.write(`${name}: ${describe(failure)}\n`)
    return 1
  }
}
