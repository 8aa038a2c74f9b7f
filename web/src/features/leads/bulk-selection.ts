// What the leads list has selected for a bulk action: kept apart from the bulk code, which loads on first use.

/** Rows picked one by one, or every lead the list's search matches. */
export type Selection = { all: false; ids: ReadonlySet<string> } | { all: true }

export const NOTHING_SELECTED: Selection = { all: false, ids: new Set() }

/** How many leads a selection holds, given how many the search matches. */
export function selectedCount(selection: Selection, total: number): number {
  return selection.all ? total : selection.ids.size
}
