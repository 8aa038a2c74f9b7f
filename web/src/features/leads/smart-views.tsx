import { Link } from '@tanstack/react-router'
import { useState, type SubmitEvent } from 'react'
import type { SavedSearch } from '@leadline/shared/saved-search-schema'
import { Button } from '../../components/ui/button'
import { CheckboxField } from '../../components/ui/checkbox-field'
import { ConfirmedMutationDelete } from '../../components/ui/confirmed-mutation-delete'
import { Dialog } from '../../components/ui/dialog'
import { FormActions } from '../../components/ui/form-actions'
import { TextField } from '../../components/ui/text-field'
import { showToast } from '../../components/ui/toast'
import { saveErrorMessage } from '../../lib/api'
import { cx } from '../../lib/cx'
import { useChangeView, useCreateView, useDeleteView } from './saved-search-queries'

// The leads list's Smart Views: the organization's shared ones and the user's own, each a link (`/leads?smart_view=id`,
// which can be shared and reloaded); the current search saved as one; the open one renamed, shared or deleted.

const linkClass = (current: boolean) =>
  cx(
    'rounded-full border px-3 py-1 text-sm whitespace-nowrap',
    current
      ? 'border-indigo-600 bg-indigo-600 font-medium text-white'
      : 'border-slate-300 bg-white text-slate-700 hover:bg-slate-50',
  )

export function SmartViewsNav({ views, currentId }: { views: SavedSearch[]; currentId: string | undefined }) {
  return (
    <nav aria-label="Smart Views" className="flex flex-wrap items-center gap-2">
      <Link
        to="/leads"
        search={{}}
        className={linkClass(currentId === undefined)}
        activeOptions={{ includeSearch: true }}
      >
        All leads
      </Link>
      {views.map((view) => (
        <Link
          key={view.id}
          to="/leads"
          search={{ smart_view: view.id }}
          aria-current={view.id === currentId ? 'page' : undefined}
          className={linkClass(view.id === currentId)}
        >
          {view.name}
          {view.is_shared ? <span className="sr-only"> (shared)</span> : null}
          {view.is_shared ? (
            <span aria-hidden="true" className="ml-1 text-xs">
              · shared
            </span>
          ) : null}
        </Link>
      ))}
    </nav>
  )
}

/** `Save as Smart View`: the current search and columns under a name, the user's own or shared with the organization. */
export function SaveViewDialog({
  isOpen,
  onOpenChange,
  query,
  columns,
  onSaved,
}: {
  isOpen: boolean
  onOpenChange: (open: boolean) => void
  query: string | undefined
  /** The columns the list shows now: the view keeps them. */
  columns: string[]
  onSaved: (view: SavedSearch) => void
}) {
  const create = useCreateView()
  const [name, setName] = useState('')
  const [shared, setShared] = useState(false)
  const submit = (event: SubmitEvent<HTMLFormElement>) => {
    event.preventDefault()
    create.mutate(
      {
        name: name.trim(),
        query: query ?? null,
        is_shared: shared,
        selected_fields: columns.map((id) => ({ id })),
      },
      {
        onSuccess: (view) => {
          onOpenChange(false)
          showToast({ title: `Smart View “${view.name}” saved` })
          onSaved(view)
        },
      },
    )
  }
  const error = create.error === null ? undefined : saveErrorMessage(create.error, 'name')
  return (
    <Dialog title="Save as Smart View" isOpen={isOpen} onOpenChange={onOpenChange} size="sm">
      <form onSubmit={submit} className="flex flex-col gap-4">
        <p className="text-sm text-slate-600">
          {query === undefined ? (
            'Every lead.'
          ) : (
            <>
              The search <code className="break-all">{query}</code>.
            </>
          )}
        </p>
        <TextField label="Name" value={name} onChange={setName} autoFocus isRequired error={error} />
        <CheckboxField
          label="Share with the organization"
          description="Everyone sees a shared view; only you see yours otherwise."
          checked={shared}
          onChange={setShared}
        />
        <FormActions
          submitLabel="Save view"
          isPending={create.isPending}
          onCancel={() => {
            onOpenChange(false)
          }}
        />
      </form>
    </Dialog>
  )
}

/** The open view's Rename, Share or Stop sharing, and Delete: for its user, and for an admin on a shared one. */
export function ViewActions({ view, onDeleted }: { view: SavedSearch; onDeleted: () => void }) {
  const change = useChangeView()
  const remove = useDeleteView()
  const [isRenaming, setRenaming] = useState(false)
  return (
    <div className="flex flex-wrap items-center gap-2" role="group" aria-label={`Smart View ${view.name}`}>
      <Button
        size="sm"
        onPress={() => {
          setRenaming(true)
        }}
      >
        Rename view
      </Button>
      <Button
        size="sm"
        isPending={change.isPending}
        onPress={() => {
          change.mutate(
            { id: view.id, is_shared: !view.is_shared },
            {
              onSuccess: (after) => {
                showToast({ title: after.is_shared ? 'Shared with the organization' : 'Only you see this view now' })
              },
              onError: (error) => {
                showToast({ title: 'The view was not changed', description: error.message, tone: 'error' })
              },
            },
          )
        }}
      >
        {view.is_shared ? 'Stop sharing' : 'Share view'}
      </Button>
      <ConfirmedMutationDelete
        label="Delete view"
        title={`Delete the Smart View “${view.name}”?`}
        mutation={remove}
        variables={view.id}
        failure="The view was not deleted"
        onDeleted={onDeleted}
      >
        The view goes for {view.is_shared ? 'everyone' : 'you'}; its leads stay as they are.
      </ConfirmedMutationDelete>
      {isRenaming ? (
        <RenameViewDialog
          view={view}
          onClose={() => {
            setRenaming(false)
          }}
        />
      ) : null}
    </div>
  )
}

function RenameViewDialog({ view, onClose }: { view: SavedSearch; onClose: () => void }) {
  const change = useChangeView()
  const [name, setName] = useState(view.name)
  const submit = (event: SubmitEvent<HTMLFormElement>) => {
    event.preventDefault()
    change.mutate({ id: view.id, name: name.trim() }, { onSuccess: onClose })
  }
  return (
    <Dialog
      title="Rename Smart View"
      isOpen
      onOpenChange={(open) => {
        if (!open) onClose()
      }}
      size="sm"
    >
      <form onSubmit={submit} className="flex flex-col gap-4">
        <TextField
          label="Name"
          value={name}
          onChange={setName}
          autoFocus
          isRequired
          error={change.error === null ? undefined : saveErrorMessage(change.error, 'name')}
        />
        <FormActions submitLabel="Rename" isPending={change.isPending} onCancel={onClose} />
      </form>
    </Dialog>
  )
}
