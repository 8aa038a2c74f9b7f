import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { fileURLToPath } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'
import { openDatabase } from '../../platform/data/database.js'
import { cliPath } from '../../tooling/test-support/api-process.js'
import {
  HUGE_PAGES_FROM_LEADS,
  hugePagesEnvironment,
  isLargeSeed,
  largeSeedRestart,
  SEED_SEMI_SPACE_MB,
  type HugePagesHost,
} from './huge-pages.js'

const LINUX: HugePagesHost = {
  platform: 'linux',
  glibc: '2.36',
  transparentHugePages: 'always [madvise] never\n',
}
const seed = ['seed', 'demo', '--leads', String(HUGE_PAGES_FROM_LEADS)]

describe('isLargeSeed', () => {
  it('is a demo seed of at least HUGE_PAGES_FROM_LEADS leads, in either spelling of the option', () => {
    expect(isLargeSeed(seed)).toBe(true)
    expect(isLargeSeed(['seed', 'demo', `--leads=${String(HUGE_PAGES_FROM_LEADS * 10)}`, '--json'])).toBe(true)
    expect(isLargeSeed(['seed', 'demo', '--db', 'sqlite:x.db', '--leads', '250000'])).toBe(true)
  })

  it('is no other command, fewer leads, no number, or the option after `--`', () => {
    expect(isLargeSeed(['seed', 'demo'])).toBe(false)
    expect(isLargeSeed(['seed', 'demo', '--leads', String(HUGE_PAGES_FROM_LEADS - 1)])).toBe(false)
    expect(isLargeSeed(['seed', 'demo', '--leads', '1e6'])).toBe(false)
    expect(isLargeSeed(['seed', 'demo', '--leads'])).toBe(false)
    expect(isLargeSeed(['seed', 'demo', '--', '--leads', '100000'])).toBe(false)
    expect(isLargeSeed(['serve', '--leads', '100000'])).toBe(false)
    expect(isLargeSeed(['import', 'close', '--leads', '100000'])).toBe(false)
  })
})

describe('hugePagesEnvironment', () => {
  it('adds the tunable to what GLIBC_TUNABLES holds, or sets it', () => {
    expect(hugePagesEnvironment(seed, { HOME: '/h' }, () => LINUX)).toEqual({
      HOME: '/h',
      GLIBC_TUNABLES: 'glibc.malloc.hugetlb=1',
    })
    expect(hugePagesEnvironment(seed, { GLIBC_TUNABLES: 'glibc.malloc.arena_max=2' }, () => LINUX)).toEqual({
      GLIBC_TUNABLES: 'glibc.malloc.arena_max=2:glibc.malloc.hugetlb=1',
    })
  })

  it('runs the command as it is when the tunable is set already, by a start before or by an operator', () => {
    expect(hugePagesEnvironment(seed, { GLIBC_TUNABLES: 'glibc.malloc.hugetlb=1' }, () => LINUX)).toBeUndefined()
    const off = { GLIBC_TUNABLES: 'glibc.malloc.arena_max=2:glibc.malloc.hugetlb=0' }
    expect(hugePagesEnvironment(seed, off, () => LINUX)).toBeUndefined()
  })

  it('runs it as it is without glibc 2.35 on Linux, or with huge pages turned off in the kernel', () => {
    const without = (host: Partial<HugePagesHost>) => hugePagesEnvironment(seed, {}, () => ({ ...LINUX, ...host }))
    expect(without({ platform: 'darwin' })).toBeUndefined()
    expect(without({ glibc: undefined })).toBeUndefined()
    expect(without({ glibc: '2.34' })).toBeUndefined()
    expect(without({ glibc: '1.99' })).toBeUndefined()
    expect(without({ transparentHugePages: undefined })).toBeUndefined()
    expect(without({ transparentHugePages: 'always madvise [never]\n' })).toBeUndefined()
    expect(without({ glibc: '2.35' })).toBeDefined()
    expect(without({ glibc: '3.0', transparentHugePages: '[always] madvise never\n' })).toBeDefined()
  })

  it('asks nothing of the host for any other command', () => {
    const host = () => {
      throw new Error('asked')
    }
    expect(hugePagesEnvironment(['serve'], {}, host)).toBeUndefined()
    expect(hugePagesEnvironment(['seed', 'demo', '--leads', '40'], {}, host)).toBeUndefined()
  })
})

describe('largeSeedRestart', () => {
  const young = `--max-semi-space-size=${String(SEED_SEMI_SPACE_MB)}`
  const noHugePages = () => ({ ...LINUX, transparentHugePages: '[never]' })

  it('starts a large seed again on huge pages and with the young generation, keeping node’s other flags', () => {
    expect(largeSeedRestart(seed, { HOME: '/h' }, ['--enable-source-maps'], () => LINUX)).toEqual({
      env: { HOME: '/h', GLIBC_TUNABLES: 'glibc.malloc.hugetlb=1' },
      nodeArgs: ['--enable-source-maps', young],
    })
  })

  it('starts it again for the young generation alone where the host has no huge pages', () => {
    expect(largeSeedRestart(seed, { HOME: '/h' }, [], noHugePages)).toEqual({ env: { HOME: '/h' }, nodeArgs: [young] })
  })

  it('keeps a young generation given in node’s flags or NODE_OPTIONS, in either spelling', () => {
    const tuned = { GLIBC_TUNABLES: 'glibc.malloc.hugetlb=1' }
    expect(largeSeedRestart(seed, tuned, [young], () => LINUX)).toBeUndefined()
    expect(largeSeedRestart(seed, tuned, ['--max_semi_space_size=8'], () => LINUX)).toBeUndefined()
    const options = { ...tuned, NODE_OPTIONS: '--trace-warnings  --max-semi-space-size=16' }
    expect(largeSeedRestart(seed, options, [], () => LINUX)).toBeUndefined()
    expect(largeSeedRestart(seed, {}, ['--max-semi-space-size=16'], () => LINUX)).toEqual({
      env: { GLIBC_TUNABLES: 'glibc.malloc.hugetlb=1' },
      nodeArgs: ['--max-semi-space-size=16'],
    })
  })

  it('runs the second start as it is (nothing left to add), and any other command without asking the host', () => {
    expect(largeSeedRestart(seed, {}, [young], noHugePages)).toBeUndefined()
    const host = () => {
      throw new Error('asked')
    }
    expect(largeSeedRestart(['serve'], {}, [], host)).toBeUndefined()
    expect(largeSeedRestart(['seed', 'demo', '--leads', '40'], {}, [], host)).toBeUndefined()
  })
})

/** The built module, as the CLI runs it (the tests of the CLI run its build: cli.test.ts). */
const runAgainModule = fileURLToPath(new URL('../../../dist/app/cli/huge-pages.js', import.meta.url))

/**
 * A node process that calls runAgain on `script` (node -e) with GLIBC_TUNABLES set to `tunables` and exits with the
 * code it resolves to; its output and exit code.
 */
function wrapped(script: string, tunables: string) {
  const wrapper = `import(${JSON.stringify(runAgainModule)}).then(async ({ runAgain }) => {
    process.stdout.write('wrapper ready\\n')
    const code = await runAgain(process.execPath, ['-e', ${JSON.stringify(script)}], { ...process.env, GLIBC_TUNABLES: ${JSON.stringify(tunables)} })
    process.exit(code)
  })`
  const child = spawn(process.execPath, ['--input-type=module', '-e', wrapper], { stdio: ['ignore', 'pipe', 'pipe'] })
  let output = ''
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()))
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()))
  const exited = new Promise<number | null>((resolve) => child.once('close', resolve))
  return { child, output: () => output, exited }
}

describe('runAgain', () => {
  it('runs the command with the environment given, on this process’s streams, and ends with its exit code', async () => {
    const run = wrapped('console.log("tunables " + process.env.GLIBC_TUNABLES); process.exit(3)', 'x.y=1')
    expect(await run.exited).toBe(3)
    expect(run.output()).toContain('tunables x.y=1')
  })

  it('passes on a SIGTERM, and ends as the command did', async () => {
    const run = wrapped(
      'process.stdout.write("child ready\\n"); process.on("SIGTERM", () => { console.log("child got SIGTERM"); process.exit(7) }); setInterval(() => {}, 1000)',
      'x.y=1',
    )
    while (!run.output().includes('child ready')) await sleep(20)
    run.child.kill('SIGTERM')
    expect(await run.exited).toBe(7)
    expect(run.output()).toContain('child got SIGTERM')
  })
})

/** The pids of `pid`'s children (Linux). */
function childrenOf(pid: number): number[] {
  const tasks = join('/proc', String(pid), 'task')
  if (!existsSync(tasks)) return []
  try {
    return readFileSync(join(tasks, String(pid), 'children'), 'utf8')
      .split(' ')
      .filter((id) => id !== '')
      .map(Number)
  } catch {
    return []
  }
}

function procFile(pid: number, name: 'cmdline' | 'environ'): string {
  try {
    return readFileSync(join('/proc', String(pid), name), 'utf8')
  } catch {
    return ''
  }
}

/** Linux, glibc 2.35 or later, and transparent huge pages not turned off in the kernel. */
function hostHasHugePages(): boolean {
  if (process.platform !== 'linux') return false
  const header = process.report.getReport() as { header?: { glibcVersionRuntime?: string } }
  const [major = 0, minor = 0] = (header.header?.glibcVersionRuntime ?? '0.0').split('.').map(Number)
  const enabled = existsSync(THP_SETTING) ? readFileSync(THP_SETTING, 'utf8') : '[never]'
  return (major > 2 || (major === 2 && minor >= 35)) && !enabled.includes('[never]')
}

const THP_SETTING = '/sys/kernel/mm/transparent_hugepage/enabled'

describe('leadline seed demo of many leads', () => {
  const dir = mkdtempSync(join(tmpdir(), 'leadline-huge-pages-'))
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true })
  })

  it('starts again with a larger young generation, on huge pages where the host has them, and seeds', async () => {
    const file = join(dir, 'seed.db')
    const args = ['seed', 'demo', '--leads', String(HUGE_PAGES_FROM_LEADS), '--db', `sqlite:${file}`, '--json']
    const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => name !== 'GLIBC_TUNABLES'))
    // Read here, not through the module under test: a host that has huge pages must see the second start.
    const expected = hostHasHugePages()
    const child = spawn(process.execPath, [cliPath, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()))
    child.stderr.resume()
    const exited = new Promise<number | null>((resolve) => child.once('close', resolve))
    // Whether a second node ran the seed, with the flag and the tunable, while the first waited.
    let relaunched = false
    let onHugePages = false
    const run = { over: false }
    void exited.then(() => (run.over = true))
    while (!run.over && child.pid !== undefined) {
      for (const pid of childrenOf(child.pid)) {
        if (
          procFile(pid, 'cmdline')
            .split('\0')
            .includes(`--max-semi-space-size=${String(SEED_SEMI_SPACE_MB)}`)
        ) {
          relaunched = true
        }
        if (procFile(pid, 'environ').split('\0').includes('GLIBC_TUNABLES=glibc.malloc.hugetlb=1')) onHugePages = true
      }
      await sleep(25)
    }
    expect(await exited).toBe(0)
    expect(relaunched).toBe(true)
    expect(onHugePages).toBe(expected)
    const printed = JSON.parse(stdout) as { organization_id: string }
    const database = openDatabase(`sqlite:${file}`)
    try {
      const leads = await database.db
        .selectFrom('lead')
        .select((eb) => eb.fn.countAll<number>().as('leads'))
        .where('organization_id', '=', printed.organization_id)
        .executeTakeFirstOrThrow()
      expect(leads.leads).toBe(HUGE_PAGES_FROM_LEADS)
    } finally {
      await database.close()
    }
  }, 120_000)
})
