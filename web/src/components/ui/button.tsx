import type { ButtonHTMLAttributes, Ref } from 'react'
import { cx } from '../../lib/cx'

// Each variant's text colour apart, so that a tone replaces it rather than competing with it in the stylesheet.
const variants = {
  primary: { surface: 'bg-indigo-600 hover:bg-indigo-700 active:bg-indigo-800', text: 'text-white' },
  secondary: {
    surface: 'border border-slate-300 bg-white hover:bg-slate-50 active:bg-slate-100',
    text: 'text-slate-800',
  },
  danger: { surface: 'bg-red-600 hover:bg-red-700 active:bg-red-800', text: 'text-white' },
  quiet: { surface: 'hover:bg-slate-100 active:bg-slate-200', text: 'text-slate-700' },
} as const

const tones = { danger: 'text-red-700', accent: 'text-indigo-700' } as const

const sizes = {
  md: 'px-3.5 py-2 text-sm',
  sm: 'px-2.5 py-1 text-sm',
  /** A toolbar's small square-ish button. */
  toolbar: 'px-2 py-0.5 text-sm',
  xs: 'px-1.5 py-0.5 text-xs',
  /** A link-like action in a line of small text. */
  inline: 'px-1 py-0 text-xs',
} as const

const justifications = { center: 'justify-center', start: 'justify-start', between: 'justify-between' } as const

export interface ButtonProps extends Omit<
  ButtonHTMLAttributes<HTMLButtonElement>,
  'className' | 'disabled' | 'onClick' | 'type'
> {
  variant?: keyof typeof variants
  size?: keyof typeof sizes
  /** Text in a colour of its own instead of the variant's: red for a destructive action, indigo for a link-like one. */
  tone?: keyof typeof tones
  justify?: keyof typeof justifications
  /** A block as wide as its container rather than an inline button. */
  isFullWidth?: boolean
  /** Layout only (margins, flex, self-alignment): the look comes from the props above. */
  className?: string
  type?: 'button' | 'submit'
  isDisabled?: boolean
  /** Busy: stays focusable, ignores presses and says so to assistive technology. */
  isPending?: boolean
  onPress?: () => void
  ref?: Ref<HTMLButtonElement>
}

export const focusRing = 'outline-none focus-visible:ring-2 focus-visible:ring-indigo-500 focus-visible:ring-offset-2'

/*
 * A native <button> rather than React Aria's: it is already labelled, focusable and keyboard-operable, and React
 * Aria's press handling costs about 15 KB gzipped on the first route, whose budget is 130 KB.
 */
export function Button({
  variant = 'secondary',
  size = 'md',
  tone,
  justify = 'center',
  isFullWidth = false,
  className,
  type = 'button',
  isDisabled = false,
  isPending = false,
  onPress,
  children,
  ...props
}: ButtonProps) {
  return (
    <button
      {...props}
      type={type}
      disabled={isDisabled}
      aria-busy={isPending || undefined}
      onClick={(event) => {
        if (isPending) event.preventDefault()
        else onPress?.()
      }}
      className={cx(
        isFullWidth ? 'flex w-full' : 'inline-flex',
        justifications[justify],
        'cursor-default items-center gap-1.5 rounded-md font-medium whitespace-nowrap transition-colors disabled:cursor-not-allowed disabled:opacity-50 aria-busy:opacity-70',
        focusRing,
        sizes[size],
        variants[variant].surface,
        tone === undefined ? variants[variant].text : tones[tone],
        className,
      )}
    >
      {children}
    </button>
  )
}
