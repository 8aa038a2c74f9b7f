import { queryOptions } from '@tanstack/react-query'
import { create } from 'qrcode'
import { api } from '../../lib/api'
import { useFormMutation } from '../../lib/form-mutation'

// Two-factor sign-in for the Profile screen: only its screen imports this, so none of it (the QR encoder neither) is
// in the first bundle. The encoder is imported statically: a dynamic import of it, a CommonJS module, moved the
// bundler's module runtime out of the first bundle's chunk into one of its own, which every first visit then loaded.

/** `GET /auth/two_factor/`: whether it is on, the recovery codes left, and whether the organization requires it. */
export interface TwoFactorState {
  enabled: boolean
  recovery_codes_left: number
  required: boolean
  /** False for someone who signs in by single sign-on only: a code of theirs proves it is them instead. */
  has_password: boolean
}

/** That it is the person, before their second factor changes: the current password, or a code of theirs. */
export type Proof = { password: string } | { code: string }

export const twoFactorQueries = {
  state: () =>
    queryOptions({
      queryKey: ['two-factor'] as const,
      queryFn: () => api.get<TwoFactorState>('auth/two_factor/'),
    }),
}

const key = twoFactorQueries.state().queryKey

export function useTwoFactorSetup() {
  return useFormMutation(key, (password: string) =>
    api.post<{ secret: string; otpauth_url: string }>('auth/two_factor/setup/', { password }),
  )
}

/** Turning it on lifts the organization's hold on this session: every query is fetched again. */
export function useTwoFactorEnable() {
  return useFormMutation([], (code: string) =>
    api.post<{ recovery_codes: string[] }>('auth/two_factor/enable/', { code }),
  )
}

export function useTwoFactorDisable() {
  return useFormMutation(key, (proof: Proof) => api.post<object>('auth/two_factor/disable/', proof))
}

export function useNewRecoveryCodes() {
  return useFormMutation(key, (proof: Proof) =>
    api.post<{ recovery_codes: string[] }>('auth/two_factor/recovery_codes/', proof),
  )
}

/** The dark modules of a QR code of `text` as one SVG path, one unit a module. */
export function qrCodePath(text: string): { size: number; path: string } {
  const { modules } = create(text, { errorCorrectionLevel: 'M' })
  let path = ''
  for (let row = 0; row < modules.size; row++) {
    for (let col = 0; col < modules.size; col++)
      if (modules.get(row, col)) path += `M${String(col)} ${String(row)}h1v1h-1z`
  }
  return { size: modules.size, path }
}
