import { Type, type Static } from '@sinclair/typebox'

// An export of leads or opportunities, as Close's `GET /export/{id}/` answers it (decision 0052).

export const EXPORT_STATUSES = ['created', 'started', 'in_progress', 'done', 'error'] as const
export type ExportStatus = (typeof EXPORT_STATUSES)[number]

export const exportSchema = Type.Object({
  id: Type.String(),
  organization_id: Type.String(),
  created_by: Type.String(),
  object_type: Type.Union([Type.Literal('lead'), Type.Literal('opportunity')]),
  format: Type.String(),
  type: Type.String({ description: '`leads`, `contacts` or `lead_opps`; `opportunities` for an opportunity export.' }),
  date_format: Type.String(),
  fields: Type.Union([Type.Array(Type.String()), Type.Null()]),
  query: Type.Union([Type.String(), Type.Null()], { description: 'A lead export’s search.' }),
  params: Type.Union([Type.Record(Type.String(), Type.String()), Type.Null()], {
    description: 'An opportunity export’s filters.',
  }),
  status: Type.Union(EXPORT_STATUSES.map((status) => Type.Literal(status))),
  n_rows: Type.Union([Type.Integer(), Type.Null()], { description: 'Rows (or JSON objects) in the file, once done.' }),
  size: Type.Union([Type.Integer(), Type.Null()], { description: 'Bytes of the gzip-compressed file, once done.' }),
  error: Type.Union([Type.String(), Type.Null()], { description: 'Why it failed, when `status` is `error`.' }),
  download_url: Type.Union([Type.String(), Type.Null()], {
    description: 'Where the gzip-compressed file is served, below the API (null until `status` is `done`).',
  }),
  date_created: Type.String(),
  date_updated: Type.String(),
})
export type ExportView = Static<typeof exportSchema>
