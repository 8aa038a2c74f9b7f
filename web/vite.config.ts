import tailwindcss from '@tailwindcss/vite'
import { tanstackRouter } from '@tanstack/router-plugin/vite'
import react from '@vitejs/plugin-react'
import { defaultClientConditions, defineConfig, type Plugin } from 'vite'
import { gzipSync } from 'node:zlib'

const bff = 'http://127.0.0.1:3000'

/** The routes a visit can start on; each must load within the budget (issue 4). */
const FIRST_ROUTES = ['src/routes/sign-in.tsx', 'src/routes/_app/leads/index.tsx', 'src/routes/_app/leads/$leadId.tsx']
const FIRST_ROUTE_BUDGET = 130 * 1024

/** Prints the gzipped JavaScript a first visit to each route loads (entry + route chunks + their static imports). */
function firstRouteBudget(): Plugin {
  return {
    name: 'leadline-first-route-budget',
    apply: 'build',
    generateBundle(_options, bundle) {
      const chunks = new Map<string, { code: string; imports: string[]; modules: string[]; isEntry: boolean }>()
      for (const [fileName, output] of Object.entries(bundle)) {
        if (output.type === 'chunk') {
          chunks.set(fileName, {
            code: output.code,
            imports: output.imports,
            modules: Object.keys(output.modules),
            isEntry: output.isEntry,
          })
        }
      }
      const entries = [...chunks].filter(([, c]) => c.isEntry).map(([name]) => name)
      const over: string[] = []
      for (const route of FIRST_ROUTES) {
        const routeChunks = [...chunks].filter(([, c]) => c.modules.some((m) => m.includes(route))).map(([n]) => n)
        const seen = new Set<string>()
        const stack = [...entries, ...routeChunks, ...(route.includes('/_app/') ? appLayoutChunks(chunks) : [])]
        for (let name = stack.pop(); name !== undefined; name = stack.pop()) {
          if (seen.has(name)) continue
          seen.add(name)
          stack.push(...(chunks.get(name)?.imports ?? []))
        }
        const bytes = [...seen].reduce((sum, name) => sum + gzipSync(chunks.get(name)?.code ?? '').length, 0)
        const line = `first visit to ${route}: ${(bytes / 1024).toFixed(1)} kB gzipped JS (budget 130 kB)`
        this.info(line)
        if (bytes > FIRST_ROUTE_BUDGET) over.push(line)
      }
      if (over.length > 0 && process.env.NO_BUDGET === undefined)
        this.error(`over the first-route budget:\n${over.join('\n')}`)
    },
  }
}

function appLayoutChunks(chunks: Map<string, { modules: string[] }>): string[] {
  return [...chunks].filter(([, c]) => c.modules.some((m) => m.includes('src/routes/_app.tsx'))).map(([n]) => n)
}

export default defineConfig({
  plugins: [
    // The router plugin must run before the react plugin so it can split route files.
    tanstackRouter({ target: 'react', autoCodeSplitting: true, quoteStyle: 'single', semicolons: false }),
    react(),
    tailwindcss(),
    firstRouteBudget(),
  ],
  // Read @leadline/shared from its TypeScript source, as the other packages' tests do.
  resolve: { conditions: ['@leadline/source', ...defaultClientConditions] },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    rolldownOptions: {
      output: {
        // The lead page and the settings screens share these small controls: one chunk of them costs a first visit
        // less than three chunks of a few hundred bytes, each with its own imports and gzip header.
        codeSplitting: {
          includeDependenciesRecursively: false,
          groups: [{ name: 'fields', test: /src\/components\/ui\/(text-field|select-field|inline-edit)\.tsx$/ }],
        },
      },
    },
  },
  server: { proxy: { '/api': bff, '/auth': bff } },
  preview: { proxy: { '/api': bff, '/auth': bff } },
})
