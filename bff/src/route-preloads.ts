import { join } from 'node:path'
import { BuildFile, type BuildFileOptions } from './build-file.js'

// The screens' own chunks, preloaded from the page: the web build lists, for each screen's URL pattern, the chunks its
// first visit loads beyond what index.html preloads (web/vite-route-preloads.ts, dist/route-preloads.json). Named in
// the page, they load beside the entry instead of after it has run (docs/decisions/0067-first-screen-requests.md).

export const ROUTE_PRELOADS_FILE = 'route-preloads.json'
/** A longer list is not read: the build writes a few kilobytes. */
const LARGEST_LIST_BYTES = 1024 * 1024
const MOST_ROUTES = 512
const MOST_FILES_A_ROUTE = 64
/** Only the build's own chunk names reach the page: nothing in them can leave the attribute they are written in. */
const CHUNK_NAME = /^assets\/[A-Za-z0-9_.-]+\.js$/
const SEGMENT = /^\$?[A-Za-z0-9_.-]+$/

interface RoutePreload {
  segments: string[]
  params: number
  files: string[]
}

function parse(text: string): RoutePreload[] {
  const parsed: unknown = JSON.parse(text)
  const routes: unknown = typeof parsed === 'object' && parsed !== null ? Reflect.get(parsed, 'routes') : undefined
  if (!Array.isArray(routes)) return []
  const found: RoutePreload[] = []
  for (const route of routes.slice(0, MOST_ROUTES)) {
    const path: unknown = typeof route === 'object' && route !== null ? Reflect.get(route, 'path') : undefined
    const files: unknown = typeof route === 'object' && route !== null ? Reflect.get(route, 'files') : undefined
    if (typeof path !== 'string' || !path.startsWith('/') || !Array.isArray(files)) continue
    const segments = path.split('/').filter((segment) => segment !== '')
    if (!segments.every((segment) => SEGMENT.test(segment))) continue
    const names = files
      .slice(0, MOST_FILES_A_ROUTE)
      .filter((file): file is string => typeof file === 'string' && CHUNK_NAME.test(file))
    const params = segments.filter((segment) => segment.startsWith('$')).length
    found.push({ segments, params, files: names })
  }
  // A path of its own before a pattern that would also match it (`/leads/import` before `/leads/$leadId`).
  return found.sort((a, b) => a.params - b.params)
}

/** Reads the build's list when it changes (a rebuild while the BFF runs); no list, or an unreadable one, is none. */
export class RoutePreloads {
  readonly #list: BuildFile<RoutePreload[]>

  constructor(webDist: string, options: Omit<BuildFileOptions, 'maxBytes'> = {}) {
    // A list cut short by a build in progress does not parse: none until the next one is written.
    this.#list = new BuildFile(join(webDist, ROUTE_PRELOADS_FILE), parse, { ...options, maxBytes: LARGEST_LIST_BYTES })
  }

  private routes(): RoutePreload[] {
    return this.#list.get() ?? []
  }

  /** The chunks of the screen at `path` (a URL path, without its query), or none for a path no screen has. */
  filesFor(path: string): string[] {
    const segments = path.split('/').filter((segment) => segment !== '')
    const route = this.routes().find(
      (candidate) =>
        candidate.segments.length === segments.length &&
        candidate.segments.every((segment, i) => segment.startsWith('$') || segment === segments[i]),
    )
    return route?.files ?? []
  }
}

/** The `<link>` elements that preload `files` as module scripts, as Vite writes those of index.html. */
export function modulePreloadLinks(files: readonly string[]): string {
  return files.map((file) => `<link rel="modulepreload" crossorigin href="/${file}">`).join('')
}
