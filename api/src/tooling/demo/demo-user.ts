export type DemoTitle = 'admin' | 'manager' | 'rep'

/** A user of the demo organization, with the key and password `npm start` prints for them. */
export interface DemoUser {
  user_id: string
  membership_id: string
  email: string
  first_name: string
  last_name: string
  role: 'admin' | 'user'
  title: DemoTitle
  api_key: string
  /** Random for each seed: the demo is for trying out, never for a real team. */
  password: string
}
