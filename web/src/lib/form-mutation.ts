import { useMutation } from '@tanstack/react-query'

/**
 * A mutation whose form shows the API's message beside its control: no toast (`errorTitle: false`). Its key names
 * the cached queries it makes stale; the MutationCache refetches them once it settles.
 */
export function useFormMutation<V, R>(mutationKey: readonly unknown[], mutationFn: (variables: V) => Promise<R>) {
  return useMutation({ mutationKey, mutationFn, meta: { errorTitle: false } })
}
