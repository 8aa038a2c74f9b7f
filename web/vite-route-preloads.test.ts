import { describe, expect, it } from 'vitest'
import { routePattern, routePreloads, withRedirects } from './vite-route-preloads'

describe('routePattern', () => {
  it('follows the router’s file conventions', () => {
    expect(routePattern('_app/leads/$leadId.tsx')).toBe('/leads/$leadId')
    expect(routePattern('_app/leads/index.tsx')).toBe('/leads')
    expect(routePattern('_app/index.tsx')).toBe('/')
    expect(routePattern('_app/settings/custom-fields.tsx')).toBe('/settings/custom-fields')
    expect(routePattern('sign-in.tsx')).toBe('/sign-in')
    expect(routePattern('_app.tsx')).toBeUndefined()
    expect(routePattern('__root.tsx')).toBeUndefined()
  })
})

describe('routePreloads', () => {
  const root = '/repo/web/src/routes'
  const chunks = new Map([
    ['assets/index.js', { isEntry: true, imports: ['assets/vendor.js'], modules: ['/repo/web/src/main.tsx'] }],
    ['assets/vendor.js', { isEntry: false, imports: [], modules: ['/repo/node_modules/react/index.js'] }],
    [
      'assets/_app.js',
      { isEntry: false, imports: ['assets/vendor.js'], modules: [`${root}/_app.tsx?tsr-split=component`] },
    ],
    [
      'assets/leads.js',
      {
        isEntry: false,
        imports: ['assets/vendor.js', 'assets/columns.js'],
        modules: [`${root}/_app/leads/index.tsx?tsr-split=component`],
      },
    ],
    ['assets/columns.js', { isEntry: false, imports: [], modules: ['/repo/web/src/features/leads/columns.ts'] }],
    [
      'assets/table.js',
      { isEntry: false, imports: ['assets/virtual.js'], modules: ['/repo/web/src/features/leads/table.tsx'] },
    ],
    ['assets/virtual.js', { isEntry: false, imports: [], modules: ['/repo/node_modules/virtual/index.js'] }],
    ['assets/sign-in.js', { isEntry: false, imports: [], modules: [`${root}/sign-in.tsx?tsr-split=component`] }],
  ])

  it('lists each screen’s split chunks, its layouts’ and its loader’s, with their imports, less the entry’s files', () => {
    const loader = (file: string) => (file === '_app/leads/index.tsx' ? ['/repo/web/src/features/leads/table.tsx'] : [])
    expect(routePreloads(chunks, loader)).toEqual([
      {
        path: '/leads',
        files: ['assets/_app.js', 'assets/columns.js', 'assets/leads.js', 'assets/table.js', 'assets/virtual.js'],
      },
      { path: '/sign-in', files: ['assets/sign-in.js'] },
    ])
  })
})

describe('withRedirects', () => {
  const routes = [
    { path: '/settings/pipelines', files: ['assets/pipelines.js', 'assets/settings-layout.js'] },
    { path: '/leads', files: ['assets/leads.js'] },
  ]

  it('gives a path that only redirects its target’s chunks', () => {
    expect(withRedirects(routes, { '/settings': '/settings/pipelines' })).toEqual([
      ...routes,
      { path: '/settings', files: ['assets/pipelines.js', 'assets/settings-layout.js'] },
    ])
  })

  it('leaves a path with code of its own, and a target with none, as they are', () => {
    expect(withRedirects(routes, { '/leads': '/settings/pipelines', '/x': '/nowhere' })).toEqual(routes)
  })
})
