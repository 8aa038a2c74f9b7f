import { useState, type SubmitEvent } from 'react'
import { Button } from '../../components/ui/button'
import { ConfirmedMutationDelete } from '../../components/ui/confirmed-mutation-delete'
import { TextField } from '../../components/ui/text-field'
import { saveErrorMessage } from '../../lib/api'
import { useFormValue } from '../../lib/form-value'
import { useCreateApiKey, useRevokeApiKey } from './profile-mutations'
import type { ApiKey } from './profile-queries'

// The pieces of API key management that the Profile screen (one's own keys) and Settings → API keys (every key of
// the organization) share.

/** What a key is called on screen: its description, or a plain name when it has none. */
export function apiKeyName(apiKey: ApiKey): string {
  return apiKey.description ?? 'API key'
}

/** Revoke, after a confirmation: the key stops working within seconds. */
export function RevokeApiKeyButton({ apiKey }: { apiKey: ApiKey }) {
  const revoke = useRevokeApiKey()
  return (
    <ConfirmedMutationDelete
      label="Revoke"
      confirmLabel="Revoke"
      title={`Revoke “${apiKeyName(apiKey)}”?`}
      mutation={revoke}
      variables={apiKey.id}
      failure="The key was not revoked"
    >
      Anything using this key stops working within seconds. This cannot be undone.
    </ConfirmedMutationDelete>
  )
}

/** Makes a key for the signed-in person, and shows it once, with Copy. */
export function NewApiKeyForm() {
  const create = useCreateApiKey()
  const description = useFormValue('', create)
  const [made, setMade] = useState<string | undefined>(undefined)
  const submit = (event: SubmitEvent<HTMLFormElement>) => {
    event.preventDefault()
    create.mutate(description.value.trim(), {
      onSuccess: (key) => {
        setMade(key.api_key)
        description.setValue('')
      },
    })
  }
  return (
    <div className="flex flex-col gap-3">
      <form onSubmit={submit} className="flex flex-wrap items-end gap-3" noValidate>
        <TextField
          label="What the key is for"
          {...description.field}
          error={create.error === null ? undefined : saveErrorMessage(create.error, 'description')}
          className="w-72"
        />
        <Button type="submit" isPending={create.isPending}>
          Create API key
        </Button>
      </form>
      {made === undefined ? null : <NewKeyNotice apiKey={made} />}
    </div>
  )
}

/** The only time a key is shown: with a copy button, and said plainly. */
function NewKeyNotice({ apiKey }: { apiKey: string }) {
  const [copied, setCopied] = useState(false)
  return (
    <div role="status" className="flex flex-col gap-2 rounded-md border border-amber-300 bg-amber-50 p-3 text-sm">
      <p className="font-medium text-amber-900">Copy your new key now: it will not be shown again.</p>
      <div className="flex flex-wrap items-center gap-2">
        <code
          aria-label="New API key"
          className="rounded bg-white px-2 py-1 font-mono text-xs break-all text-slate-900"
        >
          {apiKey}
        </code>
        <Button
          size="sm"
          onPress={() => {
            void navigator.clipboard.writeText(apiKey).then(() => {
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
