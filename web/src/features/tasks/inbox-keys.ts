// The inbox's keyboard shortcuts; no React, so they are unit-tested.

export type Shortcut = 'next' | 'previous' | 'select' | 'complete' | 'snooze' | 'assign' | 'open' | 'undo' | 'help'

const KEYS: Record<string, Shortcut> = {
  j: 'next',
  k: 'previous',
  x: 'select',
  e: 'complete',
  s: 'snooze',
  a: 'assign',
  u: 'undo',
  '?': 'help',
}

/**
 * The shortcut a key stands for. `Enter` opens the lead only on a task row (or when nothing has the focus): on a
 * button or a link it keeps doing what it does there.
 */
export function shortcutOf(key: string, onRow: boolean): Shortcut | undefined {
  if (key === 'Enter') return onRow ? 'open' : undefined
  return Object.hasOwn(KEYS, key) ? KEYS[key] : undefined
}

const TYPING_INPUTS = new Set([
  'text',
  'search',
  'email',
  'url',
  'tel',
  'password',
  'number',
  'date',
  'time',
  'datetime-local',
  'month',
  'week',
])

/** Whether a key goes into a field the user is typing in: shortcuts never fire there. */
export function isTyping(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false
  if (target.isContentEditable || target instanceof HTMLTextAreaElement || target instanceof HTMLSelectElement)
    return true
  return target instanceof HTMLInputElement && TYPING_INPUTS.has(target.type)
}
