/** A new row's four stamps: made and last changed by `userId`, at `now`. */
export function createdStamps<U extends string | null>(userId: U, now: string) {
  return { created_by: userId, updated_by: userId, date_created: now, date_updated: now }
}
