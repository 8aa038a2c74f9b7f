// The board's search params (they live in the URL); no React, so the rule is unit-tested.

export interface BoardSearch {
  /** The pipeline shown; the organization's first when absent or unknown. */
  pipeline?: string | undefined
  /** The opportunity open in the side panel. */
  opportunity?: string | undefined
}

/** The key is always present: the router merges this over the raw params, so a rejected value must be overwritten. */
export function boardSearchOf(search: Record<string, unknown>): BoardSearch {
  const { pipeline, opportunity } = search
  return {
    pipeline: typeof pipeline === 'string' && pipeline.startsWith('pipe_') ? pipeline : undefined,
    opportunity: typeof opportunity === 'string' && opportunity.startsWith('oppo_') ? opportunity : undefined,
  }
}

/** The pipeline a search asks for, else the first one. */
export function pipelineOf<P extends { id: string }>(pipelines: readonly P[], id: string | undefined): P | undefined {
  return pipelines.find((p) => p.id === id) ?? pipelines[0]
}
