// Generates the search languages' parsers from their peggy grammars into generated/, before tsc (the api's `build`).
// The output is committed, so a fresh clone typechecks and tests without a build; `--check` regenerates into a
// scratch directory and fails when the committed parsers differ from what the grammars give (search-grammars.test.ts).
import { spawnSync } from 'node:child_process'
import console from 'node:console'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import process from 'node:process'
import { fileURLToPath } from 'node:url'

const apiDir = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const peggyBin = join(dirname(createRequire(import.meta.url).resolve('peggy/package.json')), 'bin', 'peggy.js')
const sharedTerms = 'src/platform/text/search-terms.peggy'
const treeType = 'import("../src/platform/text/search-tree.js").SearchTree'

/** Each parser: its language's grammar, then the shared terms; peggy reads the files as one grammar. */
export const parsers = [
  { output: 'generated/lead-search-parser.js', grammars: ['src/crm/leads/lead-search.peggy', sharedTerms] },
  {
    output: 'generated/opportunity-query-parser.js',
    grammars: ['src/crm/opportunities/opportunity-query.peggy', sharedTerms],
  },
]

function generate(outDir) {
  for (const { output, grammars } of parsers) {
    const args = [
      peggyBin,
      '--format',
      'es',
      // Linear parsing: without it a failing nested group is re-parsed at every level above it.
      '--cache',
      '--allowed-start-rules',
      'Query',
      '--dts',
      '--return-types',
      JSON.stringify({ Query: `${treeType} | null` }),
      '--output',
      join(outDir, output),
      ...grammars,
    ]
    const result = spawnSync(process.execPath, args, { cwd: apiDir, stdio: 'inherit' })
    if (result.status !== 0) throw new Error(`peggy failed on ${grammars.join(' + ')} (exit ${result.status})`)
  }
}

function outputs(dir) {
  return parsers.flatMap(({ output }) => [output, output.replace(/\.js$/, '.d.ts')]).map((file) => join(dir, file))
}

function check() {
  const scratch = mkdtempSync(join(tmpdir(), 'leadline-grammars-'))
  try {
    generate(scratch)
    const stale = outputs(scratch).filter((fresh, i) => {
      const committed = outputs(apiDir)[i] ?? ''
      try {
        return readFileSync(fresh, 'utf8') !== readFileSync(committed, 'utf8')
      } catch {
        return true
      }
    })
    for (const file of stale) console.error(`${file.slice(scratch.length + 1)} is not what its grammar generates`)
    return stale.length === 0
  } finally {
    rmSync(scratch, { recursive: true, force: true })
  }
}

if (process.argv.includes('--check')) {
  if (!check()) {
    console.error('run `node scripts/build-grammars.mjs` in api/ and commit the result')
    process.exitCode = 1
  }
} else {
  generate(apiDir)
}
