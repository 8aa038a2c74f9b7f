import { useSuspenseQuery } from '@tanstack/react-query'
import { useMemo, useState, type SubmitEvent } from 'react'
import { Button } from '../../components/ui/button'
import { CardSection } from '../../components/ui/card-section'
import { TextField } from '../../components/ui/text-field'
import { showToast } from '../../components/ui/toast'
import { placeErrors } from '../../lib/form-errors'
import { useFormValue } from '../../lib/form-value'
import {
  qrCodePath,
  twoFactorQueries,
  useNewRecoveryCodes,
  useTwoFactorDisable,
  useTwoFactorEnable,
  useTwoFactorSetup,
} from './two-factor'

/** What the section shows besides its state: a password asked for one of three changes, or the setup's scan step. */
type Step =
  | { kind: 'idle' }
  | { kind: 'password'; action: 'turn-on' | 'turn-off' | 'new-codes' }
  | { kind: 'scan'; secret: string; otpauthUrl: string }

/** Two-factor sign-in: turn it on with an authenticator app, turn it off, make new recovery codes. */
export function TwoFactorSection() {
  const { data: state } = useSuspenseQuery(twoFactorQueries.state())
  const [step, setStep] = useState<Step>({ kind: 'idle' })
  // Recovery codes are shown once, until the person leaves the screen.
  const [codes, setCodes] = useState<string[]>()
  const done = (recoveryCodes?: string[]) => {
    setStep({ kind: 'idle' })
    setCodes(recoveryCodes)
  }
  return (
    <CardSection headingId="two-factor-heading" title="Two-factor sign-in">
      {state.required ? (
        <p className={state.enabled ? 'text-sm text-slate-600' : 'text-sm font-medium text-amber-800'}>
          {state.enabled
            ? 'Your organization requires two-factor sign-in.'
            : 'Your organization requires two-factor sign-in: turn it on to go on using Leadline.'}
        </p>
      ) : null}
      <p className="text-sm text-slate-700">
        {state.enabled
          ? `Two-factor sign-in is on. ${String(state.recovery_codes_left)} recovery code(s) left.`
          : 'Two-factor sign-in is off. With it on, signing in also takes a code from an app on your phone.'}
      </p>
      {step.kind === 'password' ? (
        <PasswordStep
          action={step.action}
          hasPassword={state.has_password}
          onCancel={() => {
            setStep({ kind: 'idle' })
          }}
          onSetup={(secret, otpauthUrl) => {
            setStep({ kind: 'scan', secret, otpauthUrl })
          }}
          onDone={done}
        />
      ) : step.kind === 'scan' ? (
        <ScanStep
          secret={step.secret}
          otpauthUrl={step.otpauthUrl}
          onCancel={() => {
            setStep({ kind: 'idle' })
          }}
          onDone={done}
        />
      ) : (
        <div className="flex flex-wrap gap-2">
          {state.enabled ? (
            <>
              {state.required ? null : (
                <Button
                  onPress={() => {
                    setCodes(undefined)
                    setStep({ kind: 'password', action: 'turn-off' })
                  }}
                >
                  Turn off
                </Button>
              )}
              <Button
                onPress={() => {
                  setCodes(undefined)
                  setStep({ kind: 'password', action: 'new-codes' })
                }}
              >
                New recovery codes
              </Button>
            </>
          ) : (
            <Button
              variant="primary"
              onPress={() => {
                setStep({ kind: 'password', action: 'turn-on' })
              }}
            >
              Turn on two-factor
            </Button>
          )}
        </div>
      )}
      {codes === undefined ? null : <RecoveryCodes codes={codes} />}
    </CardSection>
  )
}

const SUBMIT_LABEL = { 'turn-on': 'Continue', 'turn-off': 'Turn off', 'new-codes': 'Make new codes' } as const

function PasswordStep({
  action,
  hasPassword,
  onCancel,
  onSetup,
  onDone,
}: {
  action: 'turn-on' | 'turn-off' | 'new-codes'
  /** Without a password (single sign-on only), turning it off or new codes take a code of it instead. */
  hasPassword: boolean
  onCancel: () => void
  onSetup: (secret: string, otpauthUrl: string) => void
  onDone: (codes?: string[]) => void
}) {
  const setup = useTwoFactorSetup()
  const disable = useTwoFactorDisable()
  const renew = useNewRecoveryCodes()
  const mutation = action === 'turn-on' ? setup : action === 'turn-off' ? disable : renew
  const password = useFormValue('', mutation)
  const asksCode = !hasPassword && action !== 'turn-on'
  const proof = asksCode ? { code: password.value } : { password: password.value }
  const { beside, general } = placeErrors(['password', 'code'], mutation.error)
  const submit = (event: SubmitEvent<HTMLFormElement>) => {
    event.preventDefault()
    if (action === 'turn-on') {
      setup.mutate(password.value, {
        onSuccess: ({ secret, otpauth_url }) => {
          onSetup(secret, otpauth_url)
        },
      })
    } else if (action === 'turn-off') {
      disable.mutate(proof, {
        onSuccess: () => {
          showToast({ title: 'Two-factor sign-in is off' })
          onDone()
        },
      })
    } else {
      renew.mutate(proof, {
        onSuccess: ({ recovery_codes }) => {
          onDone(recovery_codes)
        },
      })
    }
  }
  return (
    <form onSubmit={submit} className="flex max-w-md flex-col gap-4" noValidate>
      {asksCode ? (
        <TextField
          label="Code"
          autoComplete="one-time-code"
          autoFocus
          {...password.field}
          error={beside.code ?? general}
          description="From your authenticator app, or one of your recovery codes."
        />
      ) : hasPassword ? (
        <TextField
          label="Current password"
          type="password"
          autoComplete="current-password"
          autoFocus
          {...password.field}
          error={beside.password ?? general}
        />
      ) : general === undefined ? null : (
        <p role="alert" className="text-sm text-red-700">
          {general}
        </p>
      )}
      <div className="flex gap-2">
        <Button type="submit" variant={action === 'turn-off' ? 'danger' : 'primary'} isPending={mutation.isPending}>
          {SUBMIT_LABEL[action]}
        </Button>
        <Button onPress={onCancel}>Cancel</Button>
      </div>
    </form>
  )
}

function ScanStep({
  secret,
  otpauthUrl,
  onCancel,
  onDone,
}: {
  secret: string
  otpauthUrl: string
  onCancel: () => void
  onDone: (codes?: string[]) => void
}) {
  const enable = useTwoFactorEnable()
  const code = useFormValue('', enable)
  const { beside, general } = placeErrors(['code'], enable.error)
  const submit = (event: SubmitEvent<HTMLFormElement>) => {
    event.preventDefault()
    enable.mutate(code.value.trim(), {
      onSuccess: ({ recovery_codes }) => {
        showToast({ title: 'Two-factor sign-in is on' })
        onDone(recovery_codes)
      },
    })
  }
  return (
    <div className="flex flex-col gap-4">
      <p className="text-sm text-slate-700">
        Scan this QR code with your authenticator app (or type the secret into it), then enter the code it shows.
      </p>
      <div className="flex flex-wrap items-center gap-4">
        <QrCode text={otpauthUrl} />
        <p className="text-sm text-slate-700">
          Secret:{' '}
          <code aria-label="Secret" className="rounded bg-slate-100 px-2 py-1 font-mono text-xs break-all">
            {secret}
          </code>
        </p>
      </div>
      <form onSubmit={submit} className="flex max-w-md flex-col gap-4" noValidate>
        <TextField
          label="Code"
          autoComplete="one-time-code"
          inputMode="numeric"
          {...code.field}
          error={beside.code ?? general}
        />
        <div className="flex gap-2">
          <Button type="submit" variant="primary" isPending={enable.isPending} isDisabled={code.value.trim() === ''}>
            Turn on
          </Button>
          <Button onPress={onCancel}>Cancel</Button>
        </div>
      </form>
    </div>
  )
}

function QrCode({ text }: { text: string }) {
  const qr = useMemo(() => qrCodePath(text), [text])
  // A quiet zone of 4 modules around it, as scanners expect.
  return (
    <svg
      role="img"
      aria-label="QR code for your authenticator app"
      viewBox={`-4 -4 ${String(qr.size + 8)} ${String(qr.size + 8)}`}
      className="size-44 bg-white"
      shapeRendering="crispEdges"
    >
      <path d={qr.path} fill="#000" />
    </svg>
  )
}

/** The only time recovery codes are shown: as a list, with a copy button. */
function RecoveryCodes({ codes }: { codes: string[] }) {
  const [copied, setCopied] = useState(false)
  return (
    <div role="status" className="flex flex-col gap-2 rounded-md border border-amber-300 bg-amber-50 p-3 text-sm">
      <p className="font-medium text-amber-900">
        Save your recovery codes now: they will not be shown again. Each signs you in once without your app.
      </p>
      <ul aria-label="Recovery codes" className="grid grid-cols-2 gap-1 font-mono text-slate-900">
        {codes.map((code) => (
          <li key={code}>{code}</li>
        ))}
      </ul>
      <div>
        <Button
          size="sm"
          onPress={() => {
            void navigator.clipboard.writeText(codes.join('\n')).then(() => {
              setCopied(true)
            })
          }}
        >
          {copied ? 'Copied' : 'Copy'}
        </Button>
      </div>
    </div>
  )
}
