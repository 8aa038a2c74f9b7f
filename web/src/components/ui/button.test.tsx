import type { ReactElement } from 'react'
import { renderToStaticMarkup } from 'react-dom/server'
import { describe, expect, it } from 'vitest'
import { Button } from './button'

function classesOf(element: ReactElement): string[] {
  const match = /class="([^"]*)"/.exec(renderToStaticMarkup(element))
  if (match?.[1] === undefined) throw new Error('the button has no class attribute')
  return match[1].split(' ')
}

describe('Button classes', () => {
  it('a caller’s text colour replaces the variant’s, whatever order the stylesheet puts them in', () => {
    const quiet = classesOf(
      <Button variant="quiet" className="text-red-700">
        Delete
      </Button>,
    )
    expect(quiet).toContain('text-red-700')
    expect(quiet).not.toContain('text-slate-700')
    expect(quiet).toContain('hover:bg-slate-100')

    const secondary = classesOf(
      <Button variant="secondary" className="text-red-700">
        Delete lead
      </Button>,
    )
    expect(secondary).toContain('text-red-700')
    expect(secondary).not.toContain('text-slate-800')
    expect(secondary).toEqual(expect.arrayContaining(['border', 'border-slate-300', 'bg-white']))
  })

  it('a caller’s spacing replaces the size’s on that side only', () => {
    const classes = classesOf(
      <Button size="sm" className="px-0">
        Edit
      </Button>,
    )
    expect(classes).toContain('px-0')
    expect(classes).not.toContain('px-2.5')
    expect(classes).toContain('py-1')
  })

  it('classes that conflict with nothing are all kept, each once', () => {
    const classes = classesOf(
      <Button variant="danger" className="mb-1 w-fit">
        Delete
      </Button>,
    )
    expect(classes).toEqual(expect.arrayContaining(['bg-red-600', 'text-white', 'inline-flex', 'mb-1', 'w-fit']))
    expect(new Set(classes).size).toBe(classes.length)
  })
})
