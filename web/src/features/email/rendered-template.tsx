import type { UseQueryResult } from '@tanstack/react-query'
import type { RenderedEmailTemplate } from '@leadline/shared/email-template-schema'
import type { ReactNode } from 'react'

/** A template filled in for a contact: its subject, its text, and the placeholders that had no value. */
export function RenderedTemplate({ rendered }: { rendered: RenderedEmailTemplate }) {
  return (
    <div className="flex flex-col gap-2">
      <p>
        <span className="text-slate-500">Subject: </span>
        <strong>{rendered.subject}</strong>
      </p>
      <p className="whitespace-pre-wrap text-slate-800">{rendered.body_text}</p>
      {rendered.warnings.length === 0 ? null : (
        <div className="rounded bg-amber-50 p-2 text-amber-900">
          <p className="font-medium">Some placeholders have no value here and are left empty:</p>
          <ul className="mt-1 pl-3">
            {rendered.warnings.map((warning) => (
              <li key={warning}>{warning}</li>
            ))}
          </ul>
        </div>
      )}
    </div>
  )
}

/** A preview as its query stands: loading, why it could not be made, or the filled-in template and `children` under it. */
export function RenderedTemplatePreview({
  query,
  children,
}: {
  query: UseQueryResult<RenderedEmailTemplate>
  children?: (rendered: RenderedEmailTemplate) => ReactNode
}) {
  if (query.isPending) return <p className="text-slate-500">Loading the preview…</p>
  if (query.isError) {
    return (
      <p role="alert" className="text-red-700">
        The preview could not be made: {query.error.message}
      </p>
    )
  }
  return (
    <>
      <RenderedTemplate rendered={query.data} />
      {children?.(query.data)}
    </>
  )
}
