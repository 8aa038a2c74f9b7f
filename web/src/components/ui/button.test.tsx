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
  it('a tone replaces the variant’s text colour rather than competing with it in the stylesheet', () => {
    const quiet = classesOf(
      <Button variant="quiet" tone="danger">
        Delete
      </Button>,
    )
    expect(quiet).toContain('text-red-700')
    expect(quiet).not.toContain('text-slate-700')
    expect(quiet).toContain('hover:bg-slate-100')

    const secondary = classesOf(
      <Button variant="secondary" tone="danger">
        Delete lead
      </Button>,
    )
    expect(secondary).toContain('text-red-700')
    expect(secondary).not.toContain('text-slate-800')
    expect(secondary).toEqual(expect.arrayContaining(['border', 'border-slate-300', 'bg-white']))

    expect(classesOf(<Button variant="quiet">Edit</Button>)).toContain('text-slate-700')
  })

  it('a size sets padding and text size as a whole, with none of another size’s', () => {
    const classes = classesOf(
      <Button size="inline" variant="quiet" tone="accent">
        Edit draft
      </Button>,
    )
    expect(classes).toEqual(expect.arrayContaining(['px-1', 'py-0', 'text-xs', 'text-indigo-700']))
    expect(classes).not.toEqual(expect.arrayContaining(['px-2.5']))
    expect(classes).not.toContain('py-1')
    expect(classes).not.toContain('text-sm')
  })

  it('a full-width button is a block and its content may be spread apart', () => {
    const classes = classesOf(
      <Button variant="quiet" isFullWidth justify="between">
        Tomorrow
      </Button>,
    )
    expect(classes).toEqual(expect.arrayContaining(['flex', 'w-full', 'justify-between']))
    expect(classes).not.toContain('inline-flex')
    expect(classes).not.toContain('justify-center')
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
