/**
 * The JSON of the page's data block `id` (a `<script type="application/json">` the BFF wrote), taking the block out
 * of the page; undefined when the page has none or it does not parse.
 */
export function takeDataBlock(document: Document, id: string): unknown {
  const element = document.getElementById(id)
  if (element === null) return undefined
  element.remove()
  try {
    return JSON.parse(element.textContent) as unknown
  } catch {
    return undefined
  }
}
