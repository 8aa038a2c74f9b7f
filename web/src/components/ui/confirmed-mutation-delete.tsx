import { ConfirmedDelete, type ConfirmedDeleteProps } from './dialog'
import { showToast } from './toast'

export interface ConfirmedMutationDeleteProps<Variables> extends Omit<ConfirmedDeleteProps, 'isPending' | 'onConfirm'> {
  /** The delete (or revoke, or deactivate) mutation, called with `variables` once confirmed. */
  mutation: {
    mutate: (variables: Variables, options: { onSuccess: () => void; onError: (error: Error) => void }) => void
    isPending: boolean
  }
  variables: Variables
  /** The error toast's title when the API refuses (The key was not revoked); its message is the description. */
  failure: string
  /** Whether a refusal also closes the question, leaving only the toast. */
  closeOnError?: boolean
  /** After the question has closed on success. */
  onDeleted?: () => void
}

/** A `ConfirmedDelete` that runs a mutation: the question closes once it is done, and a refusal shows as a toast. */
export function ConfirmedMutationDelete<Variables>({
  mutation,
  variables,
  failure,
  closeOnError = false,
  onDeleted,
  ...question
}: ConfirmedMutationDeleteProps<Variables>) {
  return (
    <ConfirmedDelete
      {...question}
      isPending={mutation.isPending}
      onConfirm={(close) => {
        mutation.mutate(variables, {
          onSuccess: () => {
            close()
            onDeleted?.()
          },
          onError: (error) => {
            if (closeOnError) close()
            showToast({ title: failure, description: error.message, tone: 'error' })
          },
        })
      }}
    />
  )
}
