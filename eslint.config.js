import js from '@eslint/js'
import { importX } from 'eslint-plugin-import-x'
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript'
import jsxA11y from 'eslint-plugin-jsx-a11y'
import reactHooks from 'eslint-plugin-react-hooks'
import tseslint from 'typescript-eslint'

// Package boundaries from ARCHITECTURE.md §1: shared imports nothing of ours; web and bff never import api code.
const boundaries = [
  { target: './shared', from: ['./api', './bff', './web', './e2e'], message: 'shared imports nothing of ours' },
  { target: './api', from: ['./bff', './web', './e2e'], message: 'api never imports bff, web or e2e code' },
  { target: './bff', from: ['./api', './web', './e2e'], message: 'bff speaks HTTP to the api; it never imports it' },
  { target: './web', from: ['./api', './bff', './e2e'], message: 'web never imports api or bff code' },
  { target: './e2e', from: ['./api/src', './bff/src', './web/src'], message: 'e2e drives real processes' },
]

// The api's layers (docs/decisions/0042-code-layout.md): platform at the bottom; crm above it; email, telephony and
// integrations above crm; accounts (people and sign-in) above them; app, the composition root, on top. Events are a
// leaf every domain may call. Tooling (bench, demo, test support) is for tests and the CLI only.
const api = (folder) => `./api/src/${folder}`
const everythingAbovePlatform = ['app', 'crm', 'email', 'telephony', 'integrations', 'accounts'].map(api)
const apiLayers = [
  { target: api('platform'), from: everythingAbovePlatform, message: 'platform imports nothing above it' },
  {
    target: api('crm'),
    from: ['app', 'email', 'telephony', 'accounts'].map(api),
    message: 'crm does not import email, telephony, accounts or the app',
  },
  {
    target: api('crm'),
    from: api('integrations'),
    except: ['./events'],
    message: 'crm calls events only; outbox, webhooks, outbound and messages sit above it',
  },
  {
    target: api('integrations/events'),
    from: [
      ...['app', 'crm', 'email', 'telephony', 'accounts'].map(api),
      ...['outbox', 'webhooks', 'outbound', 'messages'].map((f) => api(`integrations/${f}`)),
    ],
    message: 'events are a leaf: they import only the platform, and their sinks are given by the composition root',
  },
  {
    target: ['email', 'telephony', 'integrations'].map(api),
    from: api('accounts'),
    message: 'accounts sit above email, telephony and integrations',
  },
  {
    target: ['email', 'telephony', 'integrations', 'accounts'].map(api),
    from: api('app'),
    message: 'domains do not import the app',
  },
]
// Tests may import tooling (test support); so may the CLI (`leadline seed demo`, the mail catcher).
const toolingOnlyForTests = {
  target: ['platform', 'crm', 'email', 'telephony', 'integrations', 'accounts', 'app/*.ts'].map(api),
  from: api('tooling'),
  message: 'only tests and the CLI import tooling',
}

export default tseslint.config(
  {
    ignores: [
      '**/dist/**',
      'web/dist-server/**',
      '**/node_modules/**',
      'api/generated/**',
      'data/**',
      'coverage/**',
      'e2e/test-results/**',
      '**/*.d.ts',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.strictTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        projectService: {
          allowDefaultProject: ['*.js', '*.mjs', 'scripts/*.mjs', 'e2e/*.mjs', '*/vitest.config.ts'],
          defaultProject: 'tsconfig.base.json',
        },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    plugins: { 'import-x': importX },
    rules: {
      'import-x/no-cycle': 'error',
      'import-x/no-default-export': 'error',
      'import-x/no-restricted-paths': [
        'error',
        { basePath: import.meta.dirname, zones: [...boundaries, ...apiLayers, toolingOnlyForTests] },
      ],
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true }],
      '@typescript-eslint/consistent-type-imports': 'error',
      // Fastify plugins are async functions by contract, whether or not they await.
      '@typescript-eslint/require-await': 'off',
      // `const { dropped, ...kept } = row` is how a key is left out of a copy.
      '@typescript-eslint/no-unused-vars': ['error', { ignoreRestSiblings: true }],
    },
    settings: {
      'import-x/resolver-next': [
        createTypeScriptImportResolver({
          project: ['*/tsconfig.json'],
          conditionNames: ['@leadline/source', 'types', 'import', 'default'],
        }),
      ],
    },
  },
  {
    files: ['shared/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ group: ['@leadline/*'], message: 'shared imports nothing of ours' }] },
      ],
    },
  },
  {
    files: ['web/**', 'bff/**', 'e2e/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['@leadline/api', '@leadline/api/*'], message: 'only the bff speaks to the api, over HTTP' },
          ],
        },
      ],
    },
  },
  {
    // Hooks live in .ts files too (lead-queries.ts); the accessibility rules only find JSX.
    files: ['web/src/**/*.{ts,tsx}'],
    plugins: { 'react-hooks': reactHooks, 'jsx-a11y': jsxA11y },
    rules: {
      ...reactHooks.configs.flat.recommended.rules,
      'react-hooks/exhaustive-deps': 'error',
      ...jsxA11y.flatConfigs.recommended.rules,
      // The kit's fields and buttons take autoFocus only where the user's own action moved focus (a dialog's first
      // field or its safe choice, an editor opened by "Edit …"), as the ARIA dialog pattern asks; an element's
      // autoFocus stays an error.
      'jsx-a11y/no-autofocus': ['error', { ignoreNonDOM: true }],
    },
  },
  {
    // Tests assert on parsed responses instead of trusting their types.
    files: ['**/*.test.ts', '**/test-support/**'],
    rules: {
      // A test drives the whole api (buildApp, the CLI), so the layers bind the code it tests, not the test itself.
      'import-x/no-restricted-paths': ['error', { basePath: import.meta.dirname, zones: boundaries }],
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
  {
    // Playwright reads a fixture's dependencies from its destructuring pattern, so `async ({}, use)` is required.
    files: ['e2e/fixtures.ts'],
    rules: { 'no-empty-pattern': 'off' },
  },
  {
    files: ['**/*.config.ts', '**/*.config.js', 'eslint.config.js'],
    rules: { 'import-x/no-default-export': 'off' },
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    ...tseslint.configs.disableTypeChecked,
  },
)
