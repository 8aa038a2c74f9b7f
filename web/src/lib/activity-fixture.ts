// What every activity carries as the API answers it, for the unit tests' fixtures (emails, calls, messages).

export const activityFixtureFields = {
  organization_id: 'orga_1',
  lead_id: 'lead_1',
  contact_id: 'cont_1',
  user_id: 'user_1',
  user_name: 'Casey Closer',
  created_by: 'user_1',
  created_by_name: 'Casey Closer',
  updated_by: 'user_1',
  updated_by_name: 'Casey Closer',
  date_created: '2026-03-02T10:00:00.000000+00:00',
  date_updated: '2026-03-02T10:00:00.000000+00:00',
  activity_at: '2026-03-02T10:00:00.000000+00:00',
  users: [],
}
