#!/usr/bin/env node
import { largeSeedRestart, runAgain, thisHost } from './huge-pages.js'

// `leadline`'s entry point. A large seed starts again with malloc on huge pages and a larger young generation
// (huge-pages.ts) before the commands' modules are loaded: they take about a second, which the first start would
// spend for nothing. Anything else loads the program and runs here.
const argv = process.argv.slice(2)
const again = largeSeedRestart(argv, process.env, process.execArgv, thisHost)
const code =
  again === undefined
    ? await (await import('./cli-program.js')).runCli(argv)
    : await runAgain(process.execPath, [...again.nodeArgs, ...process.argv.slice(1)], again.env)
if (code !== undefined) process.exitCode = code
