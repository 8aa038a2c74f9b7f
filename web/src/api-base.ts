/** The SPA reaches the CRM API only through the BFF, on the same origin. */
export const API_BASE = '/api/v1/'

/** Every request to the BFF carries this header; the BFF refuses `/api/` and `/auth/` requests without it (CSRF). */
export const CSRF_HEADER = { 'X-Requested-With': 'leadline' } as const
