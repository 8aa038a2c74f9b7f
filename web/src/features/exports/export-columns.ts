import type { LeadExportType } from './export-queries'

// The columns a lead export may keep, as the leads list shows them: each list column's name in the export's CSV of
// that type (decision 0052's column names).

export interface ListColumn {
  label: string
  field: string
}

export const LEAD_LIST_COLUMNS: Record<LeadExportType, readonly ListColumn[]> = {
  leads: [
    { label: 'Name', field: 'display_name' },
    { label: 'Status', field: 'status_label' },
    { label: 'Primary contact', field: 'primary_contact_name' },
    { label: 'Updated', field: 'date_updated' },
  ],
  contacts: [
    { label: 'Name', field: 'lead_display_name' },
    { label: 'Status', field: 'lead_status_label' },
    { label: 'Contact', field: 'name' },
    { label: 'Updated', field: 'date_updated' },
  ],
  lead_opps: [
    { label: 'Name', field: 'lead_name' },
    { label: 'Status', field: 'status_label' },
    { label: 'Contact', field: 'contact_name' },
    { label: 'Updated', field: 'date_updated' },
  ],
}

export const LEAD_EXPORT_TYPES: readonly { value: LeadExportType; label: string }[] = [
  { value: 'leads', label: 'Leads' },
  { value: 'contacts', label: 'Contacts' },
  { value: 'lead_opps', label: 'Leads with opportunities' },
]
