import { queryOptions } from '@tanstack/react-query'
import type {
  CustomField,
  CustomFieldSchema,
  CustomFieldType,
  CustomFieldUsage,
  CustomObjectType,
} from '@leadline/shared/custom-field-schema'
import { api } from '../../lib/api'
import { useFormMutation } from '../../lib/form-mutation'
import { setupQueries } from '../leads/lead-queries'
import { useOptimisticReorder } from './settings-mutations'

// Every write makes `['custom-fields', type]` stale: the lead page and the contact forms read the same query, so they
// show a change at once.

const fieldsKey = (objectType: CustomObjectType) => setupQueries.customFields(objectType).queryKey
const fieldPath = (objectType: CustomObjectType, id: string) => `custom_field/${objectType}/${encodeURIComponent(id)}/`

/** How many values deleting the field removes, asked when the delete is about to be confirmed. */
export function customFieldUsageQuery(objectType: CustomObjectType, id: string) {
  return queryOptions({
    queryKey: [...fieldsKey(objectType), 'usage', id],
    queryFn: () => api.get<CustomFieldUsage>(`${fieldPath(objectType, id)}usage/`),
    staleTime: 0,
  })
}

export interface CustomFieldBody {
  name: string
  description: string | null
  type: CustomFieldType
  choices: string[] | null
  accepts_multiple_values: boolean
}

export function useSaveCustomField(objectType: CustomObjectType) {
  return useFormMutation(fieldsKey(objectType), ({ id, body }: { id: string | undefined; body: CustomFieldBody }) =>
    id === undefined
      ? api.post<CustomField>(`custom_field/${objectType}/`, body)
      : api.put<CustomField>(fieldPath(objectType, id), body),
  )
}

export function useDeleteCustomField(objectType: CustomObjectType) {
  return useFormMutation(fieldsKey(objectType), (id: string) => api.delete(fieldPath(objectType, id)))
}

/** Close's way to reorder custom fields: the object type's schema, with its fields in the new order. */
export function useReorderCustomFields(objectType: CustomObjectType, what: string) {
  return useOptimisticReorder({
    queryKey: fieldsKey(objectType),
    save: (fields: CustomField[]) =>
      api.put<CustomFieldSchema>(`custom_field_schema/${objectType}/`, { fields: fields.map((f) => ({ id: f.id })) }),
    reorder: (_previous, fields) => fields,
    what: () => what,
    field: 'fields',
  })
}
