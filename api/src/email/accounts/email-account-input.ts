import { isIP } from 'node:net'
import type { Db } from '../../platform/data/database.js'
import { ValidationError } from '../../platform/http/errors.js'
import type { SecretBox } from '../../platform/security/secret-box.js'
import { cleanText } from '../../platform/text/text.js'
import { memberIdentityName, type CheckedEmailAccount, type EmailIdentity } from './email-account-repo.js'
import { isEmail } from '../../platform/text/text.js'

// What an email account may hold, checked the same for the API and the CLI; problems are field errors named as the
// API's body names them (`smtp.port`, `identities.2.email`).

export const EMAIL_MAX = 254
export const IDENTITIES_MAX = 50
export const IDENTITY_NAME_MAX = 200
export const HOST_MAX = 253
export const USERNAME_MAX = 320
export const PASSWORD_MAX = 1024

/** An account's fields as asked for: a create's body with its defaults, or an update's over what is stored. */
export interface EmailAccountFields {
  email: string
  identities: { name: string; email: string }[]
  smtp: { host: string; port: number; username: string | null; use_ssl: boolean }
}

/** The fields as stored: trimmed, addresses lowercased, the account's own address among the identities. */
const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/

/** A host name (`smtp.example.com`, `localhost`) or an IPv4 or IPv6 address: no scheme, port or path. */
export function isSmtpHost(value: string): boolean {
  if (isIP(value) !== 0) return true
  return (
    value.length <= HOST_MAX &&
    value
      .toLowerCase()
      .split('.')
      .every((label) => LABEL.test(label))
  )
}

function emailProblem(email: string): string | undefined {
  if (email === '') return 'This field may not be blank.'
  if (email.length > EMAIL_MAX || !isEmail(email)) return 'Enter a valid email address.'
  return undefined
}

/**
 * The fields checked and cleaned, or a ValidationError naming every problem. `ownName` names the account's own
 * address when the identities do not include it: it is added first, so it is the default identity.
 */
export function checkedEmailAccount(fields: EmailAccountFields, ownName: string): CheckedEmailAccount {
  const errors: Record<string, string> = {}
  const email = fields.email.trim().toLowerCase()
  const problem = emailProblem(email)
  if (problem !== undefined) errors.email = problem

  if (fields.identities.length > IDENTITIES_MAX) {
    errors.identities = `Ensure this list has no more than ${IDENTITIES_MAX} items.`
  }
  const identities: EmailIdentity[] = []
  fields.identities.forEach((identity, index) => {
    const address = identity.email.trim().toLowerCase()
    // The account's own address is checked as `email`.
    const addressProblem = address === email ? undefined : emailProblem(address)
    if (addressProblem !== undefined) errors[`identities.${index}.email`] = addressProblem
    const name = identity.name.trim()
    if (name.length > IDENTITY_NAME_MAX) {
      errors[`identities.${index}.name`] = `Ensure this field has no more than ${IDENTITY_NAME_MAX} characters.`
    }
    // The same address twice is one identity: the first names it.
    if (!identities.some((known) => known.email === address)) identities.push({ name, email: address })
  })
  if (!identities.some((identity) => identity.email === email)) identities.unshift({ name: ownName, email })

  const host = fields.smtp.host.trim().toLowerCase()
  if (host === '') errors['smtp.host'] = 'This field may not be blank.'
  else if (!isSmtpHost(host)) errors['smtp.host'] = 'Enter a host name or an IP address, without a scheme or port.'
  const port = fields.smtp.port
  if (!Number.isInteger(port) || port < 1 || port > 65535) errors['smtp.port'] = 'Enter a port from 1 to 65535.'
  const username = cleanText(fields.smtp.username) ?? null
  if (username !== null && username.length > USERNAME_MAX) {
    errors['smtp.username'] = `Ensure this field has no more than ${USERNAME_MAX} characters.`
  }

  if (Object.keys(errors).length > 0) throw new ValidationError(errors)
  return { email, identities, smtp: { host, port, username, useSsl: fields.smtp.use_ssl } }
}

/** `checkedEmailAccount` for an account of `userId`, who must be a member of the organization (else on `user_id`). */
export async function checkedForMember(
  db: Db,
  organizationId: string,
  userId: string,
  fields: EmailAccountFields,
): Promise<CheckedEmailAccount> {
  const ownName = await memberIdentityName(db, organizationId, userId)
  if (ownName === undefined) throw ValidationError.field('user_id', 'Not a user of your organization.')
  return checkedEmailAccount(fields, ownName)
}

/**
 * A password to store: undefined keeps the stored one, null or blank means none. A password needs the server's
 * LEADLINE_SECRET_KEY (`box`): without it, it is refused rather than stored in the clear.
 */
export function checkedPassword(password: string | null | undefined, box: SecretBox | null): string | null | undefined {
  if (password === undefined || password === null || password === '') return password === '' ? null : password
  if (password.length > PASSWORD_MAX) {
    throw ValidationError.field('smtp.password', `Ensure this field has no more than ${PASSWORD_MAX} characters.`)
  }
  if (box === null) {
    throw ValidationError.field(
      'smtp.password',
      'This server cannot store passwords: it has no LEADLINE_SECRET_KEY to encrypt them with. Ask its operator to set one.',
    )
  }
  return password
}

/** The identities after the account's address changed from `before` to `after`: the old own identity takes the new. */
export function identitiesForNewAddress(identities: EmailIdentity[], before: string, after: string): EmailIdentity[] {
  return identities.map((identity) => (identity.email === before ? { ...identity, email: after } : identity))
}
