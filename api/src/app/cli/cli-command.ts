import { Command } from 'commander'
import { DEFAULT_DATABASE_URL } from '../../platform/data/database.js'

/** Bad input: reported with the command's usage hint, exit code 2. */
export class UsageError extends Error {
  override name = 'UsageError'
}

/** A failure, with the command it happened in: errors are reported under that command's name. */
export class CommandFailure extends Error {
  override name = 'CommandFailure'
  constructor(
    readonly command: Command,
    readonly failure: unknown,
  ) {
    super(failure instanceof Error ? failure.message : String(failure))
  }
}

/** What a command prints: `json` with `--json`, `text` otherwise. */
export interface Output {
  json: Record<string, unknown>
  text: string
  /** The exit code when the command did its work but not all of it (an import that could not copy everything). */
  exitCode?: number
}

/** What a command's `run` reads: its arguments, options and environment. */
export interface CommandInput {
  /** The positional arguments. */
  args: readonly string[]
  env: NodeJS.ProcessEnv
  json: boolean
  /** A string option's value, named by its long flag (`--org`). */
  string(flag: string): string | undefined
  /** A boolean option's value, named by its long flag (`--no-ssl` reads as `--ssl`). */
  flag(flag: string): boolean
  /** `--db`, else $DATABASE_URL, else the SQLite file. */
  databaseUrl(): string
}

export interface CommandSpec {
  name: string
  /** The synopsis after the command's name, without the options every command takes. */
  usage: string
  summary: string
  /** An optional positional argument: its name in the usage and its help. */
  argument?: [name: string, description: string]
  options?: [flags: string, description: string][]
  /** Shown after the options in `--help`. */
  notes: string
  /** Resolves to undefined when the command keeps running (serve, mail-catcher). */
  run(input: CommandInput): Promise<Output | undefined>
}

// As wide as the notes under the options, so that they read as one page.
const HELP_WIDTH = 116

export const COMMON_OPTIONS: [flags: string, description: string][] = [
  ['--db <URL>', `sqlite:<path> or postgres://…; default $DATABASE_URL, else ${DEFAULT_DATABASE_URL}`],
  ['--json', 'print exactly one JSON object on stdout'],
]

export function required(value: string | undefined, flag: string): string {
  if (value === undefined || value.trim() === '') throw new UsageError(`missing required option ${flag}`)
  return value.trim()
}

function inputOf(command: Command): CommandInput {
  const value = (flag: string): unknown => {
    const option = command.options.find(
      (candidate) => candidate.long === flag || candidate.long === `--no-${flag.slice(2)}`,
    )
    if (option === undefined) throw new Error(`${command.name()} has no option ${flag}`)
    return command.getOptionValue(option.attributeName())
  }
  const string = (flag: string) => {
    const given = value(flag)
    return typeof given === 'string' ? given : undefined
  }
  const env = process.env
  return {
    args: command.args,
    env,
    json: value('--json') === true,
    string,
    flag: (flag) => value(flag) === true,
    databaseUrl() {
      const flag = string('--db')
      if (flag !== undefined) return required(flag, '--db URL')
      const fromEnv = env.DATABASE_URL
      return fromEnv === undefined || fromEnv === '' ? DEFAULT_DATABASE_URL : fromEnv
    },
  }
}

/** A command that does one thing: it takes the common options and prints its output as text or JSON. */
export function leadlineCommand(spec: CommandSpec): Command {
  const command = new Command(spec.name)
    .summary(spec.summary)
    .description(`${spec.summary[0]?.toUpperCase() ?? ''}${spec.summary.slice(1)}.`)
    .usage(`${spec.usage} [--db URL] [--json]`.trimStart())
    .configureHelp({ helpWidth: HELP_WIDTH })
    // Extra arguments are refused with today's wording, before the command runs.
    .allowExcessArguments()
  if (spec.argument !== undefined) command.argument(`[${spec.argument[0]}]`, spec.argument[1])
  for (const [flags, description] of [...(spec.options ?? []), ...COMMON_OPTIONS]) command.option(flags, description)
  command.addHelpText('after', `\n${spec.notes}`)
  return command.action(async () => {
    try {
      const [extra] = command.args.slice(command.registeredArguments.length)
      if (extra !== undefined) throw new UsageError(`unexpected argument "${extra}"`)
      const input = inputOf(command)
      const output = await spec.run(input)
      if (output !== undefined) process.stdout.write(`${input.json ? JSON.stringify(output.json) : output.text}\n`)
      if (output?.exitCode !== undefined) process.exitCode = output.exitCode
    } catch (error) {
      throw new CommandFailure(command, error)
    }
  })
}

/** `leadline <name> <subcommand>`: a group that names what it expected when given anything else. */
export function commandGroup(name: string, summary: string, subcommands: Command[]): Command {
  const group = new Command(name)
    .summary(summary)
    .description(`${summary[0]?.toUpperCase() ?? ''}${summary.slice(1)}.`)
    .usage('<command> [options]')
    .configureHelp({ helpWidth: HELP_WIDTH })
    .argument('[command]')
    .allowUnknownOption()
    .allowExcessArguments()
  for (const subcommand of subcommands) group.addCommand(subcommand)
  return group.action(() => {
    const [given] = group.args
    const choices = subcommands.map((subcommand) => `"leadline ${name} ${subcommand.name()}"`).join(' or ')
    const what =
      given === undefined || given.startsWith('-') ? 'missing subcommand' : `unknown command "${name} ${given}"`
    throw new UsageError(`${what}; expected ${choices}`)
  })
}
