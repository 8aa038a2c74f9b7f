import { useSuspenseQuery } from '@tanstack/react-query'
import { useState, type SubmitEvent } from 'react'
import { Button } from '../../components/ui/button'
import { CheckboxField } from '../../components/ui/checkbox-field'
import { TextField } from '../../components/ui/text-field'
import { showToast } from '../../components/ui/toast'
import { api } from '../../lib/api'
import { placeErrors } from '../../lib/form-errors'
import { useFormMutation } from '../../lib/form-mutation'
import { useFormValue } from '../../lib/form-value'
import { settingsPage, SettingsSave, SettingsScreen } from './settings-layout'
import { singleSignOnQueries, type SingleSignOn } from './single-sign-on-queries'

const FIELDS = ['issuer', 'client_id', 'client_secret', 'domains', 'enabled', 'required'] as const

type SingleSignOnWrite = Omit<SingleSignOn, 'has_client_secret' | 'redirect_uri'> & { client_secret?: string }

/** Signing in through the organization's OpenID Connect provider (decision 0045); admins only. */
export const SingleSignOnPage = settingsPage(SingleSignOnForm)

function SingleSignOnForm() {
  const { data: saved } = useSuspenseQuery(singleSignOnQueries.config())
  const save = useFormMutation(singleSignOnQueries.config().queryKey, (body: SingleSignOnWrite) =>
    api.put<SingleSignOn>('auth/sso/', body),
  )
  const issuer = useFormValue(saved.issuer, save)
  const clientId = useFormValue(saved.client_id, save)
  const secret = useFormValue('', save)
  const domains = useFormValue(saved.domains.join(', '), save)
  const enabled = useFormValue(saved.enabled, save)
  const required = useFormValue(saved.required, save)
  const [copied, setCopied] = useState(false)
  const { beside, general } = placeErrors(FIELDS, save.error)
  const submit = (event: SubmitEvent<HTMLFormElement>) => {
    event.preventDefault()
    save.mutate(
      {
        issuer: issuer.value.trim(),
        client_id: clientId.value.trim(),
        ...(secret.value === '' ? {} : { client_secret: secret.value }),
        domains: domains.value
          .split(',')
          .map((d) => d.trim())
          .filter((d) => d !== ''),
        enabled: enabled.value,
        required: required.value,
      },
      {
        onSuccess: () => {
          secret.setValue('')
          showToast({ title: 'Single sign-on saved' })
        },
      },
    )
  }
  return (
    <SettingsScreen
      title="Single sign-on"
      description="Members sign in through your organization’s OpenID Connect provider, by the email domains it covers."
      narrow
    >
      <div className="flex flex-col gap-2 rounded-lg border border-slate-200 bg-white p-4">
        <p className="text-sm font-medium text-slate-700">Redirect URI</p>
        <p className="text-sm text-slate-600">Register it at your provider for the client Leadline uses.</p>
        <div className="flex flex-wrap items-center gap-2">
          <code aria-label="Redirect URI" className="rounded bg-slate-100 px-2 py-1 font-mono text-xs break-all">
            {saved.redirect_uri}
          </code>
          <Button
            size="sm"
            onPress={() => {
              void navigator.clipboard.writeText(saved.redirect_uri).then(() => {
                setCopied(true)
              })
            }}
          >
            {copied ? 'Copied' : 'Copy'}
          </Button>
        </div>
      </div>
      <form
        onSubmit={submit}
        noValidate
        className="flex flex-col gap-4 rounded-lg border border-slate-200 bg-white p-5"
      >
        <TextField
          label="Issuer URL"
          type="url"
          {...issuer.field}
          placeholder="https://accounts.example.com"
          error={beside.issuer}
        />
        <TextField label="Client ID" {...clientId.field} error={beside.client_id} />
        <TextField
          label="Client secret"
          type="password"
          autoComplete="off"
          {...secret.field}
          placeholder={saved.has_client_secret ? 'A secret is stored; leave empty to keep it' : undefined}
          error={beside.client_secret}
        />
        <TextField
          label="Email domains"
          {...domains.field}
          placeholder="example.com, example.org"
          description="Comma-separated. People with an address at these domains are offered single sign-on."
          error={beside.domains}
        />
        <CheckboxField
          label="Turn on single sign-on"
          checked={enabled.value}
          onChange={enabled.field.onChange}
          error={beside.enabled}
        />
        <CheckboxField
          label="Require single sign-on"
          description="Password sign-in is refused to every member but admins, who keep it in case the provider fails."
          checked={required.value}
          onChange={required.field.onChange}
          error={beside.required}
        />
        <SettingsSave error={general} label="Save" isPending={save.isPending} />
      </form>
    </SettingsScreen>
  )
}
