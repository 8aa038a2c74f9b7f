import { queryOptions } from '@tanstack/react-query'
import {
  IMPORT_BUSY_STATUSES,
  type DuplicateRule,
  type ImportStatus,
  type ImportView,
} from '@leadline/shared/import-schema'
import { api } from '../../lib/api'
import { uploadWithProgress, type UploadProgress } from '../../lib/api-upload'

// A CSV import (`/import/`): uploaded, mapped, checked, run and undone; polled while its job is under way.

/** How often an import whose job is under way is asked about. */
export const IMPORT_POLL_MS = 1000

export function isBusy(status: ImportStatus): boolean {
  return IMPORT_BUSY_STATUSES.includes(status)
}

export const importQueries = {
  all: () => ['imports'] as const,
  detail: (id: string) =>
    queryOptions({
      queryKey: [...importQueries.all(), 'detail', id],
      queryFn: () => api.get<ImportView>(`import/${encodeURIComponent(id)}/`),
      refetchInterval: (query) =>
        query.state.data !== undefined && isBusy(query.state.data.status) ? IMPORT_POLL_MS : false,
      staleTime: 0,
    }),
}

const path = (id: string, action = '') => `import/${encodeURIComponent(id)}/${action}`

export const importRequests = {
  upload: (file: File, onProgress: (progress: UploadProgress) => void) =>
    uploadWithProgress<ImportView>(`import/?filename=${encodeURIComponent(file.name)}`, file, onProgress),
  save: (id: string, mapping: Record<string, string>, duplicate_rule: DuplicateRule) =>
    api.put<ImportView>(path(id), { mapping, duplicate_rule }),
  dryRun: (id: string) => api.post<ImportView>(path(id, 'dry_run/'), {}),
  run: (id: string) => api.post<ImportView>(path(id, 'run/'), {}),
  undo: (id: string) => api.post<ImportView>(path(id, 'undo/'), {}),
}
