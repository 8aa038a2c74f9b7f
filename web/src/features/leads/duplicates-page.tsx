import { useQuery } from '@tanstack/react-query'
import { Link } from '@tanstack/react-router'
import { useState } from 'react'
import type { DuplicateCluster, DuplicateLead } from '@leadline/shared/lead-duplicate-schema'
import { Button } from '../../components/ui/button'
import { ConfirmDialog } from '../../components/ui/dialog'
import { EmptyState, QueryErrorState, Skeleton } from '../../components/ui/feedback'
import { showToast } from '../../components/ui/toast'
import { useDocumentTitle } from '../../lib/document-title'
import { duplicateQueries, leadName, reasonsText, useMergeLeads } from './lead-duplicate-queries'

/** Each cluster's leads come oldest first: the first is kept, and each other one is merged into it. */
export function DuplicatesPage() {
  useDocumentTitle('Potential duplicates', 'Leads')
  const [page, setPage] = useState(1)
  const clusters = useQuery(duplicateQueries.clusters(page))
  const [pair, setPair] = useState<{ keep: DuplicateLead; merge: DuplicateLead } | null>(null)
  const merge = useMergeLeads()

  return (
    <div className="flex flex-col gap-6">
      <div className="flex flex-col gap-3">
        <Link to="/leads" className="w-fit text-sm text-indigo-700 hover:underline">
          ← Leads
        </Link>
        <h1 className="text-2xl font-bold text-slate-900">Potential duplicates</h1>
        <p className="text-sm text-slate-600">
          Leads that share a contact email or phone, a web domain or a name. Merging keeps the older lead and moves
          everything of the other into it.
        </p>
      </div>
      {clusters.isPending ? (
        <Skeleton className="h-40 w-full" />
      ) : clusters.isError ? (
        <QueryErrorState title="The duplicates could not be loaded" query={clusters} />
      ) : clusters.data.data.length === 0 ? (
        <EmptyState title="No potential duplicates">
          No two leads share an email, a phone, a domain or a name.
        </EmptyState>
      ) : (
        <ul className="flex flex-col gap-4">
          {clusters.data.data.map((cluster) => (
            <ClusterCard
              key={`${cluster.reason} ${cluster.value}`}
              cluster={cluster}
              onMerge={(keep, other) => {
                setPair({ keep, merge: other })
              }}
            />
          ))}
        </ul>
      )}
      {page > 1 || clusters.data?.has_more === true ? (
        <nav aria-label="Pages" className="flex gap-2">
          <Button
            isDisabled={page === 1}
            onPress={() => {
              setPage(page - 1)
            }}
          >
            Previous
          </Button>
          <Button
            isDisabled={clusters.data?.has_more !== true}
            onPress={() => {
              setPage(page + 1)
            }}
          >
            Next
          </Button>
        </nav>
      ) : null}
      <ConfirmDialog
        title={pair === null ? 'Merge leads?' : `Merge into ${leadName(pair.keep)}?`}
        confirmLabel="Merge"
        isOpen={pair !== null}
        isPending={merge.isPending}
        onCancel={() => {
          setPair(null)
        }}
        onConfirm={() => {
          if (pair === null) return
          merge.mutate(
            { source: pair.merge.id, destination: pair.keep.id },
            {
              onSuccess: () => {
                setPair(null)
                showToast({ title: `Merged “${leadName(pair.merge)}” into “${leadName(pair.keep)}”` })
              },
            },
          )
        }}
      >
        {pair === null
          ? ''
          : `“${leadName(pair.merge)}” is merged into “${leadName(pair.keep)}”, which is kept: its contacts, activities, opportunities and tasks move there, and “${leadName(pair.merge)}” is deleted.`}
      </ConfirmDialog>
    </div>
  )
}

function ClusterCard({
  cluster,
  onMerge,
}: {
  cluster: DuplicateCluster
  onMerge: (keep: DuplicateLead, other: DuplicateLead) => void
}) {
  const [keep, ...others] = cluster.leads
  if (keep === undefined) return null
  const headingId = `cluster-${cluster.reason}-${cluster.value}`.replace(/[^A-Za-z0-9_-]/g, '_')
  return (
    <li aria-labelledby={headingId} className="rounded-lg border border-slate-200 bg-white p-4">
      <h2 id={headingId} className="text-base font-semibold break-words text-slate-900">
        {reasonsText([cluster.reason]).replace(/^./, (c) => c.toUpperCase())}: {cluster.value}
      </h2>
      <p className="mt-1 text-sm text-slate-600">
        Kept: <LeadLink lead={keep} /> (the oldest)
        {cluster.lead_count > cluster.leads.length
          ? ` · ${String(cluster.lead_count)} leads in all, the first ${String(cluster.leads.length)} shown`
          : ''}
      </p>
      <ul className="mt-3 flex flex-col divide-y divide-slate-100">
        {others.map((other) => (
          <li key={other.id} className="flex flex-wrap items-center justify-between gap-3 py-2">
            <span className="text-sm text-slate-800">
              <LeadLink lead={other} /> · {other.status_label}
            </span>
            <Button
              size="sm"
              variant="secondary"
              aria-label={`Merge ${leadName(other)} into ${leadName(keep)}`}
              onPress={() => {
                onMerge(keep, other)
              }}
            >
              Merge
            </Button>
          </li>
        ))}
      </ul>
    </li>
  )
}

function LeadLink({ lead }: { lead: DuplicateLead }) {
  return (
    <Link to="/leads/$leadId" params={{ leadId: lead.id }} className="font-medium text-indigo-700 hover:underline">
      {leadName(lead)}
    </Link>
  )
}
