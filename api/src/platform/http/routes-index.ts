/** Remembers every route so the not-found handler can tell 404 (no such path) from 405 (wrong method). */
export class RouteIndex {
  private readonly routes: { pattern: RegExp; method: string }[] = []

  add(url: string, methods: string | string[]): void {
    const pattern = new RegExp(
      '^' +
        url
          .replace(/\/+$/, '')
          .split('/')
          .map((segment) => (segment.startsWith(':') ? '[^/]+' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
          .join('/') +
        '/?$',
    )
    for (const method of Array.isArray(methods) ? methods : [methods]) this.routes.push({ pattern, method })
  }

  methodsFor(path: string): string[] {
    const clean = path.split('?')[0] ?? ''
    return [...new Set(this.routes.filter((r) => r.pattern.test(clean)).map((r) => r.method))]
  }
}
