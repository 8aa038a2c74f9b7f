import type { ReactNode } from 'react'
import { Link } from '@tanstack/react-router'

export const textLink = 'text-indigo-700 underline-offset-2 hover:underline'

/** The pages one sees signed out (sign in, accept an invitation, reset a password): the product, a heading, a card. */
export function PublicFrame({ title, children }: { title: string; children: ReactNode }) {
  return (
    <main className="flex min-h-screen items-start justify-center px-4 pt-[12vh]">
      <div className="w-full max-w-md">
        <div className="mb-8 text-center">
          <p className="text-2xl font-bold tracking-tight text-indigo-700">Leadline</p>
          <h1 className="mt-2 text-lg font-semibold text-slate-900">{title}</h1>
        </div>
        <div className="rounded-lg border border-slate-200 bg-white p-6 shadow-sm">{children}</div>
      </div>
    </main>
  )
}

/** A link that ends a public page's flow: back to the sign-in form, or on to ask for a new link. */
export function NextStep({ to, children }: { to: '/sign-in' | '/forgot-password'; children: ReactNode }) {
  return (
    <p className="mt-4 text-center text-sm">
      <Link to={to} className={textLink}>
        {children}
      </Link>
    </p>
  )
}
