import { createTailwindMerge, validators, type Config } from 'tailwind-merge'

/*
 * tailwind-merge with a configuration of the class groups this app writes, instead of its default of every Tailwind
 * utility: the default configuration is about 4 KB gzipped on every first visit (decision 0018).
 * class-merge.test.ts merges every pair of the classes found in `src` with both and expects the same, so a class this
 * configuration does not know fails a test rather than a screen.
 */

const { isAny, isArbitraryValue, isArbitraryVariable, isFraction, isInteger, isNumber, isTshirtSize } = validators

type Groups = Config<string, string>['classGroups']
type Definition = Groups[string][number]

const arbitrary: Definition[] = [isArbitraryVariable, isArbitraryValue]
const spacing: Definition[] = ['px', isNumber, ...arbitrary]
const inset: Definition[] = [isFraction, 'full', 'auto', ...spacing]
const sizing: Definition[] = [isFraction, 'auto', 'full', 'screen', 'min', 'max', 'fit', ...spacing]
const color: Definition[] = [isAny]
const sides = ['t', 'r', 'b', 'l', 'x', 'y'] as const

/** `p`, `px`, `pt`… (or `m`…) as groups of their own, each of the given values. */
function boxGroups(prefix: string, values: Definition[]): Groups {
  const groups: Groups = { [prefix]: [{ [prefix]: values }] }
  for (const side of sides) groups[`${prefix}${side}`] = [{ [`${prefix}${side}`]: values }]
  return groups
}

/** `border-t`, `border-l`… widths or colours, one group per side. */
function borderGroups(kind: 'w' | 'color', values: Definition[]): Groups {
  const groups: Groups = { [`border-${kind}`]: [{ border: values }] }
  for (const side of sides) groups[`border-${kind}-${side}`] = [{ [`border-${side}`]: values }]
  return groups
}

/** A whole box property against its sides and axes: `p-2` replaces an earlier `px-3`, `px-3` an earlier `pl-1`. */
function boxConflicts(prefix: string): Record<string, string[]> {
  return {
    [prefix]: sides.map((side) => `${prefix}${side}`),
    [`${prefix}x`]: [`${prefix}r`, `${prefix}l`],
    [`${prefix}y`]: [`${prefix}t`, `${prefix}b`],
  }
}

function borderConflicts(kind: 'w' | 'color'): Record<string, string[]> {
  return {
    [`border-${kind}`]: sides.map((side) => `border-${kind}-${side}`),
    [`border-${kind}-x`]: [`border-${kind}-r`, `border-${kind}-l`],
    [`border-${kind}-y`]: [`border-${kind}-t`, `border-${kind}-b`],
  }
}

export const twMerge = createTailwindMerge(() => ({
  cacheSize: 500,
  theme: {},
  classGroups: {
    display: [
      'block',
      'inline-block',
      'inline',
      'flex',
      'inline-flex',
      'table',
      'table-cell',
      'grid',
      'contents',
      'hidden',
    ],
    sr: ['sr-only', 'not-sr-only'],
    position: ['static', 'fixed', 'absolute', 'relative', 'sticky'],
    inset: [{ inset: inset }],
    'inset-x': [{ 'inset-x': inset }],
    'inset-y': [{ 'inset-y': inset }],
    top: [{ top: inset }],
    right: [{ right: inset }],
    bottom: [{ bottom: inset }],
    left: [{ left: inset }],
    z: [{ z: [isInteger, 'auto', ...arbitrary] }],
    basis: [{ basis: [isFraction, 'full', 'auto', ...spacing] }],
    'flex-direction': [{ flex: ['row', 'row-reverse', 'col', 'col-reverse'] }],
    'flex-wrap': [{ flex: ['nowrap', 'wrap', 'wrap-reverse'] }],
    flex: [{ flex: [isNumber, isFraction, 'auto', 'initial', 'none', ...arbitrary] }],
    grow: [{ grow: ['', isNumber, ...arbitrary] }],
    shrink: [{ shrink: ['', isNumber, ...arbitrary] }],
    order: [{ order: [isInteger, 'first', 'last', 'none', ...arbitrary] }],
    'grid-cols': [{ 'grid-cols': [isInteger, 'none', 'subgrid', ...arbitrary] }],
    'grid-rows': [{ 'grid-rows': [isInteger, 'none', 'subgrid', ...arbitrary] }],
    'col-start-end': [{ col: ['auto', { span: ['full', isInteger, ...arbitrary] }, isInteger, ...arbitrary] }],
    'row-start-end': [{ row: ['auto', { span: ['full', isInteger, ...arbitrary] }, isInteger, ...arbitrary] }],
    gap: [{ gap: spacing }],
    'gap-x': [{ 'gap-x': spacing }],
    'gap-y': [{ 'gap-y': spacing }],
    'justify-content': [{ justify: ['start', 'end', 'center', 'between', 'around', 'evenly', 'stretch', 'normal'] }],
    'align-items': [{ items: ['start', 'end', 'center', 'baseline', 'stretch'] }],
    'align-self': [{ self: ['auto', 'start', 'end', 'center', 'stretch', 'baseline'] }],
    ...boxGroups('p', spacing),
    ...boxGroups('m', ['auto', ...spacing]),
    size: [{ size: sizing }],
    w: [{ w: sizing }],
    'min-w': [{ 'min-w': sizing }],
    'max-w': [{ 'max-w': ['none', isTshirtSize, ...sizing] }],
    h: [{ h: sizing }],
    'min-h': [{ 'min-h': sizing }],
    'max-h': [{ 'max-h': ['none', ...sizing] }],
    'font-size': [{ text: ['base', isTshirtSize, ...arbitrary] }],
    'font-weight': [
      { font: ['thin', 'extralight', 'light', 'normal', 'medium', 'semibold', 'bold', 'extrabold', 'black'] },
    ],
    'font-family': [{ font: ['sans', 'serif', 'mono'] }],
    'font-style': ['italic', 'not-italic'],
    'fvn-spacing': ['tabular-nums', 'proportional-nums'],
    tracking: [{ tracking: ['tighter', 'tight', 'normal', 'wide', 'wider', 'widest', ...arbitrary] }],
    leading: [{ leading: ['none', 'tight', 'snug', 'normal', 'relaxed', 'loose', ...spacing] }],
    'text-alignment': [{ text: ['left', 'center', 'right', 'justify', 'start', 'end'] }],
    'text-color': [{ text: color }],
    'text-decoration': ['underline', 'overline', 'line-through', 'no-underline'],
    'text-decoration-style': [{ decoration: ['solid', 'dashed', 'dotted', 'double', 'wavy'] }],
    'underline-offset': [{ 'underline-offset': [isNumber, 'auto', ...arbitrary] }],
    'text-transform': ['uppercase', 'lowercase', 'capitalize', 'normal-case'],
    'text-overflow': ['truncate', 'text-ellipsis', 'text-clip'],
    'line-clamp': [{ 'line-clamp': [isNumber, 'none', ...arbitrary] }],
    whitespace: [{ whitespace: ['normal', 'nowrap', 'pre', 'pre-line', 'pre-wrap', 'break-spaces'] }],
    break: [{ break: ['normal', 'words', 'all', 'keep'] }],
    wrap: [{ wrap: ['break-word', 'anywhere', 'normal'] }],
    'bg-color': [{ bg: color }],
    ...borderGroups('w', ['', isNumber, ...arbitrary]),
    ...borderGroups('color', color),
    'divide-y': [{ 'divide-y': ['', isNumber, ...arbitrary] }],
    'divide-color': [{ divide: color }],
    rounded: [{ rounded: ['', 'none', 'full', isTshirtSize, ...arbitrary] }],
    shadow: [{ shadow: ['', 'none', isTshirtSize, ...arbitrary] }],
    'outline-style': ['outline-none', 'outline-hidden', { outline: ['', 'solid', 'dashed', 'dotted', 'double'] }],
    'ring-w': [{ ring: ['', isNumber, ...arbitrary] }],
    'ring-color': [{ ring: color }],
    'ring-offset-w': [{ 'ring-offset': [isNumber, ...arbitrary] }],
    'ring-offset-color': [{ 'ring-offset': color }],
    opacity: [{ opacity: [isNumber, ...arbitrary] }],
    filter: [{ filter: ['', 'none'] }],
    accent: [{ accent: ['auto', ...color] }],
    appearance: [{ appearance: ['none', 'auto'] }],
    cursor: [
      {
        cursor: [
          'auto',
          'default',
          'pointer',
          'wait',
          'text',
          'move',
          'help',
          'not-allowed',
          'none',
          'grab',
          'grabbing',
        ],
      },
    ],
    'vertical-align': [{ align: ['baseline', 'top', 'middle', 'bottom', 'text-top', 'text-bottom', 'sub', 'super'] }],
    'pointer-events': [{ 'pointer-events': ['auto', 'none'] }],
    overflow: [{ overflow: ['auto', 'hidden', 'clip', 'visible', 'scroll'] }],
    'overflow-x': [{ 'overflow-x': ['auto', 'hidden', 'clip', 'visible', 'scroll'] }],
    'overflow-y': [{ 'overflow-y': ['auto', 'hidden', 'clip', 'visible', 'scroll'] }],
    transition: [{ transition: ['', 'all', 'colors', 'opacity', 'shadow', 'transform', 'none', ...arbitrary] }],
    animate: [{ animate: ['none', 'spin', 'ping', 'pulse', 'bounce', ...arbitrary] }],
    fill: [{ fill: ['none', ...color] }],
    'stroke-w': [{ stroke: [isNumber, ...arbitrary] }],
    stroke: [{ stroke: ['none', ...color] }],
  },
  conflictingClassGroups: {
    overflow: ['overflow-x', 'overflow-y'],
    // A clamp sets its own display and overflow.
    'line-clamp': ['display', 'overflow'],
    inset: ['inset-x', 'inset-y', 'top', 'right', 'bottom', 'left'],
    'inset-x': ['right', 'left'],
    'inset-y': ['top', 'bottom'],
    flex: ['basis', 'grow', 'shrink'],
    gap: ['gap-x', 'gap-y'],
    ...boxConflicts('p'),
    ...boxConflicts('m'),
    size: ['w', 'h'],
    'font-size': ['leading'],
    ...borderConflicts('w'),
    ...borderConflicts('color'),
  },
  conflictingClassGroupModifiers: { 'font-size': ['leading'] },
  // Pseudo-elements: their classes keep their order among modifiers.
  orderSensitiveModifiers: [
    '*',
    '**',
    'after',
    'backdrop',
    'before',
    'file',
    'first-letter',
    'first-line',
    'marker',
    'placeholder',
    'selection',
  ],
}))
