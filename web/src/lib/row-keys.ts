import { useRef } from 'react'

// Lists the user adds to and removes from keep a key with each item (not its position), so React keeps each item's
// DOM node, state and focus with the item when one before it goes.

let made = 0

/** A key for a new item of an edited list, unique for the life of the page. */
export function newRowKey(): string {
  made += 1
  return `row-${String(made)}`
}

/** Keys for a list shown as it comes (an email's parts, its files): what each item is, repeats numbered. */
export function contentKeys(values: readonly string[]): string[] {
  const seen = new Map<string, number>()
  return values.map((value) => {
    const count = seen.get(value) ?? 0
    seen.set(value, count + 1)
    return count === 0 ? value : `${value}#${String(count)}`
  })
}

/** The item that takes the focus when the one at `index` is removed: the next one, else the one before, else none. */
export function neighbourAfterRemoval<T>(items: readonly T[], index: number): T | undefined {
  return items[index + 1] ?? (index > 0 ? items[index - 1] : undefined)
}

/**
 * Focus for lists whose items have a remove button: when one is removed, its button goes, and the focus would drop to
 * the page. `ref(key)` goes on each item's button; `removing(keys, index, fallback)`, called as the item at `index`
 * is removed, moves the focus to the next item's button, else the previous one's, else `fallback` (the list's add
 * button or input).
 */
export function useRemovalFocus() {
  const buttons = useRef(new Map<string, HTMLElement>())
  return {
    ref: (key: string) => (element: HTMLElement | null) => {
      if (element === null) buttons.current.delete(key)
      else buttons.current.set(key, element)
    },
    removing: (keys: readonly string[], index: number, fallback: HTMLElement | null | undefined) => {
      const next = neighbourAfterRemoval(keys, index)
      const target = next === undefined ? fallback : buttons.current.get(next)
      target?.focus()
    },
  }
}
