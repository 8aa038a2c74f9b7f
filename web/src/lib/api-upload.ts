import { API_BASE, ApiError, CSRF_HEADER } from './api'

// api.ts's one sibling, kept apart so that only the screens that upload a large file carry it: a file's raw bytes
// POSTed through XMLHttpRequest, because fetch cannot tell how much of a request body has been sent.

/** How much of an upload the browser has sent. */
export interface UploadProgress {
  sent: number
  total: number
}

/**
 * POSTs a file's raw bytes (the browser streams it from disk) to `path` under `/api/v1/`, its type as `Content-Type`,
 * calling `onProgress` as it goes; answers and errors as `api.upload` does. The answer's type is trusted as api.ts
 * trusts its own.
 */
export function uploadWithProgress<T>(
  path: string,
  file: Blob,
  onProgress: (progress: UploadProgress) => void,
): Promise<T> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest()
    xhr.open('POST', API_BASE + path)
    for (const [name, value] of Object.entries(CSRF_HEADER)) xhr.setRequestHeader(name, value)
    xhr.setRequestHeader('Accept', 'application/json')
    xhr.setRequestHeader('Content-Type', file.type === '' ? 'application/octet-stream' : file.type)
    xhr.upload.onprogress = (event) => {
      onProgress({ sent: event.loaded, total: event.lengthComputable ? event.total : file.size })
    }
    xhr.onerror = () => {
      reject(new ApiError(0, null))
    }
    xhr.onload = () => {
      let parsed: unknown = null
      if (xhr.responseText !== '') {
        try {
          parsed = JSON.parse(xhr.responseText)
        } catch {
          parsed = xhr.responseText
        }
      }
      if (xhr.status >= 200 && xhr.status < 300) resolve(parsed as T)
      else reject(new ApiError(xhr.status, parsed))
    }
    xhr.send(file)
  })
}
