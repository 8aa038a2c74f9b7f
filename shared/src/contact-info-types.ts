/**
 * The kinds of phone, email and URL a contact can have. Kept apart from the wire schemas so the web app can offer
 * them without bundling the schema library.
 */
export const CONTACT_INFO_TYPES = ['office', 'mobile', 'home', 'direct', 'fax', 'url', 'other'] as const
export type ContactInfoType = (typeof CONTACT_INFO_TYPES)[number]
