/**
 * What `work` resolves to, or `late` when it has not settled within `ms`; the timer never outlives the answer. The work
 * itself goes on (a promise cannot be cancelled): give it its own limit when it holds something, such as a connection.
 */
export async function withDeadline<T, L>(work: Promise<T>, ms: number, late: L): Promise<T | L> {
  let timer: ReturnType<typeof setTimeout> | undefined
  const expired = new Promise<L>((resolve) => {
    timer = setTimeout(() => {
      resolve(late)
    }, ms)
  })
  try {
    return await Promise.race([work, expired])
  } finally {
    clearTimeout(timer)
  }
}
