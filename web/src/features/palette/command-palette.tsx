import { keepPreviousData, useQuery, useSuspenseQuery } from '@tanstack/react-query'
import { useNavigate, useRouter } from '@tanstack/react-router'
import { Command } from 'cmdk'
import { lazy, Suspense, useEffect, useState } from 'react'
import { Dialog as AriaDialog, Modal, ModalOverlay } from 'react-aria-components'
import { Dialog } from '../../components/ui/dialog'
import { authQueries } from '../auth/auth-queries'
import { leadQueries } from '../leads/lead-queries'
import { paletteQueries } from './palette-queries'
import {
  matchingCommands,
  paletteHits,
  paletteLeadQuery,
  type PaletteCommand,
  type PaletteHit,
  type PaletteHits,
} from './palette-search'

// The command palette (Ctrl-K / Cmd-K, or the header's Search button): the shell loads this module on first use, so
// no screen's first visit pays for cmdk. The dialogs its actions open load when one first does.

const NewLeadDialog = lazy(() => import('../leads/lead-form').then((m) => ({ default: m.NewLeadDialog })))
const NewTaskDialog = lazy(() => import('../tasks/new-task-dialog').then((m) => ({ default: m.NewTaskDialog })))
const CallForm = lazy(() => import('../phone/call-form').then((m) => ({ default: m.CallForm })))

/** A pause in typing this long sends the search; each key sooner replaces the last one's. */
const SEARCH_DELAY_MS = 100

type ScreenPath = '/inbox' | '/leads' | '/opportunities' | '/reports' | '/settings' | '/settings/profile'
interface Screen extends PaletteCommand {
  to: ScreenPath
  adminOnly?: boolean
}

/** The shell's header links, in its order. */
const SCREENS: readonly Screen[] = [
  { key: 'screen:inbox', label: 'Inbox', keywords: 'tasks', to: '/inbox' },
  { key: 'screen:leads', label: 'Leads', keywords: 'list companies', to: '/leads' },
  { key: 'screen:opportunities', label: 'Opportunities', keywords: 'board pipeline deals', to: '/opportunities' },
  { key: 'screen:reports', label: 'Reports', keywords: 'charts', to: '/reports' },
  { key: 'screen:settings', label: 'Settings', keywords: 'admin', to: '/settings', adminOnly: true },
  { key: 'screen:profile', label: 'Profile', keywords: 'account me password', to: '/settings/profile' },
]

type ActionKind = 'new-lead' | 'new-task' | 'log-call'
interface Action extends PaletteCommand {
  kind: ActionKind
}

const ACTIONS: readonly Action[] = [
  { key: 'action:new-lead', kind: 'new-lead', label: 'New lead', keywords: 'create add company' },
  { key: 'action:new-task', kind: 'new-task', label: 'New task', keywords: 'create add todo reminder' },
  { key: 'action:log-call', kind: 'log-call', label: 'Log a call', keywords: 'phone record' },
]

export interface CommandPaletteProps {
  isOpen: boolean
  onOpenChange: (isOpen: boolean) => void
}

export function CommandPalette({ isOpen, onOpenChange }: CommandPaletteProps) {
  // The lead on screen, if any: Log a call and New task act on it. Read as the palette renders, not watched: the
  // screen cannot change under an open modal, and the router's hooks for it would split the entry's shared chunk.
  const leadId = leadIdOf(useRouter().state.location.pathname)
  const [running, setRunning] = useState<{ kind: ActionKind; leadId: string | undefined }>()
  const close = () => {
    setRunning(undefined)
  }
  return (
    <>
      <ModalOverlay
        isOpen={isOpen}
        onOpenChange={onOpenChange}
        isDismissable
        className="fixed inset-0 z-40 flex items-start justify-center bg-slate-900/40 p-4 pt-[12vh]"
      >
        <Modal className="w-full max-w-xl overflow-hidden rounded-lg bg-white shadow-xl">
          <AriaDialog aria-label="Command palette" className="outline-none">
            <PaletteBody
              leadId={leadId}
              onDone={() => {
                onOpenChange(false)
              }}
              onAction={(kind) => {
                onOpenChange(false)
                setRunning({ kind, leadId })
              }}
            />
          </AriaDialog>
        </Modal>
      </ModalOverlay>
      {running === undefined ? null : (
        <Suspense fallback={null}>
          {running.kind === 'new-lead' ? (
            <NewLeadDialog
              isOpen
              onOpenChange={(open) => {
                if (!open) close()
              }}
            />
          ) : running.kind === 'new-task' ? (
            <NewTaskDialog leadId={running.leadId} onClose={close} />
          ) : running.leadId === undefined ? null : (
            <LogCallDialog leadId={running.leadId} onClose={close} />
          )}
        </Suspense>
      )}
    </>
  )
}

function leadIdOf(pathname: string): string | undefined {
  return /^\/leads\/(lead_[0-9A-Za-z]+)\/?$/.exec(pathname)?.[1]
}

/** The value, once it has stayed the same for `ms`. */
function useSettled<T>(value: T, ms: number): T {
  const [settled, setSettled] = useState(value)
  useEffect(() => {
    const timer = setTimeout(() => {
      setSettled(value)
    }, ms)
    return () => {
      clearTimeout(timer)
    }
  }, [value, ms])
  return settled
}

const itemStyle =
  'flex cursor-default items-baseline justify-between gap-3 rounded-md px-3 py-2 text-sm text-slate-900 data-[selected=true]:bg-indigo-50 data-[selected=true]:text-indigo-900'
const groupStyle =
  'px-2 pb-2 [&_[cmdk-group-heading]]:px-3 [&_[cmdk-group-heading]]:pt-2 [&_[cmdk-group-heading]]:pb-1 [&_[cmdk-group-heading]]:text-xs [&_[cmdk-group-heading]]:font-semibold [&_[cmdk-group-heading]]:tracking-wide [&_[cmdk-group-heading]]:text-slate-600 [&_[cmdk-group-heading]]:uppercase'

interface PaletteBodyProps {
  leadId: string | undefined
  onDone: () => void
  onAction: (kind: ActionKind) => void
}

function PaletteBody({ leadId, onDone, onAction }: PaletteBodyProps) {
  const { data: session } = useSuspenseQuery(authQueries.session())
  const navigate = useNavigate()
  const [text, setText] = useState('')
  const searched = useSettled(paletteLeadQuery(text), SEARCH_DELAY_MS)
  const found = useQuery({
    ...paletteQueries.leads(searched ?? ''),
    enabled: searched !== undefined,
    placeholderData: keepPreviousData,
  })
  const hits = searched === undefined || found.data === undefined ? undefined : paletteHits(found.data, text)
  const screens = matchingCommands(
    SCREENS.filter((s) => s.adminOnly !== true || session.role === 'admin'),
    text,
  )
  const actions = matchingCommands(
    ACTIONS.filter((a) => a.kind !== 'log-call' || leadId !== undefined),
    text,
  )

  const openHit = (hit: PaletteHit) => {
    onDone()
    if (hit.opportunity === undefined) {
      void navigate({ to: '/leads/$leadId', params: { leadId: hit.leadId } })
    } else {
      void navigate({
        to: '/opportunities',
        search: { pipeline: hit.opportunity.pipelineId, opportunity: hit.opportunity.id },
      })
    }
  }

  const status = statusText(text, searched, found.isError, found.isFetching, hits)
  return (
    <Command label="Search leads, contacts, opportunities or commands" shouldFilter={false} vimBindings={false} loop>
      <div className="border-b border-slate-200 px-4 py-3">
        <Command.Input
          value={text}
          onValueChange={setText}
          autoFocus
          placeholder="Search leads, contacts, opportunities, or go to a screen…"
          className="w-full bg-transparent text-base text-slate-900 outline-none placeholder:text-slate-500"
        />
      </div>
      <p role="status" className={status === '' ? 'sr-only' : 'px-5 pt-3 text-sm text-slate-600'}>
        {status}
      </p>
      <Command.List className="max-h-[60vh] overflow-y-auto py-1">
        {/* Commands first: they show at once, so the search's answer, arriving later, goes under them instead of
            moving what Enter would open. */}
        <CommandGroup
          heading="Actions"
          commands={actions}
          onSelect={(a) => {
            onAction(a.kind)
          }}
        />
        <CommandGroup
          heading="Screens"
          commands={screens}
          onSelect={(s) => {
            onDone()
            void navigate({ to: s.to })
          }}
        />
        <HitGroup heading="Leads" hits={hits?.leads} onSelect={openHit} />
        <HitGroup heading="Contacts" hits={hits?.contacts} onSelect={openHit} />
        <HitGroup heading="Opportunities" hits={hits?.opportunities} onSelect={openHit} />
      </Command.List>
    </Command>
  )
}

/** What the palette says about its search, read out as it changes; empty while there is nothing to say. */
function statusText(
  text: string,
  searched: string | undefined,
  isError: boolean,
  isFetching: boolean,
  hits: PaletteHits | undefined,
): string {
  if (text.trim() === '') return ''
  if (paletteLeadQuery(text) === undefined) return 'Type three letters or more to search leads.'
  if (isError) return 'The search failed. Type on to try again.'
  if (hits === undefined || searched !== paletteLeadQuery(text) || isFetching) return 'Searching…'
  return hits.leads.length === 0 ? 'No leads, contacts or opportunities match.' : ''
}

function CommandGroup<T extends PaletteCommand>({
  heading,
  commands,
  onSelect,
}: {
  heading: string
  commands: readonly T[]
  onSelect: (command: T) => void
}) {
  if (commands.length === 0) return null
  return (
    <Command.Group heading={heading} className={groupStyle}>
      {commands.map((command) => (
        <Command.Item
          key={command.key}
          value={command.key}
          onSelect={() => {
            onSelect(command)
          }}
          className={itemStyle}
        >
          {command.label}
        </Command.Item>
      ))}
    </Command.Group>
  )
}

function HitGroup({
  heading,
  hits,
  onSelect,
}: {
  heading: string
  hits: readonly PaletteHit[] | undefined
  onSelect: (hit: PaletteHit) => void
}) {
  if (hits === undefined || hits.length === 0) return null
  return (
    <Command.Group heading={heading} className={groupStyle}>
      {hits.map((hit) => (
        <Command.Item
          key={hit.key}
          value={hit.key}
          onSelect={() => {
            onSelect(hit)
          }}
          className={itemStyle}
        >
          {/* The name first: the detail (an address and a lead, say) gives way, and is cut short, before it does. */}
          <span className="max-w-2/3 shrink-0 truncate font-medium">{hit.label}</span>
          <span className="min-w-0 truncate text-xs text-slate-600">{hit.detail}</span>
        </Command.Item>
      ))}
    </Command.Group>
  )
}

function LogCallDialog({ leadId, onClose }: { leadId: string; onClose: () => void }) {
  const lead = useQuery(leadQueries.detail(leadId))
  const loading = <p className="text-sm text-slate-500">Loading…</p>
  return (
    <Dialog
      title="Log a call"
      isOpen
      onOpenChange={(open) => {
        if (!open) onClose()
      }}
      isDismissable={false}
    >
      {lead.data === undefined ? (
        loading
      ) : (
        <Suspense fallback={loading}>
          <CallForm leadId={leadId} contacts={lead.data.contacts} onDone={onClose} />
        </Suspense>
      )}
    </Dialog>
  )
}
