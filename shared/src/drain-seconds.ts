// LEADLINE_DRAIN_SECONDS: after SIGTERM, how long an api or BFF process answers `/readyz` with 503 while it still
// serves, so that a load balancer takes it out before it stops taking connections. Both read it by this rule.

export const MAX_DRAIN_SECONDS = 300

/** Whole seconds from 0 to 300; 0 when unset or empty; anything else throws. */
export function drainSecondsFrom(env: Record<string, string | undefined>): number {
  const raw = env.LEADLINE_DRAIN_SECONDS
  if (raw === undefined || raw === '') return 0
  const value = Number(raw)
  if (!/^\d{1,3}$/.test(raw) || value > MAX_DRAIN_SECONDS) {
    throw new Error(
      `LEADLINE_DRAIN_SECONDS must be a whole number of seconds from 0 to ${String(MAX_DRAIN_SECONDS)}, got "${raw}"`,
    )
  }
  return value
}
