import { tanstackRouter } from '@tanstack/router-plugin/vite'
import react from '@vitejs/plugin-react'
import { defaultServerConditions, defineConfig } from 'vite'

/**
 * The BFF's server render of the app's first screen (src/server-render.tsx, docs/decisions/0092): one self-contained
 * ES module in dist-server/, React's production build included, which the BFF imports from there.
 */
export default defineConfig({
  plugins: [
    // One file: the BFF loads every screen's code once, as it starts, so no split would be fetched later.
    tanstackRouter({ target: 'react', autoCodeSplitting: false, quoteStyle: 'single', semicolons: false }),
    react(),
  ],
  // Node's builds of the packages (react-dom/server's among them), and @leadline/shared from its TypeScript source.
  resolve: { conditions: ['@leadline/source', ...defaultServerConditions] },
  define: { 'process.env.NODE_ENV': JSON.stringify('production') },
  ssr: { noExternal: true, target: 'node', resolve: { conditions: ['@leadline/source', ...defaultServerConditions] } },
  build: {
    ssr: 'src/server-render.tsx',
    outDir: 'dist-server',
    emptyOutDir: true,
    rolldownOptions: { output: { codeSplitting: false } },
  },
})
