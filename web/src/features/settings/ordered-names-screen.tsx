import { useSuspenseQuery } from '@tanstack/react-query'
import type { ReactNode } from 'react'
import { authQueries } from '../auth/auth-queries'
import { AddByNameForm } from './add-by-name-form'
import { EditableName } from './editable-name'
import { settingsPage, SettingsScreen } from './settings-layout'
import { SortableList, type SortableItem } from './sortable-list'

/**
 * A settings screen for an organization's ordered list of names (lead statuses, call outcomes): what it says, and its
 * data and mutations as hooks, so that each row has its own rename and delete in flight.
 */
export interface OrderedNames<Item extends SortableItem> {
  /** `Call outcomes`: the heading and the list's name. */
  title: string
  description: string
  /** `call outcome`: the new one's field and button say `New call outcome` and `Add call outcome`. */
  noun: string
  /** Said instead of an empty list; without it the list shows even when empty. */
  ifNone?: string
  /** How an item's name reads in its row. */
  display?: (item: Item) => ReactNode
  /** What deleting one does, in the confirmation. */
  consequence: string
  /** The API's field of the name, whose refusal shows under the new name or beside a row. */
  field: 'name' | 'label'
  useItems: () => Item[]
  /** Adds a name (`id` undefined) or renames one. */
  useSave: () => {
    mutate: (change: { id: undefined; name: string }, options: { onSuccess: () => void }) => void
    mutateAsync: (change: { id: string; name: string }) => Promise<unknown>
    isPending: boolean
    isError: boolean
    error: unknown
  }
  useDelete: () => { mutate: (id: string) => void; isPending: boolean; error: unknown }
  /** Saves the organization with every item in the new order. */
  useReorder: () => { mutate: (change: { organizationId: string; ordered: Item[] }) => void }
}

/** The screen: a name to add, then every item in order, renamed, deleted or moved in place. */
export function orderedNamesPage<Item extends SortableItem>(names: OrderedNames<Item>) {
  return settingsPage(function OrderedNamesScreen() {
    const { data: session } = useSuspenseQuery(authQueries.session())
    const items = names.useItems()
    const reorder = names.useReorder()
    const create = names.useSave()
    return (
      <SettingsScreen title={names.title} description={names.description}>
        <AddByNameForm
          fieldLabel={`New ${names.noun}`}
          submitLabel={`Add ${names.noun}`}
          errorField={names.field}
          save={{
            mutate: (name, options) => {
              create.mutate({ id: undefined, name }, options)
            },
            isPending: create.isPending,
            isError: create.isError,
            error: create.error,
          }}
        />
        {items.length === 0 && names.ifNone !== undefined ? (
          <p className="text-sm text-slate-500">{names.ifNone}</p>
        ) : (
          <div className="rounded-lg border border-slate-200 bg-white px-4">
            <SortableList
              items={items}
              label={names.title}
              place={`the ${names.title.toLowerCase()}`}
              onReorder={(ordered) => {
                reorder.mutate({ organizationId: session.organization.id, ordered })
              }}
            >
              {(item) => <NameRow item={item} names={names} />}
            </SortableList>
          </div>
        )}
      </SettingsScreen>
    )
  })
}

function NameRow<Item extends SortableItem>({ item, names }: { item: Item; names: OrderedNames<Item> }) {
  const rename = names.useSave()
  const remove = names.useDelete()
  return (
    <EditableName
      id={item.id}
      name={item.label}
      display={names.display?.(item) ?? <span className="font-medium">{item.label}</span>}
      field={names.field}
      rename={(name) => rename.mutateAsync({ id: item.id, name })}
      remove={remove}
      consequence={names.consequence}
    />
  )
}
