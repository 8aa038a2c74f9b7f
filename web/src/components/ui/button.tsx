import type { ButtonHTMLAttributes, Ref } from 'react'
import { twMerge } from '../../lib/class-merge'

const variants = {
  primary: 'bg-indigo-600 text-white hover:bg-indigo-700 active:bg-indigo-800',
  secondary: 'border border-slate-300 bg-white text-slate-800 hover:bg-slate-50 active:bg-slate-100',
  danger: 'bg-red-600 text-white hover:bg-red-700 active:bg-red-800',
  quiet: 'text-slate-700 hover:bg-slate-100 active:bg-slate-200',
} as const

const sizes = { sm: 'px-2.5 py-1 text-sm', md: 'px-3.5 py-2 text-sm' } as const

export interface ButtonProps extends Omit<
  ButtonHTMLAttributes<HTMLButtonElement>,
  'className' | 'disabled' | 'onClick' | 'type'
> {
  variant?: keyof typeof variants
  size?: keyof typeof sizes
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
      // A caller's class replaces the variant's where they set the same thing (text-red-700 over text-slate-700).
      className={twMerge(
        'inline-flex cursor-default items-center justify-center gap-1.5 rounded-md font-medium whitespace-nowrap transition-colors disabled:cursor-not-allowed disabled:opacity-50 aria-busy:opacity-70',
        focusRing,
        sizes[size],
        variants[variant],
        className,
      )}
    >
      {children}
    </button>
  )
}
