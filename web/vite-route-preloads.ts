import type { Plugin } from 'vite'

// Writes dist/route-preloads.json: for each screen's URL pattern, the chunks its first visit loads beyond what
// index.html already preloads. The BFF adds them as <link rel="modulepreload"> to the page it serves a signed-in
// browser (bff/src/route-preloads.ts), so the screen's code comes with the entry instead of after it has run
// (docs/decisions/0067-first-screen-requests.md).

export const ROUTE_PRELOADS_FILE = 'route-preloads.json'

export interface ChunkFacts {
  imports: string[]
  modules: string[]
  isEntry: boolean
}

/**
 * A route file's URL pattern under TanStack Router's file conventions, or undefined for a file that is no screen of
 * its own: `_app/leads/$leadId.tsx` → `/leads/$leadId`, `_app/leads/index.tsx` → `/leads`, `_app.tsx` → undefined.
 * Segments starting with `_` are layouts without a path; `$name` stands for one segment.
 */
export function routePattern(file: string): string | undefined {
  const segments = file.replace(/\.tsx$/, '').split('/')
  const last = segments.at(-1) ?? ''
  if (last.startsWith('_')) return undefined
  const path = segments.filter((segment) => !segment.startsWith('_') && segment !== 'index')
  return `/${path.join('/')}`
}

/** The files chunks load with them: themselves and their static imports, all the way down. */
export function closure(chunks: ReadonlyMap<string, ChunkFacts>, roots: readonly string[]): Set<string> {
  const seen = new Set<string>()
  const stack = [...roots]
  for (let name = stack.pop(); name !== undefined; name = stack.pop()) {
    if (seen.has(name)) continue
    seen.add(name)
    stack.push(...(chunks.get(name)?.imports ?? []))
  }
  return seen
}

/**
 * For each route file under `src/routes/` with code split from the entry: the chunks of its split parts and of its
 * layouts' (`_app.tsx` for `_app/…`), and of the modules its loader imports on demand (`loaderImports`: the leads
 * list's loader starts the table's code beside the first page), with their static imports, less the entry's files.
 */
export function routePreloads(
  chunks: ReadonlyMap<string, ChunkFacts>,
  loaderImports: (routeFile: string) => readonly string[] = () => [],
): { path: string; files: string[] }[] {
  const entries = [...chunks].filter(([, chunk]) => chunk.isEntry).map(([name]) => name)
  const preloaded = closure(chunks, entries)
  const splitOf = (routeFile: string) =>
    [...chunks]
      .filter(([, chunk]) => chunk.modules.some((id) => id.includes(`/src/routes/${routeFile}?tsr-split`)))
      .map(([name]) => name)
  const routeFiles = new Set<string>()
  for (const chunk of chunks.values()) {
    for (const id of chunk.modules) {
      const match = /\/src\/routes\/([^?]+\.tsx)\?tsr-split/.exec(id)
      if (match?.[1] !== undefined) routeFiles.add(match[1])
    }
  }
  const routes: { path: string; files: string[] }[] = []
  for (const file of [...routeFiles].sort()) {
    const path = routePattern(file)
    if (path === undefined) continue
    const segments = file.split('/')
    // The split parts of each layout the route sits in (`_app.tsx` for `_app/leads/index.tsx`).
    const layouts = segments
      .slice(0, -1)
      .map((_, i) => `${segments.slice(0, i + 1).join('/')}.tsx`)
      .filter((layout) => routeFiles.has(layout))
    const onDemand = loaderImports(file)
    const loaded = [...chunks].filter(([, chunk]) => chunk.modules.some((id) => onDemand.includes(id)))
    const roots = [...[...layouts, file].flatMap(splitOf), ...loaded.map(([name]) => name)]
    const files = [...closure(chunks, roots)].filter((name) => !preloaded.has(name)).sort()
    if (files.length > 0) routes.push({ path, files })
  }
  return routes
}

/**
 * `routes` with an entry for each path that only redirects (`from`, with no code of its own) holding its target's
 * chunks: a page opened there loads what it will show beside the entry, not after the redirect has run.
 */
export function withRedirects(
  routes: readonly { path: string; files: string[] }[],
  redirects: Readonly<Record<string, string>>,
): { path: string; files: string[] }[] {
  const added = Object.entries(redirects).flatMap(([from, to]) => {
    const target = routes.find((route) => route.path === to)
    const own = routes.some((route) => route.path === from)
    return target === undefined || own ? [] : [{ path: from, files: [...target.files] }]
  })
  return [...routes, ...added]
}

/** `redirects`: paths that send the browser on to another screen, by the screen they send it to. */
export function routePreloadsPlugin(redirects: Readonly<Record<string, string>> = {}): Plugin {
  return {
    name: 'leadline-route-preloads',
    apply: 'build',
    generateBundle(_options, bundle) {
      const chunks = new Map<string, ChunkFacts>()
      for (const [fileName, output] of Object.entries(bundle)) {
        if (output.type !== 'chunk') continue
        chunks.set(fileName, { imports: output.imports, modules: Object.keys(output.modules), isEntry: output.isEntry })
      }
      // What the route module (its loader, once the component is split off) and the modules it imports directly
      // load with import(): a loader's helper such as the leads table's.
      const moduleIds = [...this.getModuleIds()]
      const loaderImports = (routeFile: string) => {
        const id = moduleIds.find((moduleId) => moduleId.endsWith(`/src/routes/${routeFile}`))
        const route = id === undefined ? null : this.getModuleInfo(id)
        if (route === null) return []
        const direct = route.importedIds.map((imported) => this.getModuleInfo(imported))
        return [route, ...direct].flatMap((info) => info?.dynamicallyImportedIds ?? [])
      }
      const routes = withRedirects(routePreloads(chunks, loaderImports), redirects)
      this.emitFile({
        type: 'asset',
        fileName: ROUTE_PRELOADS_FILE,
        source: `${JSON.stringify({ routes }, null, 2)}\n`,
      })
    },
  }
}
