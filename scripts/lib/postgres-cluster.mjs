// A throwaway PostgreSQL cluster in a temp dir: trust auth, no fsync, loopback only. Used by `npm test` for the
// API suite on Postgres, and reusable by the benchmark.
import { spawnSync } from 'node:child_process'
import console from 'node:console'
import { chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { addCleanup, aptInstall, capture, childEnv, freePort, isExecutable, isRoot, which } from './bootstrap.mjs'

const debianPostgresRoot = '/usr/lib/postgresql'

function hasServerBinaries(dir) {
  return isExecutable(join(dir, 'initdb')) && isExecutable(join(dir, 'pg_ctl'))
}

/** The directory holding initdb and pg_ctl: from PATH, else Debian's highest installed version; null if none. */
export function findPostgresBinDir() {
  const initdb = which('initdb')
  if (initdb && hasServerBinaries(dirname(initdb))) return dirname(initdb)
  if (!existsSync(debianPostgresRoot)) return null
  const versions = readdirSync(debianPostgresRoot)
    .filter((name) => /^\d+(\.\d+)?$/.test(name))
    .sort((a, b) => Number(b) - Number(a))
  const version = versions.find((name) => hasServerBinaries(join(debianPostgresRoot, name, 'bin')))
  return version ? join(debianPostgresRoot, version, 'bin') : null
}

/** A client program of the same installation as the server's (initdb may be a link to it), else from PATH. */
function clientTool(binDir, name) {
  const beside = join(dirname(realpathSync(join(binDir, 'initdb'))), name)
  return isExecutable(beside) ? beside : (which(name) ?? name)
}

async function locateBinDir(installIfMissing) {
  const found = findPostgresBinDir()
  if (found || !installIfMissing) return found
  console.log('PostgreSQL server binaries (initdb, pg_ctl) not found; installing postgresql')
  return (await aptInstall(['postgresql'])) ? findPostgresBinDir() : null
}

function userIds(name) {
  const id = (flag) => spawnSync('id', [flag, name], { encoding: 'utf8' })
  const uid = id('-u')
  const gid = id('-g')
  if (uid.status !== 0 || gid.status !== 0) return null
  return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) }
}

function shellQuote(word) {
  return `'${word.replaceAll("'", "'\\''")}'`
}

// initdb refuses to run as root, so as root the cluster belongs to the `postgres` user.
function asClusterOwner(owner, cmd, args) {
  if (!owner) return [cmd, args]
  if (which('runuser')) return ['runuser', ['-u', 'postgres', '--', cmd, ...args]]
  return ['su', ['postgres', '-s', '/bin/sh', '-c', [cmd, ...args].map(shellQuote).join(' ')]]
}

function clusterOwner() {
  if (!isRoot()) return null
  const ids = userIds('postgres')
  if (!ids) throw new Error('running as root, but there is no `postgres` user to own the cluster (initdb refuses root)')
  return ids
}

function logTail(logFile) {
  if (!existsSync(logFile)) return ''
  return readFileSync(logFile, 'utf8').split('\n').slice(-20).join('\n')
}

async function ownerRun(cluster, cmd, args) {
  const [command, commandArgs] = asClusterOwner(cluster.owner, cmd, args)
  return capture(command, commandArgs, { cwd: cluster.dir, stderr: 'pipe' })
}

// A throwaway cluster stops at once and is removed; a kept one shuts down cleanly (its data written out), to start
// again next time.
function stopClusterNow(cluster) {
  const [command, commandArgs] = asClusterOwner(cluster.owner, join(cluster.binDir, 'pg_ctl'), [
    '-D',
    cluster.dataDir,
    '-m',
    cluster.keep ? 'fast' : 'immediate',
    '-w',
    'stop',
  ])
  if (existsSync(join(cluster.dataDir, 'postmaster.pid'))) {
    spawnSync(command, commandArgs, { cwd: cluster.dir, env: childEnv(), stdio: 'ignore' })
  }
  if (!cluster.keep) rmSync(cluster.dir, { recursive: true, force: true })
}

async function initAndStart(cluster, settings) {
  // A kept cluster's data directory is used as it is, when an earlier run made it.
  if (!existsSync(join(cluster.dataDir, 'PG_VERSION'))) {
    const init = await ownerRun(cluster, join(cluster.binDir, 'initdb'), [
      '-A',
      'trust',
      '-U',
      'postgres',
      '--no-sync',
      '-D',
      cluster.dataDir,
    ])
    if (init.code !== 0) throw new Error(`initdb failed (exit ${init.code}):\n${init.stdout}`)
  }
  const port = await freePort()
  const serverOptions = [
    // A kept cluster's directory may have a path too long for a Unix socket's name: it listens on loopback alone.
    `-p ${port} -k ${cluster.keep ? "''" : cluster.dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200`,
    ...Object.entries(settings).map(([name, value]) => `-c ${name}=${value}`),
  ].join(' ')
  const start = await ownerRun(cluster, join(cluster.binDir, 'pg_ctl'), [
    '-D',
    cluster.dataDir,
    '-l',
    cluster.logFile,
    '-o',
    serverOptions,
    '-w',
    'start',
  ])
  if (start.code !== 0) {
    throw new Error(`pg_ctl start failed (exit ${start.code}):\n${start.stdout}\n${logTail(cluster.logFile)}`)
  }
  return port
}

/**
 * Starts a fresh cluster on a free port, with server `settings` (name to value) over the defaults. Resolves
 * `{ url, port, dir, stop(), database(name) }` (url: the `postgres` database's); the cluster is also stopped and
 * removed when the process exits or gets SIGINT/SIGTERM/SIGHUP. Rejects with the reason when it cannot start. With `keepIn`, the cluster lives in that
 * directory instead of a temporary one, is started from what it holds when an earlier run made it, and is stopped but
 * kept (the benchmark's seeds, reused as its SQLite files are).
 */
export async function startCluster({ installIfMissing = false, settings = {}, keepIn } = {}) {
  const binDir = await locateBinDir(installIfMissing)
  if (!binDir) throw new Error('PostgreSQL server binaries (initdb, pg_ctl) not found; install the postgresql package')
  const owner = clusterOwner()
  const keep = keepIn !== undefined
  const dir = keep ? keepIn : mkdtempSync(join(tmpdir(), 'leadline-pg-'))
  if (keep) mkdirSync(dir, { recursive: true })
  if (owner) chownSync(dir, owner.uid, owner.gid)
  const cluster = { binDir, owner, dir, keep, dataDir: join(dir, 'data'), logFile: join(dir, 'postgres.log') }
  const stop = addCleanup(() => stopClusterNow(cluster))
  try {
    const port = await initAndStart(cluster, settings)
    const url = (database) => `postgres://postgres@127.0.0.1:${port}/${database}`
    return {
      url: url('postgres'),
      port,
      dir,
      stop: () => Promise.resolve(stop()),
      /**
       * The URL of the database `name` (lower-case letters, digits and _), created the first time. Whether it exists
       * is asked of pg_database, not read from createdb's message, which the server's language may translate.
       */
      database: async (name) => {
        if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`not a plain database name: ${name}`)
        const server = ['-h', '127.0.0.1', '-p', String(port), '-U', 'postgres']
        const query = `select 1 from pg_database where datname = '${name}'`
        const found = await capture(clientTool(binDir, 'psql'), [...server, '-d', 'postgres', '-tAc', query], {
          stderr: 'pipe',
        })
        if (found.code !== 0)
          throw new Error(`psql could not list the databases (exit ${found.code}):\n${found.stdout}`)
        if (found.stdout.trim() === '1') return url(name)
        const made = await capture(clientTool(binDir, 'createdb'), [...server, name], { stderr: 'pipe' })
        if (made.code !== 0) throw new Error(`createdb ${name} failed (exit ${made.code}):\n${made.stdout}`)
        return url(name)
      },
    }
  } catch (error) {
    stop()
    throw error
  }
}
