import { spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { constants } from 'node:os'
import process from 'node:process'

// A large demo seed holds its SQLite page cache in memory until it commits: some 2.7 GB for 100,000 leads, which
// glibc's malloc takes from the kernel 4 KiB at a time, each page faulted in on first touch and each a TLB entry.
// glibc (2.35 on) can ask for transparent huge pages instead (the `glibc.malloc.hugetlb` tunable): a seed of 100,000
// leads then faults 500,000 pages rather than 1,300,000 and runs a fifth to a quarter faster
// (docs/decisions/0082-huge-pages-for-large-seeds.md). Tunables are read as a process starts, so the command starts
// itself again with it. Nothing else is run so: the api's own memory is held to a budget, and huge pages would
// round it up. The same start gives node a larger young generation (SEED_SEMI_SPACE_MB), which V8 also sets only as
// a process starts.

const HUGETLB = 'glibc.malloc.hugetlb'
/** Seeds of fewer leads run as they are: their page cache is small, and starting again costs a node start. */
export const HUGE_PAGES_FROM_LEADS = 10_000

/** What decides whether huge pages can be had: the system, its C library, and the kernel's setting for them. */
export interface HugePagesHost {
  platform: string
  /** glibc's version (`process.report`'s `glibcVersionRuntime`), undefined for another C library. */
  glibc: string | undefined
  /** `/sys/kernel/mm/transparent_hugepage/enabled`, e.g. `always [madvise] never`; undefined when absent. */
  transparentHugePages: string | undefined
}

/** This machine's facts (read only for a command that could use them: `process.report` is not free). */
export function thisHost(): HugePagesHost {
  let transparentHugePages: string | undefined
  try {
    transparentHugePages = readFileSync('/sys/kernel/mm/transparent_hugepage/enabled', 'utf8')
  } catch {
    transparentHugePages = undefined
  }
  const header: unknown = process.platform === 'linux' ? Reflect.get(process.report.getReport(), 'header') : undefined
  const glibc: unknown =
    typeof header === 'object' && header !== null ? Reflect.get(header, 'glibcVersionRuntime') : undefined
  return { platform: process.platform, glibc: typeof glibc === 'string' ? glibc : undefined, transparentHugePages }
}

/** Whether `argv` (the arguments after `leadline`) is `seed demo` with at least HUGE_PAGES_FROM_LEADS leads. */
export function isLargeSeed(argv: readonly string[]): boolean {
  if (argv[0] !== 'seed' || argv[1] !== 'demo') return false
  let leads: string | undefined
  for (let at = 2; at < argv.length; at++) {
    const arg = argv[at] ?? ''
    if (arg === '--') break
    if (arg === '--leads') leads = argv[at + 1]
    else if (arg.startsWith('--leads=')) leads = arg.slice('--leads='.length)
  }
  return leads !== undefined && /^\d{1,9}$/.test(leads) && Number(leads) >= HUGE_PAGES_FROM_LEADS
}

function glibcAtLeast(version: string | undefined, major: number, minor: number): boolean {
  const match = /^(\d+)\.(\d+)/.exec(version ?? '')
  if (match === null) return false
  const [have, haveMinor] = [Number(match[1]), Number(match[2])]
  return have > major || (have === major && haveMinor >= minor)
}

/**
 * The environment to start `argv` again with so that malloc uses transparent huge pages, or undefined to run it as
 * it is: not a large seed, no glibc 2.35 or later on Linux, huge pages turned off in the kernel (`[never]`), or the
 * tunable set already — by the start before this one, or by an operator (`GLIBC_TUNABLES=glibc.malloc.hugetlb=0`
 * keeps a seed off them).
 */
export function hugePagesEnvironment(
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
  host: () => HugePagesHost,
): NodeJS.ProcessEnv | undefined {
  if (!isLargeSeed(argv)) return undefined
  const tunables = env.GLIBC_TUNABLES ?? ''
  if (tunables.split(':').some((tunable) => tunable.startsWith(`${HUGETLB}=`))) return undefined
  const facts = host()
  if (facts.platform !== 'linux' || !glibcAtLeast(facts.glibc, 2, 35)) return undefined
  if (facts.transparentHugePages === undefined || facts.transparentHugePages.includes('[never]')) return undefined
  return { ...env, GLIBC_TUNABLES: tunables === '' ? `${HUGETLB}=1` : `${tunables}:${HUGETLB}=1` }
}

/**
 * The semi-space V8 gives a large seed, in MB (a young generation of three times that). A batch of 1,000 demo leads
 * lives from the worker's message until its inserts are done: with V8's default (16 MB on 64-bit) much of it
 * survives two scavenges and is copied into the old generation, which full collections then sweep. At 100,000
 * leads the collector took 4.2 s of the writing thread and 3.9 s of the generating one; with 64 MB 1.1 and 2.0 s
 * (32 MB: 2.8 and 2.8 s; 128 MB: 0.7 and 1.7 s, for 200 MB more of peak RSS). docs/decisions/0082.
 */
export const SEED_SEMI_SPACE_MB = 64
const SEMI_SPACE_FLAG = '--max-semi-space-size'

/** How a large seed starts again: its environment and node's own flags. */
export interface SeedRestart {
  env: NodeJS.ProcessEnv
  nodeArgs: string[]
}

function setsSemiSpace(flags: readonly string[]): boolean {
  // V8 takes either spelling of a flag's words.
  return flags.some((flag) => flag.replaceAll('_', '-').startsWith(SEMI_SPACE_FLAG))
}

/**
 * How to start `argv` (a large seed) again — on huge pages where the host has them (hugePagesEnvironment) and with
 * a young generation of SEED_SEMI_SPACE_MB unless `execArgv` or NODE_OPTIONS sets one — or undefined to run it as it
 * is: any other command, or a start that has both already (the second start, or an operator's choice).
 */
export function largeSeedRestart(
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
  execArgv: readonly string[],
  host: () => HugePagesHost,
): SeedRestart | undefined {
  if (!isLargeSeed(argv)) return undefined
  const hugePages = hugePagesEnvironment(argv, env, host)
  const young = !setsSemiSpace([...execArgv, ...(env.NODE_OPTIONS ?? '').split(/\s+/)])
  if (hugePages === undefined && !young) return undefined
  return {
    env: hugePages ?? env,
    nodeArgs: young ? [...execArgv, `${SEMI_SPACE_FLAG}=${String(SEED_SEMI_SPACE_MB)}`] : [...execArgv],
  }
}

const FORWARDED_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const

/**
 * Runs `command` with `args` and `env`, sharing this process's standard streams, and passes on the signals that would
 * stop this process; resolves to its exit code (128 plus the signal's number when a signal ended it).
 */
export function runAgain(command: string, args: readonly string[], env: NodeJS.ProcessEnv): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env, stdio: 'inherit' })
    const forward = (signal: NodeJS.Signals) => {
      child.kill(signal)
    }
    for (const signal of FORWARDED_SIGNALS) process.on(signal, forward)
    const done = () => {
      for (const signal of FORWARDED_SIGNALS) process.off(signal, forward)
    }
    child.once('error', (error) => {
      done()
      reject(error)
    })
    child.once('exit', (code, signal) => {
      done()
      resolve(code ?? 128 + (signal === null ? 0 : constants.signals[signal]))
    })
  })
}
