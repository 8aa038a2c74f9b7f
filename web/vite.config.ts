import tailwindcss from '@tailwindcss/vite'
import { tanstackRouter } from '@tanstack/router-plugin/vite'
import react from '@vitejs/plugin-react'
import { defaultClientConditions, defineConfig, type Plugin } from 'vite'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { brotliCompressSync, constants as zlib, gzipSync } from 'node:zlib'
import { closure, routePreloadsPlugin, type ChunkFacts } from './vite-route-preloads'
import { SCREEN_REDIRECTS } from './src/features/shell/screen-redirects'

const bff = 'http://127.0.0.1:3000'

/** The routes a visit can start on; each must load within the budget (issue 4). */
const FIRST_ROUTES = [
  'src/routes/sign-in.tsx',
  'src/routes/_app/inbox.tsx',
  'src/routes/_app/leads/index.tsx',
  'src/routes/_app/leads/$leadId.tsx',
]
const FIRST_ROUTE_BUDGET = 130 * 1024

/** The reports route, with the chart it loads lazily, may add this much over the leads list's first visit (issue 12). */
const REPORTS_ROUTE = 'src/routes/_app/reports/index.tsx'
const REPORTS_LAZY = 'src/features/reports/'
const REPORTS_OVER_LEADS = 80 * 1024

/** Text assets worth compressing: the BFF sends their `.br` or `.gz` as they are (express-static-gzip). */
const COMPRESSED = /\.(js|css|svg|json)$/
const COMPRESS_FROM_BYTES = 1024

/**
 * Writes each text asset brotli'd (best quality) and gzipped (best level) beside it, once at build time, rather than
 * the BFF compressing it again for every request. Node's zlib does both in a few lines, so no plugin is added.
 */
function precompressed(): Plugin {
  return {
    name: 'leadline-precompressed',
    apply: 'build',
    writeBundle(options, bundle) {
      const dir = options.dir ?? 'dist'
      for (const [fileName, output] of Object.entries(bundle)) {
        if (!COMPRESSED.test(fileName)) continue
        const source = output.type === 'chunk' ? output.code : output.source
        const bytes = typeof source === 'string' ? Buffer.from(source) : Buffer.from(source)
        if (bytes.length < COMPRESS_FROM_BYTES) continue
        const path = join(dir, fileName)
        writeFileSync(
          `${path}.br`,
          brotliCompressSync(bytes, { params: { [zlib.BROTLI_PARAM_QUALITY]: zlib.BROTLI_MAX_QUALITY } }),
        )
        writeFileSync(`${path}.gz`, gzipSync(bytes, { level: 9 }))
      }
    },
  }
}

interface ChunkInfo extends ChunkFacts {
  code: string
}

/** Prints the gzipped JavaScript a first visit to each route loads (entry + route chunks + their static imports). */
function firstRouteBudget(): Plugin {
  return {
    name: 'leadline-first-route-budget',
    apply: 'build',
    generateBundle(_options, bundle) {
      const chunks = new Map<string, ChunkInfo>()
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
      const over: string[] = []
      const kB = (bytes: number) => `${(bytes / 1024).toFixed(1)} kB`
      const sizes = new Map<string, number>()
      for (const route of [...FIRST_ROUTES, REPORTS_ROUTE]) {
        const bytes = firstVisitBytes(chunks, route)
        sizes.set(route, bytes)
        const line = `first visit to ${route}: ${kB(bytes)} gzipped JS (${String(bytes)} bytes; budget 130 kB)`
        this.info(line)
        if (bytes > FIRST_ROUTE_BUDGET) over.push(line)
      }
      const reports = firstVisitBytes(chunks, REPORTS_ROUTE, REPORTS_LAZY)
      const added = reports - (sizes.get('src/routes/_app/leads/index.tsx') ?? 0)
      const line = `the reports route with its lazy chart: ${kB(reports)}, ${kB(added)} gzipped JS over the leads list (budget 80 kB)`
      this.info(line)
      if (added > REPORTS_OVER_LEADS) over.push(line)
      if (over.length > 0 && process.env.NO_BUDGET === undefined)
        this.error(`over the first-route budget:\n${over.join('\n')}`)
    },
  }
}

/**
 * The gzipped bytes of the entry, the route's chunks and everything they import statically; with `lazyPrefix`, also
 * the chunks of the modules under it that the route loads on demand (and their imports), as its first visit does.
 */
function firstVisitBytes(chunks: Map<string, ChunkInfo>, route: string, lazyPrefix?: string): number {
  const entries = [...chunks].filter(([, c]) => c.isEntry).map(([name]) => name)
  const holding = (part: string) => [...chunks].filter(([, c]) => c.modules.some((m) => m.includes(part)))
  const routeChunks = holding(route).map(([n]) => n)
  const lazy = lazyPrefix === undefined ? [] : holding(lazyPrefix).map(([n]) => n)
  const seen = closure(chunks, [
    ...entries,
    ...routeChunks,
    ...lazy,
    ...(route.includes('/_app/') ? appLayoutChunks(chunks) : []),
  ])
  return [...seen].reduce((sum, name) => sum + gzipSync(chunks.get(name)?.code ?? '').length, 0)
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
    routePreloadsPlugin(SCREEN_REDIRECTS),
    precompressed(),
  ],
  // Read @leadline/shared from its TypeScript source, as the other packages' tests do.
  resolve: { conditions: ['@leadline/source', ...defaultClientConditions] },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // Browsers without <link rel=modulepreload> (Safari 16, Firefox before 115) still load every chunk, only without
    // fetching a chunk's imports ahead; the polyfill cost every first visit 0.3 kB.
    modulePreload: { polyfill: false },
    rolldownOptions: {
      output: {
        // The lead page and the settings screens share these two small fields: one chunk of them costs a first visit
        // less than two chunks of a few hundred bytes, each with its own imports and gzip header. Inline edit stays out:
        // the inbox needs only the text field, and with inline edit in the group it paid 0.7 kB for it.
        codeSplitting: {
          includeDependenciesRecursively: false,
          groups: [
            { name: 'fields', test: /src\/components\/ui\/(text-field|select-field)\.tsx$/ },
            // A first visit loaded some thirty files, and the browser fetches six at a time from one host over HTTP/1.1:
            // the first screen's API calls queued behind them (70–85 ms). What every screen runs goes in two files
            // instead of twenty: React and TanStack's router and query packages, and the app's own small helpers and
            // controls that six or more chunks import (fewer would put one screen's code in every first visit).
            {
              name: 'vendor',
              test: /node_modules\/.*\/node_modules\/(react|react-dom|scheduler|use-sync-external-store|@tanstack\/(react-router|router-core|history|store|react-store|query-core|react-query))\//,
            },
            // With them the API addresses' one writer (shared), which the app's HTTP client imports.
            {
              name: 'app-core',
              test: /web\/src\/(lib|components)\/|shared\/src\/first-screen-requests\.ts$/,
              minShareCount: 6,
            },
          ],
        },
      },
    },
  },
  server: { proxy: { '/api': bff, '/auth': bff, '/events': bff } },
  preview: { proxy: { '/api': bff, '/auth': bff, '/events': bff } },
})
