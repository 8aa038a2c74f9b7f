import type { Lead } from '@leadline/shared/lead-schema'
import { lazy, Suspense, useState } from 'react'
import { Button } from '../../components/ui/button'
import { Dialog } from '../../components/ui/dialog'
import { Panel } from '../../components/ui/panel'
import { addressLines } from './address-lines'

const AddressesForm = lazy(() => import('./addresses-form').then((m) => ({ default: m.AddressesForm })))

export function AddressesPanel({ lead }: { lead: Lead }) {
  const [isEditing, setEditing] = useState(false)
  return (
    <Panel
      title="Addresses"
      actions={
        <Button
          size="sm"
          onPress={() => {
            setEditing(true)
          }}
        >
          Edit addresses
        </Button>
      }
    >
      {lead.addresses.length === 0 ? (
        <p className="text-sm text-slate-500">No addresses.</p>
      ) : (
        <ul className="flex flex-col gap-3 text-sm">
          {lead.addresses.map((address, i) => (
            <li key={i}>
              <p className="text-xs font-medium text-slate-500 capitalize">{address.label}</p>
              <address className="not-italic text-slate-800">
                {addressLines(address).map((line) => (
                  <span key={line} className="block">
                    {line}
                  </span>
                ))}
              </address>
            </li>
          ))}
        </ul>
      )}
      <Dialog title="Edit addresses" isOpen={isEditing} onOpenChange={setEditing} size="lg" isDismissable={false}>
        {isEditing ? (
          <Suspense fallback={<p className="text-sm text-slate-500">Loading…</p>}>
            <AddressesForm
              lead={lead}
              onDone={() => {
                setEditing(false)
              }}
            />
          </Suspense>
        ) : null}
      </Dialog>
    </Panel>
  )
}
