interface Operation {
  summary?: string
  description?: string
  tags?: string[]
  parameters?: { name: string; in: string; required?: boolean; description?: string; schema?: unknown }[]
  requestBody?: { content?: Record<string, { schema?: unknown }> }
  responses?: Record<string, { description?: string }>
}

interface OpenApiDocument {
  info?: { title?: string; description?: string; version?: string }
  paths?: object
}

const METHODS = new Set(['get', 'put', 'post', 'delete', 'patch', 'head', 'options'])

function operationsOf(pathItem: unknown): [string, Operation][] {
  if (typeof pathItem !== 'object' || pathItem === null) return []
  return Object.entries(pathItem).filter(
    (entry): entry is [string, Operation] => METHODS.has(entry[0]) && typeof entry[1] === 'object',
  )
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)
}

function schemaText(schema: unknown): string {
  return escapeHtml(JSON.stringify(schema, null, 2))
}

function renderOperation(method: string, path: string, op: Operation): string {
  const params = (op.parameters ?? [])
    .map(
      (p) =>
        `<tr><td><code>${escapeHtml(p.name)}</code></td><td>${escapeHtml(p.in)}</td><td>${p.required === true ? 'yes' : ''}</td><td>${escapeHtml(p.description ?? '')}</td></tr>`,
    )
    .join('')
  const body = op.requestBody?.content?.['application/json']?.schema
  const responses = Object.entries(op.responses ?? {})
    .map(([code, r]) => `<li><code>${escapeHtml(code)}</code> ${escapeHtml(r.description ?? '')}</li>`)
    .join('')
  return `<section>
<h3><span class="m">${method.toUpperCase()}</span> <code>${escapeHtml(path)}</code></h3>
${op.summary === undefined ? '' : `<p>${escapeHtml(op.summary)}</p>`}
${op.description === undefined ? '' : `<p>${escapeHtml(op.description)}</p>`}
${params === '' ? '' : `<table><thead><tr><th>Parameter</th><th>In</th><th>Required</th><th>Description</th></tr></thead><tbody>${params}</tbody></table>`}
${body === undefined ? '' : `<details><summary>Request body</summary><pre>${schemaText(body)}</pre></details>`}
${responses === '' ? '' : `<ul>${responses}</ul>`}
</section>`
}

/** A static, script-free page listing every operation of the OpenAPI document, grouped by tag. */
export function renderReferencePage(doc: OpenApiDocument): string {
  const groups = new Map<string, string[]>()
  for (const [path, pathItem] of Object.entries(doc.paths ?? {})) {
    for (const [method, op] of operationsOf(pathItem)) {
      const tag = op.tags?.[0] ?? 'other'
      const list = groups.get(tag) ?? []
      list.push(renderOperation(method, path, op))
      groups.set(tag, list)
    }
  }
  const toc = [...groups.keys()].map((tag) => `<li><a href="#${escapeHtml(tag)}">${escapeHtml(tag)}</a></li>`).join('')
  const sections = [...groups.entries()]
    .map(([tag, ops]) => `<h2 id="${escapeHtml(tag)}">${escapeHtml(tag)}</h2>${ops.join('')}`)
    .join('')
  const title = escapeHtml(doc.info?.title ?? 'API reference')
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
<style>
body{font:15px/1.5 system-ui,sans-serif;max-width:960px;margin:2rem auto;padding:0 1rem;color:#1f2937}
code,pre{font-family:ui-monospace,monospace}pre{background:#f3f4f6;padding:.75rem;overflow:auto}
section{border-top:1px solid #e5e7eb;padding:.5rem 0}.m{display:inline-block;min-width:4.5rem;font-weight:700}
table{border-collapse:collapse}td,th{border:1px solid #e5e7eb;padding:.25rem .5rem;text-align:left}
</style></head><body>
<h1>${title}</h1>
<p>${escapeHtml(doc.info?.description ?? '')}</p>
<p>The machine-readable document: <a href="../openapi.json">openapi.json</a>.</p>
<nav><ul>${toc}</ul></nav>
${sections}
</body></html>`
}
