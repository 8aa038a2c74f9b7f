// @vitest-environment jsdom
import { cleanup, render, screen } from '@testing-library/react'
import { afterEach, describe, expect, it } from 'vitest'
import { useProgressiveCount } from './progressive'

function Rows({ total, seen }: { total: number; seen: number[] }) {
  const shown = useProgressiveCount(total, 30)
  seen.push(shown)
  return (
    <ul>
      {Array.from({ length: shown }, (_, i) => (
        <li key={i}>row {i}</li>
      ))}
    </ul>
  )
}

afterEach(cleanup)

describe('useProgressiveCount', () => {
  it('renders the first rows first, then all of them', async () => {
    const seen: number[] = []
    render(<Rows total={200} seen={seen} />)
    expect(await screen.findAllByRole('listitem')).toHaveLength(200)
    expect(seen[0]).toBe(30)
    expect(seen.at(-1)).toBe(200)
  })

  it('a list that fits renders whole at once; rows that arrive later follow the same way', () => {
    const seen: number[] = []
    const { rerender } = render(<Rows total={12} seen={seen} />)
    expect(seen.every((shown) => shown === 12)).toBe(true)
    rerender(<Rows total={80} seen={seen} />)
    expect(screen.getAllByRole('listitem')).toHaveLength(80)
  })
})
