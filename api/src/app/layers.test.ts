import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { ESLint } from 'eslint'
import ts from 'typescript'
import { describe, expect, it } from 'vitest'

// The api's layers (docs/decisions/0042-code-layout.md) are enforced by lint; these tests prove the rule bites on a
// deliberately wrong import, lets the allowed ones through, and that no import cycle remains, type imports included.

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../../..')
const src = join(repoRoot, 'api/src')

// One instance: its typed-lint project service is built once for every probe.
const eslint = new ESLint({ cwd: repoRoot })

/** The layer rule's complaints about `file` (relative to api/src) with `line` added to its imports. */
async function layerErrors(file: string, line: string): Promise<string[]> {
  const path = join(src, file)
  const [result] = await eslint.lintText(`${line}\n${readFileSync(path, 'utf8')}`, { filePath: path })
  return (result?.messages ?? [])
    .filter((m) => m.ruleId === 'import-x/no-restricted-paths')
    .map((m) => `${String(m.line)}: ${m.message}`)
}

describe('the layer rule', () => {
  it('refuses an import that points up or sideways, and allows those that point down', async () => {
    const wrong: [string, string][] = [
      ['platform/text/text.ts', "import { leadRoutes } from '../../crm/leads/lead-routes.js'"],
      ['crm/leads/lead-repo.ts', "import { emailRoutes } from '../../email/send/email-routes.js'"],
      ['crm/leads/lead-repo.ts', "import { smsRoutes } from '../../telephony/sms/sms-routes.js'"],
      ['crm/leads/lead-repo.ts', "import { writeOutbox } from '../../integrations/outbox/outbox-writer.js'"],
      ['integrations/events/event-repo.ts', "import { writeOutbox } from '../outbox/outbox-writer.js'"],
      ['integrations/events/event-repo.ts', "import type { Deps } from '../../crm/deps.js'"],
      ['email/send/email-routes.ts', "import { buildApp } from '../../app/app.js'"],
      ['crm/leads/lead-repo.ts', "import { createTestContext } from '../../tooling/test-support/test-app.js'"],
      ['crm/users/user-repo.ts', "import { setPassword } from '../../accounts/account-repo.js'"],
      ['email/send/email-routes.ts', "import { setPassword } from '../../accounts/account-repo.js'"],
      ['accounts/account-repo.ts', "import { buildApp } from '../app/app.js'"],
    ]
    for (const [file, line] of wrong) {
      const errors = await layerErrors(file, line)
      expect(errors, `${file} ← ${line}`).toHaveLength(1)
      expect(errors[0]).toMatch(/^1: /)
    }
    const allowed: [string, string][] = [
      ['crm/leads/lead-repo.ts', "import { recordEvents } from '../../integrations/events/event-repo.js'"],
      ['email/send/email-routes.ts', "import { findLead } from '../../crm/leads/lead-repo.js'"],
      ['crm/leads/lead-routes.test.ts', "import { createTestContext } from '../../tooling/test-support/test-app.js'"],
      ['app/cli/cli-program.ts', "import { seedDemo } from '../../tooling/demo/demo-seed.js'"],
      ['accounts/account-repo.ts', "import { addMembership } from '../crm/users/user-repo.js'"],
    ]
    for (const [file, line] of allowed) {
      expect(await layerErrors(file, line), `${file} ← ${line}`).toEqual([])
    }
  }, 300_000)
})

/** Every .ts file under api/src that is not a test, by path relative to api/src. */
function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return sourceFiles(path)
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [relative(src, path)] : []
  })
}

describe('imports', () => {
  it('form no cycle, type-only imports included', () => {
    const files = sourceFiles(src)
    const known = new Set(files)
    const graph = new Map<string, string[]>()
    for (const file of files) {
      // TypeScript's own pre-parser lists every import, `import type` and `import()` included.
      const { importedFiles } = ts.preProcessFile(readFileSync(join(src, file), 'utf8'), true, true)
      const targets = importedFiles
        .map((i) => i.fileName)
        .filter((name) => name.startsWith('.'))
        .map((name) => relative(src, resolve(src, dirname(file), name)).replace(/\.js$/, '.ts'))
        .filter((target) => known.has(target))
      graph.set(file, targets)
    }
    expect(graph.size).toBeGreaterThan(200)
    const cycles = findCycles(graph)
    expect(cycles).toEqual([])
  })
})

/** The strongly connected groups of more than one file (Tarjan), each a cycle or several. */
function findCycles(graph: Map<string, string[]>): string[][] {
  let next = 0
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: string[] = []
  const onStack = new Set<string>()
  const groups: string[][] = []
  const visit = (v: string): void => {
    index.set(v, next)
    low.set(v, next)
    next++
    stack.push(v)
    onStack.add(v)
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w)
        low.set(v, Math.min(low.get(v) ?? 0, low.get(w) ?? 0))
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v) ?? 0, index.get(w) ?? 0))
    }
    if (low.get(v) !== index.get(v)) return
    const group: string[] = []
    let w: string | undefined
    do {
      w = stack.pop()
      if (w === undefined) break
      onStack.delete(w)
      group.push(w)
    } while (w !== v)
    if (group.length > 1) groups.push(group.sort())
  }
  for (const v of graph.keys()) if (!index.has(v)) visit(v)
  return groups
}
