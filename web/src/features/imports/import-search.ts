// The import wizard's search params: the import under way, once its file is uploaded (a reload comes back to it).
// No React and nothing else imported: it runs on every first visit, before any route chunk loads.

export interface ImportSearch {
  id?: string | undefined
}

export function importSearchOf(search: Record<string, unknown>): ImportSearch {
  const { id } = search
  return { id: typeof id === 'string' && /^\w{1,100}$/.test(id) ? id : undefined }
}
